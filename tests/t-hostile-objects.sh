#!/bin/bash
# Hostile commits, trees, tags and refs, written with `git hash-object
# --literally` (or by hand) where git would refuse to write them. Each
# gives one `strata: ` line naming the object and what is wrong, exit 1,
# within a time and memory bound, and leaves nothing in --out; the
# comments say where git fails on the same repository too.
set -eu
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$HERE

# lib.sh's bounded: 60 s and 2 GiB of address space; under ASan the time
# bound only, 240 s (the cases of a million parents need more than 60).

# A repository with one commit (f: a), its id in $BASE and tree in $TREE.
repo_base() {
	repo_new r
	commit_file f one a
	BASE=$(git rev-parse HEAD) TREE=$(git rev-parse HEAD^{tree})
}

# raw_commit BODY: write commit BODY (printf format) as it is; its id.
raw_commit() {
	# shellcheck disable=SC2059
	printf "$1" | git hash-object -t commit --literally -w --stdin
}

# point_main ID: refs/heads/main at ID, which git update-ref would refuse.
point_main() {
	echo "$1" >.git/refs/heads/main
}

# refused PATTERN: strata blame and report each give PATTERN, exit 1, and
# report leaves no --out.
refused() {
	expect 1 "$1" bounded "$STRATA" blame . --quiet
	refused_report "$1"
}

# refused_report PATTERN: the same of strata report alone (the tags).
refused_report() {
	expect 1 "$1" bounded "$STRATA" report . --out o --quiet
	[ ! -e o ] || { echo "o was left"; return 1; }
}

AUTHOR='author A U <a@example.com> 1600000000 +0000'
COMMITTER='committer C O <c@example.com> 1600000000 +0000'

# Each broken tip: libgit2 refused it ("unknown revision 'HEAD'"), and the
# error path leaked. git log fails on the tree and parent cases ("bogus
# commit object", "bad parents"); it reads the author and date cases,
# printing an empty author or a date of 1970, where strata refuses: the
# report is about who wrote what when.
case_tip() {
	local c
	repo_base
	c=$(raw_commit "$2")
	point_main "$c"
	if [ "${3:-}" = git ]; then
		! git log -1 >/dev/null 2>&1 || { echo "git reads it"; return 1; }
	fi
	refused "corrupt commit '$c': $1\$"
}

# Commits of 1970-01-01 and 9999-12-31T23:59:59Z: the report's years.
case_date_last() {
	repo_new r
	at -60
	commit_file f one a
	at 253402300739
	commit_file f two a b
	git tag v1
	bounded "$STRATA" report . --out o --quiet
	[ "$(cut -d, -f1 o/data/years.csv | tr '\n' ' ')" = "year 1970 9999 " ] ||
		{ cat o/data/years.csv; return 1; }
	tr -d '\r' <o/data/releases.csv |
		grep -qx 'v1,v1,9999-12-31T23:59:59Z,2,2,100.00'
	# A snapshot a year would be 8,030 of them: more than the bound.
	expect 1 '--history year gives more than 1000 snapshots; choose a longer period$' \
		bounded "$STRATA" report . --out o2 --quiet --history year
	[ ! -e o2 ]
}

# The same in the middle of the history, packed and read ahead on two
# threads (--jobs 2), and loose with one.
case_parent() {
	local c top
	repo_base
	c=$(raw_commit "tree $TREE\nparent $BASE\n$AUTHOR\n\nx\n")
	top=$(raw_commit "tree $TREE\nparent $c\n$AUTHOR\n$COMMITTER\n\ny\n")
	point_main "$top"
	expect 1 "corrupt commit '$c': no committer\$" \
		bounded "$STRATA" blame . --quiet --jobs 1
	git repack -adq
	[ -z "$(find .git/objects -type f -path '*/objects/??/*')" ]
	expect 1 "corrupt commit '$c': no committer\$" \
		bounded "$STRATA" blame . --quiet --jobs 2
}

# Octopus merges. N root commits, the i-th with f = "line i"; a merge of
# them all whose f is "line N-1" and "octopus": its first line comes
# from the last parent. The 65,537th origin of a version once wrapped a
# 16-bit count (a heap overflow: SIGSEGV); with 1,000,000 parents (the N
# again and again) the check for a blob seen at an earlier parent was
# quadratic (over a minute; git blame is quadratic there too, and takes
# 9 s on the 65,537). git accepts both merges (git log, git blame).
# The roots are the same in both cases: written once (by the first case,
# in $WORK/roots) and copied, as git fast-import of 65,537 commits is
# much of a case's time.
case_octopus() {
	local n=65537 total=$1 tree merge last got
	if [ ! -d "$WORK/roots" ]; then
		rm -rf "$WORK/roots.new"
		git init -q "$WORK/roots.new"
		(cd "$WORK/roots.new" && python3 -c "
import sys
w = sys.stdout.buffer.write
for i in range($n):
    d = b'line %d\\n' % i
    w(b'commit refs/roots\\nmark :%d\\n' % (i + 1))
    w(b'author A <a@b> %d +0000\\n' % (1600000000 + i))
    w(b'committer A <a@b> %d +0000\\ndata 0\\n' % (1600000000 + i))
    if i:
        w(b'from 0000000000000000000000000000000000000000\\n')
    w(b'M 100644 inline f\\ndata %d\\n%s\\n' % (len(d), d))
" | git fast-import --quiet --export-marks=marks)
		mv "$WORK/roots.new" "$WORK/roots"
	fi
	cp -a "$WORK/roots" r
	cd r
	tree=$(printf '100644 blob %s\tf\n' \
		"$(printf 'line %d\noctopus\n' $((n - 1)) | git hash-object -w --stdin)" |
		git mktree)
	last=$(sed -n "${n}p" marks | cut -d' ' -f2)
	merge=$(python3 -c "
import sys
ids = [l.split()[1] for l in open('marks')]
sys.stdout.write('tree $tree\\n')
sys.stdout.write(''.join('parent %s\\n' % ids[i % $n] for i in range($total)))
sys.stdout.write('$AUTHOR\\n$COMMITTER\\n\\noctopus\\n')
" | git hash-object -t commit --literally -w --stdin)
	point_main "$merge"
	[ "$(git rev-list --parents -1 HEAD | wc -w)" = $((total + 1)) ]
	got=$(bounded "$STRATA" blame . --quiet | cut -f1 | tr '\n' ' ')
	[ "$got" = "$last $merge " ] || { echo "strata: $got"; return 1; }
}

# tree_repo KIND [N]: a repository whose one commit has a tree written by
# hand in a pack (tests/gitpack.py): KIND is a list of "MODE NAME" entries
# (each a blob, or a tree for mode 40000), then an entry "zz"; "deep" N
# trees each holding the next as "d", the last holding f; "self", a tree
# stored under the name of a tree that holds it; "cycle", two trees each
# holding the other; "wide", one tree of N files.
tree_repo() {
	repo_new r
	python3 - "$@" <<-'PY'
	import sys, gitpack as gp
	def ent(mode, name, oid):
	    return b"%s %s\0" % (mode, name) + oid
	blob = b"hello\n"; B = gp.oid("blob", blob)
	sub = ent(b"100644", b"f", B)
	p = gp.Pack(); p.whole("blob", blob); p.whole("tree", sub)
	kind = sys.argv[1]
	if kind == "deep":
	    t = sub
	    for i in range(int(sys.argv[2])):
	        t = ent(b"40000", b"d", gp.oid("tree", t)); p.whole("tree", t)
	    T = gp.oid("tree", t)
	elif kind in ("self", "cycle"):
	    T, U = b"\xab" * 20, b"\xcd" * 20
	    p.whole("tree", sub + ent(b"40000", b"g", U if kind == "cycle" else T),
	            name=T)
	    p.whole("tree", ent(b"40000", b"e", T) + sub, name=U)
	elif kind == "bomb":
	    t = sub
	    for i in range(int(sys.argv[2])):
	        o = gp.oid("tree", t)
	        t = ent(b"40000", b"a", o) + ent(b"40000", b"b", o)
	        p.whole("tree", t)
	    T = gp.oid("tree", t)
	elif kind == "wide":
	    n = int(sys.argv[2])
	    t = b"".join(ent(b"100644", b"f%06d" % i, B) for i in range(n))
	    p.whole("tree", t); T = gp.oid("tree", t)
	else:
	    t = b""
	    for e in kind.split(","):
	        m, nm = e.encode().split(b" ", 1)
	        t += ent(m, nm, gp.oid("tree", sub) if m == b"40000" else B)
	    t += ent(b"100644", b"zz", B)
	    p.whole("tree", t); T = gp.oid("tree", t)
	c = (b"tree %s\nauthor A <a@b> 1600000000 +0000\n"
	     b"committer A <a@b> 1600000000 +0000\n\nx\n") % T.hex().encode()
	p.whole("commit", c)
	p.write(".git/objects")
	open(".git/refs/heads/main", "w").write(gp.oid("commit", c).hex() + "\n")
	PY
	TREE=$(git cat-file -p HEAD | sed -n 's/^tree //p')
}

# Entries git fsck reports (hasDot, hasDotdot, fullPathname, emptyName,
# duplicateEntries, treeNotSorted, badFilemode) and git log, ls-tree and
# blame read (git refuses only the empty name: "empty filename in tree
# entry"). A name with a '/' or a '..' would put a file outside its
# directory; a duplicate or an entry out of order breaks the walks' merge
# of each tree with its parent's, which takes both as sorted.
case_bad_tree() {
	tree_repo "$1"
	refused "corrupt tree '$TREE': $2\$"
}

# A file and a directory of one name with entries between them ("a-b"
# sorts after "a" and before "a/"), in a tree the walk reads from its
# parent's: T2 is a, a-b, a/, zz and $2 more files; T1 is the same
# without the file a ($1 = file) or without the directory a ($1 = dir),
# so the walk parses that one and takes the rest over from T1 as it is.
# In a big directory (more than 16 entries a parsed one) the walk looks
# for the twins of the entries it parsed only (check_twins_of()).
case_twins_shared() {
	local sub blob t1 t2 c i new
	repo_new r
	commit_file f one a
	sub=$(git rev-parse HEAD^{tree})
	blob=$(git rev-parse HEAD:f)
	{
		printf '100644 blob %s\ta\n100644 blob %s\ta-b\n' "$blob" "$blob"
		printf '040000 tree %s\ta\n100644 blob %s\tzz\n' "$sub" "$blob"
		for i in $(seq -w "$2"); do
			printf '100644 blob %s\tzz%s\n' "$blob" "$i"
		done
	} >../t2
	case $1 in
	file) new="^100644 blob $blob"$'\t'"a\$" ;;
	*) new='^040000 ' ;;
	esac
	t1=$(grep -v "$new" ../t2 | git mktree)
	t2=$(git mktree <../t2)
	c=$(git commit-tree -m one "$t1")
	c=$(git commit-tree -m two -p "$c" "$t2")
	git update-ref refs/heads/main "$c"
	case $(git fsck 2>&1 || true) in
	*duplicateEntries*) ;;
	*) echo "git fsck takes it"; return 1 ;;
	esac
	git blame main -- a-b >/dev/null || { echo "git blame refuses it"; return 1; }
	refused "corrupt tree '$t2': entry 'a' is there twice\$"
}

# The reader thread finds where a changed tree's entries start by looking
# back from the first changed byte for a NUL 21 bytes before a mode: here
# file "0" has a blob whose name's seventh byte is 0, and the file after
# it is named "100644 x", so the reader's guess lands inside that entry
# (checked by hand: 36, where the entry starts at 29). What the reader
# finds is only a guide: the output must still be git's.
case_fake_boundary() {
	local seed
	repo_new r
	seed=$(python3 -c '
import hashlib
for i in range(1 << 20):
    b = b"seed %d\n" % i
    if hashlib.sha1(b"blob %d\0" % len(b) + b).digest()[6] == 0:
        print(i); break')
	printf 'seed %s\n' "$seed" >0
	printf 'one\ntwo\n' >'100644 x'
	for f in b c d e; do printf '%s\n' "$f" >"$f"; done
	commit one
	[ "$(git rev-parse HEAD:0 | cut -c13-14)" = 00 ] ||
		{ echo "the blob of 0 has no 0 where the case needs it"; return 1; }
	# The reader runs 16 commits and more ahead of the walk.
	for i in $(seq 60); do
		printf 'one\n%s\n' "$i" >'100644 x'
		commit "c$i"
	done
	parity . HEAD~30 && parity . HEAD
}

# Trees nested deeper than 2,048 (git's core.maxTreeDepth from 2.44; git
# 2.39 has no bound, and its ls-tree -r recurses on): strata's walks, and
# libgit2's under --skip-vendored, recursed on the stack (SIGSEGV). 2,048
# is read, in parity with git blame.
case_deep() {
	tree_repo deep "$1"
	if [ "$1" -le 2048 ]; then
		parity . HEAD
		return
	fi
	refused "corrupt tree '[0-9a-f]{40}': trees nest deeper than 2048 \\(or it contains itself\\)\$"
	expect 1 "corrupt tree '[0-9a-f]{40}': trees nest deeper than 2048" \
		bounded "$STRATA" blame . --quiet --skip-vendored
}

# A tree stored under the name of a tree that holds it (itself, or one
# that holds it back): the store lies (git: "hash mismatch"), strata's
# reader does not hash what it reads, and the walk recursed for ever.
case_loop() {
	tree_repo "$1"
	refused "corrupt tree '(ab|cd){20}': trees nest deeper than 2048 \\(or it contains itself\\)\$"
	! git ls-tree -r HEAD >/dev/null 2>&1 || { echo "git reads it"; return 1; }
}

# A tree bomb: each of 40 levels holds the one below twice, 2^40 paths
# in a few kilobytes (git ls-tree -r would list them for ever). At REV
# the count of its directories stops at 2^20 before the walk starts; in
# the history (a commit after it replaces the tree) the walk stops there.
case_bomb() {
	tree_repo bomb 40
	refused "tree '[0-9a-f]{40}' holds more than 1048576 directories, each held subtree counted\$"
	bomb=$(git rev-parse HEAD)
	t=$(printf '100644 blob %s\tok\n' "$(echo ok | git hash-object -w --stdin)" |
		git mktree)
	point_main "$(git commit-tree "$t" -p "$bomb" -m after)"
	refused "the tree of commit '$bomb' holds more than 1048576 directories\$"
	expect 1 "the tree of commit '$bomb' holds more than" \
		bounded "$STRATA" blame . --quiet --jobs 1
}

# 100,000 entries in one tree: each file blamed once.
case_wide() {
	tree_repo wide 100000
	[ "$(bounded "$STRATA" blame . --quiet | wc -l)" = 100000 ]
}

# A mode git writes no more but reads (100664, 100000: a regular file's
# type with other permissions) is a regular file, as git blame takes it.
case_old_mode() {
	tree_repo "$1 a"
	parity . HEAD
	[ "$("$STRATA" blame . --quiet | cut -f4 | tr '\n' ' ')" = "a zz " ]
}

# tag_repo KIND [ARG]: a commit tagged v0 (lightweight), and v1 written by
# hand as a loose object (tests/gitpack.py): "self", a tag stored under
# the name it points at; "cycle", two tags each pointing at the other;
# "date D", a tag of HEAD dated D; "chain N", N tags each of the next;
# "raw BODY", tag object BODY (printf format).
tag_repo() {
	repo_new r
	commit_file f one a
	python3 - "$@" <<-'PY'
	import sys, subprocess, gitpack as gp
	head = subprocess.check_output(["git", "rev-parse", "HEAD"]).strip()
	def tag(obj, typ, date=b"1600000000"):
	    return (b"object %s\ntype %s\ntag v1\ntagger T <t@e> %s +0000"
	            b"\n\nmsg\n") % (obj, typ, date)
	kind, X, Y = sys.argv[1], b"ab" * 20, b"cd" * 20
	if kind == "self":
	    n = gp.loose(".git/objects", "tag", tag(X, b"tag"), name=bytes.fromhex(X.decode()))
	elif kind == "cycle":
	    n = gp.loose(".git/objects", "tag", tag(Y, b"tag"), name=bytes.fromhex(X.decode()))
	    gp.loose(".git/objects", "tag", tag(X, b"tag"), name=bytes.fromhex(Y.decode()))
	elif kind == "date":
	    n = gp.loose(".git/objects", "tag", tag(head, b"commit", sys.argv[2].encode()))
	elif kind == "chain":
	    n, t = head, b"commit"
	    for i in range(int(sys.argv[2])):
	        n = gp.loose(".git/objects", "tag", tag(n.encode() if isinstance(n, str) else n, t))
	        t = b"tag"
	else:
	    n = gp.loose(".git/objects", "tag", sys.argv[2].encode().decode("unicode_escape").encode())
	open(".git/refs/tags/v1", "w").write(n + "\n")
	PY
	git tag v0
}

# A tag that points at itself, or two that point at each other (a store
# that lies: git log --decorate says "hash mismatch"): libgit2, with its
# hash checks off for speed, followed them for ever.
case_tag_loop() {
	tag_repo "$1"
	refused_report "unable to read tag 'v1': its tags form a cycle\$"
}

# A tag whose object, type or tag line is garbled: git for-each-ref and
# git log --decorate fail on it too ("could not parse tag").
case_tag_bad() {
	tag_repo raw "$1"
	refused_report "unable to read tag 'v1': corrupt tag '[0-9a-f]{40}': $2\$"
	! git for-each-ref --format='%(taggerdate)' refs/tags/v1 >/dev/null 2>&1 ||
		{ echo "git reads it"; return 1; }
}

# A tagger date past the year 9999 (2^63 here, which libgit2 refused,
# failing the whole report): the tag is undated, and takes its commit's
# date as a tag without a tagger does. A chain of 100 tags is followed to
# the commit, and dated by its last tag (1600000000).
case_tag_date() {
	local date=$1
	shift
	tag_repo "$@"
	[ "$date" != commit ] ||
		date=$(git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
	bounded "$STRATA" report . --out o --quiet
	tr -d '\r' <o/data/releases.csv | grep -qx "v1,v1,$date,[0-9,.]*" ||
		{ cat o/data/releases.csv; return 1; }
}

# packed-refs with a line git cannot read: git dies on it ("unexpected
# line in .git/packed-refs", "unterminated line") once it reads that far
# (git for-each-ref; a lookup by binary search in a sorted file may not),
# and so does strata; libgit2 skipped it and the refs after it. A FIFO in
# its place hung strata, as it hangs git.
case_packed_refs() {
	repo_new r
	commit_file f one a
	git tag v1
	git pack-refs --all
	[ ! -e .git/refs/heads/main ]
	case $1 in
	fifo) rm .git/packed-refs; mkfifo .git/packed-refs ;;
	*) printf "$1" >>.git/packed-refs ;;
	esac
	[ "$1" = fifo ] || ! git for-each-ref >/dev/null 2>&1 ||
		{ echo "git reads it"; return 1; }
	refused "$2"
}

# Replace refs that make a parent cycle (the root replaced by a commit
# whose parent is the tip): git blame loops for ever; strata drops the
# parent that closes the cycle, as with grafts (t-hostile-commits), on
# one thread and on two, through the whole report.
case_replace_cycle() {
	local a b c r got
	repo_new r
	commit_file f one a
	commit_file f two a b
	commit_file f three a b c
	a=$(git rev-parse HEAD~2) b=$(git rev-parse HEAD~1) c=$(git rev-parse HEAD)
	r=$(git cat-file commit "$a" | sed "1a parent $c" |
		git hash-object -t commit -w --stdin)
	git update-ref "refs/replace/$a" "$r"
	git tag v1 HEAD~1
	git repack -adq
	for j in 1 2; do
		got=$(bounded "$STRATA" blame . --quiet --jobs $j | cut -f1 |
			tr '\n' ' ')
		[ "$got" = "$a $b $c " ] || { echo "strata: $got"; return 1; }
	done
	bounded "$STRATA" report . --out o --quiet
}

# The root replaced by a commit whose million parents are all the tip:
# every one closes a cycle and is dropped, once dropped one at a time
# with a move of the rest (28 s); now in one pass (0.3 s).
case_replace_million() {
	local a c r got
	repo_new r
	commit_file f one a
	commit_file f two a b
	a=$(git rev-parse HEAD~1) c=$(git rev-parse HEAD)
	r=$({ git cat-file commit "$a" | sed -n 1p
		python3 -c "import sys; sys.stdout.write('parent $c\\n' * 1000000)"
		git cat-file commit "$a" | sed -n '2,$p'; } |
		git hash-object -t commit --literally -w --stdin)
	git update-ref "refs/replace/$a" "$r"
	got=$(timeout 10 "$STRATA" blame . --quiet | cut -f1 | tr '\n' ' ')
	[ "$got" = "$a $c " ] || { echo "strata: $got"; return 1; }
}

run_case commit-no-tree case_tip 'no tree' \
	"parent %040d\n$AUTHOR\n$COMMITTER\n\nx\n" git
run_case commit-bad-tree case_tip 'bad tree line' \
	"tree 1234\n$AUTHOR\n$COMMITTER\n\nx\n" git
run_case commit-bad-parent case_tip 'bad parent line' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent xyz\n$AUTHOR\n$COMMITTER\n\nx\n" git
run_case commit-no-author case_tip 'no author' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$COMMITTER\n\nx\n"
run_case commit-no-committer case_tip 'no committer' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$AUTHOR\n\nx\n"
run_case commit-no-email case_tip 'author without <email>' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A 1 +0000\n$COMMITTER\n\nx\n"
run_case commit-no-date case_tip 'bad author date' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b>\n$COMMITTER\n\nx\n"
run_case commit-bad-date case_tip 'bad committer date' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$AUTHOR\ncommitter C <c@d> 12x +0000\n\nx\n"
run_case commit-date-overflow case_tip 'bad committer date' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$AUTHOR\ncommitter C <c@d> 99999999999999999999 +0000\n\nx\n"
# git reads dates up to 2^63 (git log prints "Sat Jan 1 00:00:00 10000");
# strata prints four-digit years, so a later one is no date: read as it
# is, 9*10^18 is no year gmtime() gives, and a year near 2^31 makes the
# charts' axes endless. The last second of 9999 is a date.
run_case commit-date-9999 case_date_last
run_case commit-date-10000 case_tip 'committer date after the year 9999' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$AUTHOR\ncommitter C <c@d> 253402300800 +0000\n\nx\n"
run_case commit-date-9e18 case_tip 'author date after the year 9999' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 9000000000000000000 +0000\n$COMMITTER\n\nx\n"
run_case commit-parent case_parent
run_case octopus-65537 case_octopus 65537
run_case octopus-million case_octopus 1000000
run_case tree-dot case_bad_tree '100644 .' "entry '.' is no file name"
run_case tree-dotdot case_bad_tree '100644 ..' "entry '..' is no file name"
run_case tree-slash case_bad_tree '100644 a/b' "entry 'a/b' is no file name"
run_case tree-empty-name case_bad_tree '100644 ' 'an entry with an empty name'
run_case tree-duplicate case_bad_tree '100644 a,100644 a' "entry 'a' is there twice"
run_case tree-file-and-dir case_bad_tree '100644 a,40000 a' "entry 'a' is there twice"
run_case tree-twins-apart case_bad_tree '100644 a,100644 a-b,100644 a.c,40000 a' "entry 'a' is there twice"
run_case tree-twins-link case_bad_tree '120000 a,100644 a.c,40000 a' "entry 'a' is there twice"
run_case tree-twins-shared case_twins_shared file 0
run_case tree-twins-shared-big case_twins_shared file 100
run_case tree-twins-shared-dir case_twins_shared dir 100
run_case tree-fake-boundary case_fake_boundary
run_case tree-unsorted case_bad_tree '100644 b,100644 a' "entry 'a' is out of order"
run_case tree-mode-zero case_bad_tree '0 a' "entry 'a' has a bad mode"
run_case tree-mode-fifo case_bad_tree '10644 a' "entry 'a' has a bad mode"
run_case tree-mode-664 case_old_mode 100664
run_case tree-mode-100000 case_old_mode 100000
run_case tree-deep-2048 case_deep 2048
run_case tree-deep-2049 case_deep 2049
run_case tree-deep-100000 case_deep 100000
run_case tree-self case_loop self
run_case tree-cycle case_loop cycle
run_case tree-wide case_wide
run_case tree-bomb case_bomb
run_case tag-self case_tag_loop self
run_case tag-cycle case_tag_loop cycle
run_case tag-bad-object case_tag_bad 'object 12\ntype commit\ntag v1\n' 'bad object line'
run_case tag-bad-type case_tag_bad "object $(printf '%040d' 0)\\ntype note\\ntag v1\\n" 'bad type line'
run_case tag-no-tag case_tag_bad "object $(printf '%040d' 0)\\ntype commit\\n" 'no tag line'
run_case tag-date-2-63 case_tag_date commit date 9223372036854775808
run_case tag-date-10000 case_tag_date commit date 253402300800
run_case tag-chain case_tag_date 2020-09-13T12:26:40Z chain 100
run_case packed-refs-garbage case_packed_refs 'garbage\n' \
	"corrupt '.*/\\.git/packed-refs': unexpected line 4\$"
run_case packed-refs-peeled-first case_packed_refs "^$(printf '%040d' 0)\n^$(printf '%040d' 0)\n" \
	"corrupt '.*/\\.git/packed-refs': unexpected line 5\$"
run_case packed-refs-unterminated case_packed_refs "$(printf '%040d' 0) refs/heads/x" \
	"corrupt '.*/\\.git/packed-refs': line 4 has no end\$"
run_case packed-refs-fifo case_packed_refs fifo \
	"unable to read '.*/\\.git/packed-refs': not a regular file\$"
run_case replace-cycle case_replace_cycle
run_case replace-cycle-million case_replace_million
finish
