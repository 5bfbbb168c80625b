#!/bin/bash
# Parity with git blame on linear histories: adds, deletes, multi-hunk edits,
# indent-heuristic sliders, repeated lines and git's 1 KiB tail trimming,
# final newlines, CRLF, whitespace (-w), moved blocks, reverts, one blob at
# several paths.
. "$(dirname "$0")/lib.sh"

adds_deletes() {
	repo_new r
	commit_file a.txt "one to ten" $(lines l 1 10)
	# Appended, prepended, inserted in the middle.
	commit_file a.txt "grow" top $(lines l 1 5) mid $(lines l 6 10) end
	# A pure deletion at the start, in the middle and at the end.
	commit_file a.txt "shrink" $(lines l 1 3) mid $(lines l 7 10)
	commit_file b.txt "second file" $(lines b 1 4)
	# Delete everything but one line, then grow again around it.
	commit_file b.txt "cut" "b 3"
	commit_file b.txt "regrow" x "b 3" y z
	parity . HEAD
	parity . HEAD~2
	parity . HEAD~4 -- a.txt
}

multi_hunk() {
	repo_new r
	commit_file f.c "base" $(lines line 1 30)
	# One commit, many hunks: replace, insert, delete, replace 2->3.
	commit_file f.c "many hunks" $(lines line 1 2) changed3 $(lines line 4 8) \
		new8a new8b $(lines line 9 14) $(lines line 17 20) r21 r22 r22b \
		$(lines line 23 29) last
	commit_file f.c "more hunks" first $(lines line 1 2) changed3 \
		$(lines line 4 5) again $(lines line 7 8) new8a new8b \
		$(lines line 10 14) $(lines line 17 20) r21 $(lines line 23 29)
	parity . HEAD
	parity . HEAD^
}

# Insertions and deletions whose position is ambiguous: git picks one with
# its indent heuristic, and the blank or brace line moves with it.
sliders() {
	repo_new r
	put a.py "def a():" "    x = 1" "" "def c():" "    z = 3"
	put b.c "int f(void)" "{" "	return 0;" "}" "" "int h(void)" "{" \
		"	return 2;" "}"
	put c.c "void g(void)" "{" "	if (a) {" "		foo();" "	}" "" \
		"	bar();" "}"
	put d.txt 1 2 a "" b 3 4
	put e.py "class A:" "    def f(self):" "        pass" "" \
		"    def h(self):" "        pass" "" "" "def top():" "    pass"
	commit "base"
	put a.py "def a():" "    x = 1" "" "def b():" "    y = 2" "" \
		"def c():" "    z = 3"
	put b.c "int f(void)" "{" "	return 0;" "}" "" "int g(void)" "{" \
		"	return 1;" "}" "" "int h(void)" "{" "	return 2;" "}"
	put c.c "void g(void)" "{" "	if (a) {" "		foo();" "	}" "" \
		"	if (b) {" "		foo();" "	}" "" "	bar();" "}"
	put d.txt 1 2 a "" b a "" b 3 4
	put e.py "class A:" "    def f(self):" "        pass" "" \
		"    def g(self):" "        pass" "" "    def h(self):" \
		"        pass" "" "" "def top():" "    pass"
	commit "insert blocks"
	# Deleting a block is ambiguous in the same way.
	put b.c "int f(void)" "{" "	return 0;" "}" "" "int h(void)" "{" \
		"	return 2;" "}"
	put c.c "void g(void)" "{" "	if (b) {" "		foo();" "	}" "" \
		"	bar();" "}"
	commit "delete blocks"
	parity . HEAD
	parity . HEAD^
	parity . HEAD -w
}

# Repeated identical lines in small files: which copy is "new" is git's
# choice (common prefix and suffix trimming inside xdiff).
repeated_small() {
	repo_new r
	commit_file f "base" a x x x x b x x c
	commit_file f "insert x" a x x x x x b x x c
	commit_file f "delete x" a x x x x b x c
	commit_file f "insert x at both ends" x a x x x x b x c x
	commit_file g "blank lines" "" "" "" a "" "" b "" ""
	commit_file g "more blanks" "" "" "" "" a "" "" b "" "" ""
	parity . HEAD
	parity . HEAD~2
}

# Files over 1 KiB with long identical tails: git drops the common tail in
# whole 1 KiB blocks (then forward to a line end) before diffing, so the
# inserted copy of a repeated line is a different line than plain Myers
# would pick, and the hunks themselves can change.
repeated_tail_large() {
	repo_new r
	# 600 lines "x": 1200 bytes.
	rep 600 x >x.txt
	# Lines of two lengths, so block ends fall mid-line.
	for i in $(seq 1 300); do printf 'abc\nde\nfghij\n'; done >y.txt
	# A head, then a long tail of identical lines.
	{ lines head 1 20; rep 400 "	}"; } >z.txt
	# Repeated blocks of C-like lines, ending without a newline.
	for i in $(seq 1 80); do printf '{\n\tcall();\n}\n\n'; done >w.c
	printf '/* end */' >>w.c
	commit "base"
	{ rep 601 x; } >x.txt
	{ printf 'abc\nde\n'; for i in $(seq 1 300); do
		printf 'abc\nde\nfghij\n'; done; } >y.txt
	{ lines head 1 20; echo "	}"; echo new; rep 400 "	}"; } >z.txt
	{ for i in $(seq 1 40); do printf '{\n\tcall();\n}\n\n'; done
		printf '{\n\tother();\n}\n\n'
		for i in $(seq 1 40); do printf '{\n\tcall();\n}\n\n'; done
		printf '/* end */'; } >w.c
	commit "insert into repeats"
	{ rep 550 x; } >x.txt
	{ for i in $(seq 1 150); do printf 'abc\nde\nfghij\n'; done
		printf 'de\n'
		for i in $(seq 1 150); do printf 'abc\nde\nfghij\n'; done; } >y.txt
	{ lines head 1 21; rep 420 "	}"; } >z.txt
	{ for i in $(seq 1 39); do printf '{\n\tcall();\n}\n\n'; done
		printf '{\n\tother();\n}\n\n'
		for i in $(seq 1 42); do printf '{\n\tcall();\n}\n\n'; done
		printf '/* end */\n'; } >w.c
	commit "delete from repeats, add at the head"
	# Grow past several KiB with a change at the very start only.
	{ echo first; rep 3000 x; } >x.txt
	commit "big"
	{ echo second; rep 3001 x; } >x.txt
	commit "big, one more"
	parity . HEAD
	parity . HEAD~2
	parity . HEAD~3
	parity . HEAD -w
}

# The last line without "\n" differs from the same text with one.
final_newline() {
	repo_new r
	put_raw f $'a\nb\nc'
	put_raw g $'1\n2\n3\n'
	put_raw h 'single line, no newline'
	commit "no final newline in f"
	put_raw f $'a\nb\nc\n'
	put_raw g $'1\n2\n3'
	commit "swap final newlines"
	put_raw f $'a\nb\nc\nd'
	put_raw h $'single line, no newline\n'
	commit "append without newline"
	put_raw f $'a\nb\nc\nd\n\n'
	put_raw g $'\n'
	commit "blank last line; g is only a newline"
	parity . HEAD
	parity . HEAD -w
	parity . HEAD^
	parity . HEAD~2 -w
}

# Lines end at "\n": a CR is part of the line, so LF<->CRLF rewrites every
# line, except under -w, where CR is whitespace.
crlf() {
	repo_new r
	put_raw f $'one\ntwo\nthree\nfour\n'
	put_raw g $'alpha\r\nbeta\r\ngamma\r\n'
	commit "base"
	put_raw f $'one\r\ntwo\r\nthree\r\nfour\r\n'
	put_raw g $'alpha\nbeta\r\ngamma\n'
	commit "convert"
	put_raw f $'one\r\ntwo\nTHREE\r\nfour\r\nfive'
	put_raw g $'alpha\nbeta\ngamma\r\n\r\n'
	commit "convert back partly and edit"
	put_raw f $'one\r\ntwo\nTHREE\r\nfour\r\nfive\r\n'
	commit "CRLF on the last line"
	parity . HEAD
	parity . HEAD -w
	parity . HEAD^ -w
	parity . HEAD~2
}

# -w ignores all whitespace, also inside lines and blank-line differences
# within the line; without -w these are ordinary changes.
whitespace() {
	repo_new r
	put f.c "int main(void)" "{" "	int a = 1;" "	int b=2;" "	return a+b;" \
		"}"
	put g.txt "a b c" "abc" "x"
	commit "base"
	put f.c "int main(void)" "{" "        int a = 1;" "	int b = 2;" \
		"	return a + b;  " "}"
	put g.txt "a  b  c" "a b c" "x "
	commit "reindent, spaces"
	put f.c "int main(void) {" "    int a = 1;" "    int b = 2;" \
		"    return a + b;" "}"
	put g.txt "	a b c" "ab c" " x" ""
	commit "reformat"
	put f.c "int main(void) {" "" "    int a = 1;" "    int b = 2;" "" \
		"    return a + b;" "}"
	commit "blank lines"
	parity . HEAD
	parity . HEAD -w
	parity . HEAD^ -w
	parity . HEAD~2 -w
}

# A block moved within a file is new at its new place (blame without -M).
moved_blocks() {
	repo_new r
	commit_file f "base" $(lines a 1 5) $(lines b 1 5) $(lines c 1 5)
	commit_file f "move b to the end" $(lines a 1 5) $(lines c 1 5) \
		$(lines b 1 5)
	commit_file f "move a after c, edit" $(lines c 1 5) $(lines a 1 4) \
		a-five $(lines b 1 5)
	commit_file g "base g" $(lines g 1 10)
	commit_file g "swap halves" $(lines g 6 10) $(lines g 1 5)
	parity . HEAD
	parity . HEAD~2
}

# Going back to an old blob: the revert's parent has a different blob, so
# the lines the revert restores are the revert's.
revert() {
	repo_new r
	commit_file f "v1" $(lines v 1 8)
	commit_file f "v2" $(lines v 1 3) changed $(lines v 5 8) extra
	commit_file g "unrelated" g
	tick
	git revert --no-edit HEAD~1 >/dev/null
	commit_file f "v2 again" $(lines v 1 3) changed $(lines v 5 8) extra
	parity . HEAD
	parity . HEAD^
}

# The same blob at several paths, added at different times, and a file that
# goes back to a blob it had before.
one_blob_many_paths() {
	repo_new r
	commit_file a "a" $(lines same 1 6)
	commit_file b "b, same blob" $(lines same 1 6)
	commit_file d/c "c, same blob" $(lines same 1 6)
	commit_file a "a edited" $(lines same 1 3) edited $(lines same 5 6)
	commit_file b "b edited the same way" $(lines same 1 3) edited \
		$(lines same 5 6)
	commit_file d/c "c back to the old blob, then edited" $(lines same 1 6) x
	parity . HEAD
	parity . HEAD~3
}

# Odd content: very long lines, a lone newline, no newline at all, NULs
# after the first 8000 bytes (still a text file), lines with only spaces.
odd_content() {
	repo_new r
	head -c 20000 /dev/zero | tr '\0' 'a' >long
	echo >>long
	echo b >>long
	{ lines text-line- 1 1000; printf 'nul\0here\n'; lines u 1 3; } >late-nul
	put_raw lone $'\n'
	put spaces "   " "" "	" " "
	commit "base"
	{ head -c 20000 /dev/zero | tr '\0' 'a'; echo c; echo b; } >long
	{ lines text-line- 1 999; echo inserted; lines text-line- 1000 1000
		printf 'nul\0here\n'; lines u 1 4; } >late-nul
	put_raw lone $'\n\n'
	put spaces "   " "" "" "	" "  "
	commit "edit"
	parity . HEAD
	parity . HEAD -w
}

run_case adds_deletes adds_deletes
run_case multi_hunk multi_hunk
run_case sliders sliders
run_case repeated_small repeated_small
run_case repeated_tail_large repeated_tail_large
run_case final_newline final_newline
run_case crlf crlf
run_case whitespace whitespace
run_case moved_blocks moved_blocks
run_case revert revert
run_case one_blob_many_paths one_blob_many_paths
run_case odd_content odd_content
finish
