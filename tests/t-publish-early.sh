#!/bin/bash
# What `strata report` can check before the blame it checks first, and a
# failed run leaves nothing it made: not its build directory, not the
# parents of --out it would have created.
#
# The order is proven without timing anything: the repository below has
# lost a blob, so the blame fails (it is the error given when the output
# is fine); every bad --out or template must be the error given instead.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)
TEMPLATES=$TESTS/../templates

no_leftovers() {
	local left
	left=$(find . -maxdepth 3 -name '.*.strata-*')
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

# fails PATTERN ARG...: `strata report ARG...` exits 1 with one line.
fails() {
	local pat=$1 rc=0
	shift
	report "$@" >out 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -Eq "^strata: $pat" err || {
		echo "exit $rc, wanted 1 and one line matching '$pat' from: $*"
		cat err
		return 1
	}
}

broken_repo() {
	local blob
	repo_new broken
	commit_file a.c "one" x y z
	commit_file b.c "two" p q
	git tag v1.0
	commit_file a.c "three" x y z w
	blob=$(git rev-parse HEAD:b.c)
	rm ".git/objects/${blob:0:2}/${blob:2}"
	cd ..
}

ordering() {
	local bad
	broken_repo
	fails "unable to read blob '[0-9a-f]{40}'" broken --out fine
	[ ! -e fine ] || { echo "fine/ was made"; return 1; }

	mkdir foreign && echo mine >foreign/notes.txt
	fails "refusing to write into 'foreign': not a strata report \(use --force\)" \
		broken --out foreign
	echo >afile
	fails "'afile' is not a directory" broken --out afile
	fails "'afile' is not a directory" broken --out afile/sub/dir
	ln -s nowhere dangling
	fails "'dangling' is a broken symbolic link" broken --out dangling
	fails "'dangling' is a broken symbolic link" broken --out dangling/sub
	mkdir target && ln -s target link
	fails "refusing to write through the symbolic link 'link'" broken --out link
	fails "unable to use '.' as the report directory" broken --out .
	fails "unable to use 'foreign/..' as the report directory" broken --out foreign/..
	mkdir untrusted && printf 'strata report\n../x\n' >untrusted/.strata-report
	fails "refusing to write into 'untrusted': its .strata-report cannot be trusted" \
		broken --out untrusted --force

	# Templates: a syntax error in any of them, found by parsing them all.
	for bad in index.tpl untouched.tpl footer.tpl; do
		rm -rf broken-tpl && cp -r "$TEMPLATES" broken-tpl
		printf '{{#NEVER_CLOSED}}\n' >>"broken-tpl/$bad"
		fails "unable to parse template '.*broken-tpl/$bad': file ended before all sections were closed" \
			broken --out fine --templates broken-tpl
	done
	rm -rf broken-tpl && cp -r "$TEMPLATES" broken-tpl
	printf '{{X:no_such_modifier}}\n' >>broken-tpl/dir.tpl
	fails "unable to parse template '.*broken-tpl/dir.tpl'" broken --out fine \
		--templates broken-tpl
	# Already early before: --tags (a usage error).
	local rc=0
	report broken --out fine --tags '(' 2>err || rc=$?
	[ $rc = 2 ] && grep -q "^strata: invalid --tags expression '('" err ||
		{ echo "exit $rc"; cat err; return 1; }
	[ ! -e fine ] && no_leftovers
}

# A parent that does not take writes, for a user who is not root (root
# writes anywhere): run as nobody when the test is root.
unwritable_parent() {
	local as=()
	broken_repo
	mkdir -p ro/inner && chmod 555 ro ro/inner
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || { echo "setpriv is missing"; return 1; }
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		# nobody must reach the test's files (mktemp made them private).
		chmod -R a+rX "$WORK"
		local d=$WORK
		while [ "$d" != / ]; do chmod a+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
	fi
	local rc=0
	SOURCE_DATE_EPOCH=1700000000 "${as[@]}" "$STRATA" report --quiet broken \
		--out ro/report 2>err || rc=$?
	[ $rc = 1 ] && grep -Eq "^strata: unable to write in '.*/ro': Permission denied$" err ||
		{ echo "exit $rc:"; cat err; return 1; }
	rc=0
	SOURCE_DATE_EPOCH=1700000000 "${as[@]}" "$STRATA" report --quiet broken \
		--out ro/inner/new/report 2>err || rc=$?
	[ $rc = 1 ] && grep -Eq "^strata: unable to write in '.*/ro/inner': Permission denied$" err ||
		{ echo "exit $rc:"; cat err; return 1; }
	[ -z "$(ls -A ro/inner)" ] || { echo "ro/inner was written"; return 1; }
}

# A run that fails half-way through publishing (a file size limit makes
# the first chart fail, after the data is written) or is stopped there
# leaves no parent of --out that it made, and no build directory.
no_parents_left() {
	local pid rc
	site_repo repo
	if (trap '' XFSZ; ulimit -f 8; report repo --out new/a/b 2>err); then
		echo "the size limit did not bite"
		return 1
	fi
	grep -q 'File too large' err || { cat err; return 1; }
	[ ! -e new ] || { echo "new/ was left"; find new; return 1; }
	no_leftovers
	# Below an existing directory, the same.
	mkdir have
	if (trap '' XFSZ; ulimit -f 8; report repo --out have/x/y 2>err); then
		return 1
	fi
	[ -z "$(ls -A have)" ] || { echo "have/ was written"; ls -A have; return 1; }
	no_leftovers
	# Stopped by a signal once its build directory is there.
	SOURCE_DATE_EPOCH=1700000000 stop_at stage env --default-signal=TERM \
		"$STRATA" report --quiet repo --out new/a/b 2>err ||
		{ echo "strata did not stop at stage"; cat err; return 1; }
	[ -n "$(find . -maxdepth 1 -name '.b.strata-*')" ] ||
		{ echo "no build directory at stage"; return 1; }
	kill -TERM "$pid"
	kill -CONT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ $rc = 143 ] || { echo "exit $rc"; cat err; return 1; }
	[ ! -e new ] || { echo "new/ was left after SIGTERM"; return 1; }
	no_leftovers
	# And a run that succeeds makes them.
	report repo --out new/a/b
	[ -s new/a/b/index.html ] && [ -s new/a/b/.strata-report ]
	no_leftovers
}

run_case ordering ordering
run_case unwritable_parent unwritable_parent
run_case no_parents_left no_parents_left
finish
