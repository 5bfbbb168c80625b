#!/bin/bash
# The marker DIR/.strata-report cannot make strata delete, replace or
# write through anything it did not write: not a path outside DIR (a line
# added to a report's marker, a marker committed to a repository and
# cloned), not a file inside DIR whose bytes are not those strata wrote,
# not through a symbolic link at DIR or inside it, not with a marker of
# the first format. Each case checks that the victim is whole and that
# DIR is exactly as it was.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"

site_repo "$WORK/repo"
REPO=$WORK/repo
EMPTY_SHA=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

no_leftovers() {
	local left
	left=$(find . -maxdepth 3 -name '.*.strata-*')
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

# refused DIR PATTERN ARG...: `strata report ARG...` fails with exit 1 and
# one line matching PATTERN, and DIR is byte for byte as it was.
refused() {
	local dir=$1 pat=$2 rc=0
	shift 2
	snapshot "$dir" >"$WORK/before"
	ls -laR "$dir" | grep -v " \.\.$" >"$WORK/before.ls"
	report "$@" 2>err || rc=$?
	[ $rc = 1 ] || { echo "exit $rc, wanted 1: $*"; cat err; return 1; }
	[ "$(wc -l <err)" = 1 ] && grep -Eq "^strata: $pat" err ||
		{ echo "wanted one line matching '$pat':"; cat err; return 1; }
	snapshot "$dir" | diff "$WORK/before" - ||
		{ echo "$dir changed"; return 1; }
	ls -laR "$dir" | grep -v " \.\.$" | diff "$WORK/before.ls" - ||
		{ echo "$dir changed"; return 1; }
	no_leftovers
}

# The attack of the issue, and its variants: a line added to the marker
# of a real report naming something outside it.
added_lines() {
	local line
	report "$REPO" --out r
	cp r/.strata-report marker.orig
	mkdir -p victims/dir && echo keep >victims/file && echo keep >victims/dir/f
	: >victims/empty
	for line in "$PWD/victims/file" "../victims/file" "../victims/dir/" \
		"d ../victims/dir/" "f 5 $(sha256sum <victims/file | cut -d' ' -f1) ../victims/file" \
		"f 0 $EMPTY_SHA $PWD/victims/empty" "f 0 $EMPTY_SHA ./../victims/empty" \
		"f 0 $EMPTY_SHA img/../../victims/empty" "d /" "d ./" "f 0 $EMPTY_SHA "; do
		cp marker.orig r/.strata-report
		printf '%s\n' "$line" >>r/.strata-report
		refused r "refusing to write into 'r': its .strata-report cannot be trusted \(line [0-9]+ " \
			"$REPO" --out r
		refused r "refusing to write into 'r': its .strata-report cannot be trusted" \
			"$REPO" --out r --force
	done
	[ "$(cat victims/file)" = keep ] && [ "$(cat victims/dir/f)" = keep ] &&
		[ -e victims/empty ] || { echo "a victim was hit"; return 1; }
	# A NUL inside a path, or no final newline, is no better.
	cp marker.orig r/.strata-report
	printf 'f 0 %s index.html\0/../../victims/empty\n' $EMPTY_SHA >>r/.strata-report
	refused r "refusing .*cannot be trusted" "$REPO" --out r
	head -c -1 marker.orig >r/.strata-report
	refused r "refusing .*does not end in a newline" "$REPO" --out r
	# The untouched marker still works, and the run replaces the report.
	cp marker.orig r/.strata-report
	report "$REPO" --rev v1.1 --out r
	has r/index.html 'of the code at v1.1'
	[ -e victims/empty ] || { echo "victims/empty was removed"; return 1; }
}

# A repository that ships output/.strata-report (and files) and a user who
# clones it and runs `strata report` in it, with the default --out.
cloned_marker() {
	local kind
	mkdir home-of-user && echo precious >home-of-user/somefile
	for kind in old new; do
		repo_new "src-$kind"
		put a.c one two
		mkdir -p output
		if [ $kind = old ]; then
			printf 'strata report\n../../home-of-user/somefile\n../../home-of-user/\nindex.html\n' \
				>output/.strata-report
		else
			printf 'strata report 2\nf 9 %s ../../home-of-user/somefile\n' \
				"$(sha256sum <../home-of-user/somefile | cut -d' ' -f1)" \
				>output/.strata-report
		fi
		echo '<p>theirs</p>' >output/index.html
		commit "ships a marker"
		git tag v1.0
		cd ..
		git clone -q "src-$kind" "clone-$kind"
		cd "clone-$kind"
		refused output "refusing to write into 'output': its .strata-report cannot be trusted" .
		refused output "refusing to write into 'output': its .strata-report cannot be trusted" . --force
		cd ..
		[ "$(cat home-of-user/somefile)" = precious ] ||
			{ echo "somefile was hit ($kind)"; return 1; }
	done
	grep -q 'an older strata wrote it' clone-old/err ||
		{ echo "the old format is not named"; cat clone-old/err; return 1; }
}

# A marker that is valid in form but lists the user's own files with bytes
# they do not hold: nothing is proven, so nothing is deleted or replaced.
forged_inside() {
	mkdir mine && echo '<p>mine</p>' >mine/index.html && echo n >mine/notes.txt
	mkdir mine/img && echo logo >mine/img/logo.png
	{
		echo 'strata report 2'
		echo 'd img/'
		echo "f 5 $(sha256sum <mine/notes.txt | cut -d' ' -f1) img/logo.png"
		echo "f 12 $EMPTY_SHA index.html"
		echo "f 2 $EMPTY_SHA notes.txt"
	} >mine/.strata-report
	refused mine "refusing to replace 'mine/index.html': it changed since strata wrote it" \
		"$REPO" --out mine
	# Without index.html in the way the report goes in, and every file of
	# the user's is kept, with its bytes.
	rm mine/index.html
	report "$REPO" --out mine
	[ -s mine/index.html ] && [ "$(cat mine/notes.txt)" = n ] &&
		[ "$(cat mine/img/logo.png)" = logo ] || { echo "a file was lost"; return 1; }
	# A hidden path is never strata's, even with the right bytes: a
	# forged entry cannot reach a .git inside DIR.
	git init -q mine/site && git -C mine/site commit -q --allow-empty -m x
	cp -a mine/site/.git/HEAD head.orig
	printf 'strata report 2\nd site/\nd site/.git/\nf %s %s site/.git/HEAD\n' \
		"$(wc -c <head.orig)" "$(sha256sum <head.orig | cut -d' ' -f1)" \
		>mine/.strata-report
	refused mine "refusing .*cannot be trusted \(line 3 names a path" "$REPO" --out mine --force
	cmp head.orig mine/site/.git/HEAD
}

# A user's edit of a file strata wrote is not strata's any more: it is not
# replaced, and if the new report does not need the path, it is kept.
edited_files() {
	local page=dir-_3csvg_20onload_3dalert_281_29_3e.html
	report "$REPO" --out r
	echo '<!-- my edit -->' >>r/index.html
	refused r "refusing to replace 'r/index.html': it changed since strata wrote it" \
		"$REPO" --out r
	report "$REPO" --out fresh
	cp fresh/index.html r/index.html
	# At v1.1 there is no <svg ...> directory: its unedited chart goes,
	# its edited page stays.
	echo '<!-- mine now -->' >>"r/$page"
	report "$REPO" --rev v1.1 --out r
	has r/index.html 'of the code at v1.1'
	has "r/$page" '<!-- mine now -->'
	[ ! -e r/img/dir-_3csvg_20onload_3dalert_281_29_3e.svg ] ||
		{ echo "a stale chart was kept"; return 1; }
	# Kept files are not listed as strata's: the next run keeps them too.
	lacks r/.strata-report "$page"
	report "$REPO" --rev v1.1 --out r
	has "r/$page" '<!-- mine now -->'
	no_leftovers
}

# No symbolic link at DIR or inside it is followed.
symlinks() {
	mkdir elsewhere && echo keep >elsewhere/index.html
	report "$REPO" --out real
	cp -a real/img elsewhere/img
	# DIR a link to a directory (a report, even), or a broken link.
	ln -s real link
	refused real "refusing to write through the symbolic link 'link': give the directory it points to" \
		"$REPO" --out link
	refused real "refusing to write through the symbolic link 'link/'" "$REPO" --out link/ --force
	ln -s nowhere dangling
	refused real "'dangling' is a broken symbolic link" "$REPO" --out dangling
	[ -L link ] && [ -L dangling ] || { echo "a link was replaced"; return 1; }
	# img/ replaced by a link to a copy of it: the marker's entries match
	# the bytes there, but the link is not strata's and is not followed.
	mv real/img real-img && ln -s ../elsewhere/img real/img
	snapshot elsewhere >else.before
	refused real "refusing to replace 'real/img': it changed since strata wrote it" \
		"$REPO" --out real
	snapshot elsewhere | diff else.before -
	rm real/img && mv real-img real/img
	# A page replaced by a link to a file outside: not strata's either.
	mv real/index.html index.real && ln -s ../elsewhere/index.html real/index.html
	refused real "refusing to replace 'real/index.html': it changed since strata wrote it" \
		"$REPO" --out real
	[ "$(cat elsewhere/index.html)" = keep ] || { echo "written through a link"; return 1; }
	rm real/index.html && mv index.real real/index.html
	# A link where the report writes nothing is kept, as a link.
	ln -s ../elsewhere real/mine
	report "$REPO" --rev v1.1 --out real
	[ -L real/mine ] && [ "$(readlink real/mine)" = ../elsewhere ] ||
		{ echo "the link was not kept"; return 1; }
	snapshot elsewhere | diff else.before -
	# The marker itself a link (to a copy of the real one), or a FIFO:
	# untrusted, and read without blocking.
	mv real/.strata-report marker.real
	ln -s ../marker.real real/.strata-report
	refused real "refusing .*cannot be trusted \(it is a symbolic link\)" "$REPO" --out real
	rm real/.strata-report && mkfifo real/.strata-report
	refused real "refusing .*cannot be trusted \(it is not a regular file\)" "$REPO" --out real
	rm real/.strata-report && mv marker.real real/.strata-report
	report "$REPO" --out real
	no_leftovers
}

# A marker of the first format proves nothing; one that lists paths out of
# order, twice, or with a bad size or digest is refused as a whole.
formats() {
	local bad
	report "$REPO" --out r
	cp r/.strata-report marker.orig
	{ echo 'strata report'; sed -n 's/^[df] \([0-9]* [0-9a-f]* \)\{0,1\}//p' marker.orig; } \
		>r/.strata-report
	refused r "refusing to write into 'r': its .strata-report cannot be trusted \(an older strata wrote it" \
		"$REPO" --out r
	for bad in 's/^f [0-9]* /f 01 /' 's/^f \([0-9]*\) [0-9a-f]\{8\}/f \1 ABCDEFAB/' \
		's/^d data\/$/d data/' 's/^strata report 2$/strata report 3/' 's/^f /F /' \
		's/ index.html$/  index.html/' 's/ index.html$/ index.html\r/'; do
		sed "$bad" marker.orig >r/.strata-report
		cmp -s marker.orig r/.strata-report && { echo "no change: $bad"; return 1; }
		refused r "refusing .*cannot be trusted" "$REPO" --out r
	done
	# Out of order, and twice.
	{ head -n 1 marker.orig; tail -n +2 marker.orig | sort -r; } >r/.strata-report
	refused r "refusing .*cannot be trusted \(line [0-9]+ is out of order\)" "$REPO" --out r
	{ cat marker.orig; tail -n 1 marker.orig; } >r/.strata-report
	refused r "refusing .*cannot be trusted \(line [0-9]+ is out of order\)" "$REPO" --out r
	# Larger than 64 MiB: refused, unread.
	{ cat marker.orig; head -c 70000000 /dev/zero | tr '\0' '\n'; } >r/.strata-report
	refused r "refusing .*cannot be trusted \(it is larger than 64 MiB\)" "$REPO" --out r
	cp marker.orig r/.strata-report
	report "$REPO" --out r
}

# What the marker says is true: every file strata wrote, with its size and
# SHA-256 (as sha256sum gives them), every directory, nothing else.
# Every entry is checked in one perl (a stat and a sha256sum a file were
# most of this test's time); it prints how many there are.
marker_is_true() {
	local n
	report "$REPO" --out r
	echo mine >r/notes.txt
	report "$REPO" --out r
	[ "$(head -n 1 r/.strata-report)" = 'strata report 2' ]
	n=$(tail -n +2 r/.strata-report | perl -MDigest::SHA -e '
		my $n = 0;
		while (my $l = <STDIN>) {
			chomp $l;
			$n++;
			# (Split as the shell'"'"'s read splits: the path is the rest.)
			my ($kind, $size, $sha, $path) = split " ", $l, 4;
			if ($kind eq "d") {
				(my $dir = $size) =~ s{/$}{};
				if (!-d "r/$size" || -l "r/$dir") {
					print "not a directory: $size\n"; exit 1;
				}
			} elsif ($kind eq "f") {
				my @st = lstat "r/$path";
				my $got = "";
				if (open(my $fh, "<", "r/$path")) {
					$got = Digest::SHA->new(256)->addfile($fh)->hexdigest;
				}
				if (!@st || $st[7] != $size || $got ne $sha) {
					print "wrong entry: $path\n"; exit 1;
				}
			} else {
				print "bad line: $kind\n"; exit 1;
			}
		}
		print "$n\n";') || { echo "$n"; return 1; }
	# Every file and directory of the report but the marker and notes.txt.
	[ "$n" = "$(cd r && find . -mindepth 1 ! -name .strata-report ! -name notes.txt | wc -l)" ] ||
		{ echo "the marker lists $n entries"; return 1; }
	lacks r/.strata-report notes.txt
	# Sorted bytewise, as strata reads it.
	tail -n +2 r/.strata-report | awk '{ print $NF }' >paths
	LC_ALL=C sort -c paths
}

run_case added_lines added_lines
run_case cloned_marker cloned_marker
run_case forged_inside forged_inside
run_case edited_files edited_files
run_case symlinks symlinks
run_case formats formats
run_case marker_is_true marker_is_true
finish
