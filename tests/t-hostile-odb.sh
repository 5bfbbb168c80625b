#!/bin/bash
# hostile object databases: packs, indexes, deltas and loose objects
# written by hand (tests/gitpack.py) that git would never write. Each
# damaged one gives one `strata: ` line naming the file or object and what
# is wrong, exit 1, within a time and memory bound; git fails on each of
# them too (checked). A valid chain of 100,500 deltas is read.
set -eu
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$HERE

# A repository whose HEAD has one file f, blob $1 (hex), which is in no
# store: the case writes it. With a second argument, a text file g too.
repo_with() {
	repo_new r
	local tree c entries
	entries=$(printf '100644 blob %s\tf' "$1")
	[ $# -lt 2 ] || entries="$entries$(printf '\n100644 blob %s\tg' \
		"$(echo text | git hash-object -w --stdin)")"
	tree=$(printf '%s\n' "$entries" | git mktree --missing)
	c=$(git commit-tree -m one "$tree" </dev/null)
	git update-ref refs/heads/main "$c"
	git symbolic-ref HEAD refs/heads/main
}

# py CODE: run python with gitpack as gp, in the repository.
py() {
	python3 -c "import gitpack as gp, zlib, os, sys
$1"
}

# hostile PATTERN [git|index-pack]: strata's one line; with `git`, git
# cat-file fails on it too, within the same bounds (where it does not, git
# prints what the header lets it); with `index-pack`, git index-pack
# refuses the pack (git cat-file does not fail on a cycle of name deltas:
# it grows until the machine stops it, gigabytes a minute).
hostile() {
	local pat=$1 p
	expect 1 "$pat" bounded "$STRATA" blame .
	case ${2:-} in
	git)
		if bounded git cat-file -p HEAD:f >/dev/null 2>&1; then
			echo "git reads what strata refuses"; return 1
		fi ;;
	index-pack)
		for p in .git/objects/pack/*.pack; do
			if git index-pack -o "$WORK/check.idx" "$p" \
				>/dev/null 2>&1; then
				echo "git index-pack takes $p"; return 1
			fi
		done ;;
	esac
}

BLOB=$(printf 'hello\n' | git hash-object --stdin)

case_truncated() {
	repo_new r
	for i in $(seq 1 30); do
		seq 1 $((i * 50)) >"f$i"; commit "c$i"
	done
	git repack -adq
	local p
	p=$(ls .git/objects/pack/*.pack)
	truncate -s $(($(stat -c %s "$p") * 95 / 100)) "$p"
	expect 1 "corrupt pack '.*\.pack': it does not match its index \(truncated\?\)" \
		bounded "$STRATA" report . --out o --quiet
	[ ! -e o ] || { echo "o was left"; return 1; }
	! git fsck >/dev/null 2>&1 || { echo "git fsck passes"; return 1; }
}

case_ref_cycle() {
	repo_with "$BLOB"
	py "
a = bytes.fromhex('$BLOB'); b = bytes(19) + b'\1'
p = gp.Pack()
p.ref_delta(b, gp.delta(6, 6, gp.copy(0, 6)), a)
p.ref_delta(a, gp.delta(6, 6, gp.copy(0, 6)), b)
p.write('.git/objects')"
	hostile "unable to read .*'$BLOB'.*its deltas form a cycle" index-pack
}

case_ref_self() {
	repo_with "$BLOB"
	py "
a = bytes.fromhex('$BLOB')
p = gp.Pack()
p.ref_delta(a, gp.delta(6, 6, gp.copy(0, 6)), a)
p.write('.git/objects')"
	hostile "unable to read .*'$BLOB'.*a delta against itself" index-pack
}

case_copy_past_base() {
	repo_with "$BLOB"
	py "
a = bytes.fromhex('$BLOB')
p = gp.Pack()
base = p.whole('blob', b'hel')
p.ofs_delta(base, gp.delta(3, 6, gp.copy(0, 6)), a)
p.write('.git/objects')"
	hostile "unable to read .*'$BLOB'.*bad delta" git
}

case_size_lies() {
	repo_with "$BLOB"
	py "
p = gp.Pack()
p.whole('blob', b'hello\n', size=1 << 62)
p.write('.git/objects')"
	hostile ".*'$BLOB'.*(bad entry|its size is more than its compressed bytes can hold)"
}

# A delta whose header declares a result too large to build (2^62 bytes,
# 16 GiB) that its instructions do not make: git fails to apply it, and
# strata, which counts a blob that large as binary without building it,
# must not take it for one. A text file beside it keeps the tree blamable.
case_huge_delta_lies() {
	local size
	for size in '1 << 62' '16 << 30'; do
		repo_with "$BLOB" g
		py "
a = bytes.fromhex('$BLOB')
p = gp.Pack()
base = p.whole('blob', b'hel')
p.ofs_delta(base, gp.delta(3, $size, gp.copy(0, 3), gp.insert(b'lo\n')), a)
p.write('.git/objects')"
		hostile ".*'$BLOB'.*bad delta" git
		cd ..
		rm -rf r
	done
}

# The same size made for real: 513 MiB copied from a base of 64 KiB. A
# blob that large is binary, not an error (and git's size is the
# header's); but one copy more than its header says is a bad delta.
case_huge_delta_valid() {
	local name
	name=$(py "
import hashlib
n = 513 << 20
base = b'x' * 65536
h = hashlib.sha1(b'blob %d\0' % n)
for _ in range(n // 65536):
    h.update(base)
name = h.digest()
ops = [gp.copy(0, 65536)] * (n // 65536)
p = gp.Pack()
b = p.whole('blob', base)
p.ofs_delta(b, gp.delta(65536, n, *ops), name)
os.makedirs('objs', exist_ok=True)
p.write('objs')
print(name.hex())")
	repo_with "$name" g
	mkdir -p .git/objects/pack
	mv ../objs/pack/* .git/objects/pack/
	[ "$(git cat-file -s HEAD:f)" = $((513 << 20)) ] ||
		{ echo "git's size differs"; return 1; }
	bounded "$STRATA" blame . >out
	[ "$(cut -f4 out)" = g ] || { cat out; return 1; }
	cd ..
	rm -rf r
	py "
n = 513 << 20
p = gp.Pack()
b = p.whole('blob', b'x' * 65536)
p.ofs_delta(b, gp.delta(65536, n, *[gp.copy(0, 65536)] * (n // 65536 + 1)),
            bytes.fromhex('$name'))
p.write('objs2')"
	repo_with "$name" g
	mkdir -p .git/objects/pack
	mv ../objs2/pack/* .git/objects/pack/
	hostile ".*'$name'.*bad delta"
}

# An index whose every offset goes through the 64-bit table (git
# index-pack --index-version=2,0 writes one): git refuses it ("wrong index
# v2 file size": the first object lies at offset 12, so no index needs
# more than one entry fewer), and so does libgit2, which strata's report
# reads the mailmap with: strata refuses it at once, with one line, for
# every command. All but the first 64-bit (2,12) is read as git reads it.
case_index_all_64() {
	repo_new r
	commit_file f one a b
	commit_file g two c
	commit_file f three a b d
	git repack -adq
	local p
	p=$(ls .git/objects/pack/*.pack)
	rm -f "${p%.pack}.idx"
	git index-pack --index-version=2,0 "$p" >/dev/null
	! git cat-file -t HEAD >/dev/null 2>&1 ||
		{ echo "git reads the index"; return 1; }
	expect 1 "corrupt pack index '.*\.idx': its size does not fit its object count" \
		bounded "$STRATA" blame .
	expect 1 "corrupt pack index '.*\.idx': its size does not fit its object count" \
		bounded "$STRATA" report . --out o --quiet
	rm -f "${p%.pack}.idx"
	git index-pack --index-version=2,12 "$p" >/dev/null
	parity . HEAD
}

case_zlib_bomb() {
	repo_with "$BLOB"
	py "
p = gp.Pack()
p.whole('blob', b'hello\n', z=zlib.compress(b'\\n' * (64 << 20)))
p.write('.git/objects')"
	hostile ".*'$BLOB'.*longer than its size"
}

case_bad_zlib() {
	repo_with "$BLOB"
	py "
z = bytearray(zlib.compress(b'hello\n')); z[3] ^= 0x5a
p = gp.Pack()
p.whole('blob', b'hello\n', z=bytes(z))
p.write('.git/objects')"
	hostile ".*'$BLOB'.*(bad zlib data|shorter than its size)"
}

case_bad_type() {
	repo_with "$BLOB"
	py "
p = gp.Pack()
p.whole(5, b'hello\n', name=bytes.fromhex('$BLOB'))
p.write('.git/objects')"
	hostile ".*'$BLOB'.*bad object type"
}

case_loose_blobx() {
	repo_with "$BLOB"
	py "gp.loose('.git/objects', 'blob', b'hello\n', head=b'blobx 6\0')"
	hostile "unable to read .*'$BLOB'.*corrupt loose object '.*': bad header" git
}

case_loose_size_lies() {
	repo_with "$BLOB"
	py "gp.loose('.git/objects', 'blob', b'hello\n', head=b'blob 5\0')"
	hostile ".*'$BLOB'.*corrupt loose object '.*': longer than its header says"
	py "gp.loose('.git/objects', 'blob', b'hello\n', head=b'blob 60\0')"
	hostile ".*'$BLOB'.*corrupt loose object '.*': shorter than its header says"
}

case_fanout() {
	repo_with "$BLOB"
	py "
p = gp.Pack()
p.whole('blob', b'hello\n')
p.write('.git/objects', fanout=[1] * 128 + [0] * 127 + [1])"
	hostile "corrupt pack index '.*\.idx': its fanout table goes down" git
}

case_offset64_outside() {
	repo_with "$BLOB"
	py "
p = gp.Pack()
p.whole('blob', b'hello\n')
second = p.whole('blob', b'another\n')
idx = bytearray(p.index(large_from=second))
idx[-48:-40] = (1 << 40).to_bytes(8, 'big')
os.makedirs('.git/objects/pack', exist_ok=True)
open('.git/objects/pack/pack-x.pack', 'wb').write(p.pack())
open('.git/objects/pack/pack-x.idx', 'wb').write(bytes(idx))"
	hostile "corrupt pack index for '.*pack-x.pack': object [01] is outside the pack"
}

case_fifo_pack() {
	repo_with "$BLOB"
	py "
p = gp.Pack()
p.whole('blob', b'hello\n')
p.write('.git/objects')"
	rm .git/objects/pack/*.pack
	mkfifo .git/objects/pack/pack-test.pack
	hostile "unable to read '.*pack-test.pack': not a regular file" git
}

case_alternates_loop() {
	repo_new r
	commit_file f "commit" a b
	git repack -adq
	echo "$PWD/.git/objects" >.git/objects/info/alternates
	echo "../objects" >>.git/objects/info/alternates
	echo "../../.git/objects" >>.git/objects/info/alternates
	bounded "$STRATA" blame . >out
	[ "$(wc -l <out)" = 1 ] || { cat out; return 1; }
}

# 100,500 deltas, each against the one before it, all indexed: git reads
# it, and so does strata, in bounded memory. Two commits take versions
# 100,200 and 100,500 of f (five lines kept by a copy, the last
# one new in each): the blame is git's. (strata took at most 100,000.)
case_long_chain() {
	py "
n = 100500
head = b''.join(b'line %d\\n' % k for k in range(1, 6))
p = gp.Pack()
prev = head + b'v0\\n'
at = p.whole('blob', prev)
for i in range(1, n + 1):
    cur = head + b'v%d\\n' % i
    at = p.ofs_delta(at, gp.delta(len(prev), len(cur), gp.copy(0, len(head)),
                                  gp.insert(b'v%d\\n' % i)),
                     gp.oid('blob', cur), z=gp.zstore)
    if i in (100200, n):
        print(gp.oid('blob', cur).hex())
    prev = cur
os.makedirs('objs', exist_ok=True)
p.write('objs')" >blobs
	repo_new r
	mkdir -p .git/objects/pack
	mv ../objs/pack/* .git/objects/pack/
	local b t c=
	while read -r b; do
		t=$(printf '100644 blob %s\tf\n' "$b" | git mktree)
		tick
		c=$(git commit-tree -m "$b" ${c:+-p "$c"} "$t" </dev/null)
	done <../blobs
	git update-ref refs/heads/main "$c"
	git symbolic-ref HEAD refs/heads/main
	[ "$(git cat-file -p HEAD:f | tail -n 1)" = v100500 ] ||
		{ echo "git fails"; return 1; }
	bounded "$STRATA" blame . >out
	[ "$(wc -l <out)" = 2 ] || { cat out; return 1; }
	# Line by line, as git blame -l -s gives it (parity would repack).
	git blame -l -s --root HEAD -- f | cut -d' ' -f1 >want
	while IFS=$'\t' read -r c s n _; do
		for ((; n > 0; n--)); do echo "$c"; done
	done <out >got
	diff want got
}

run_case truncated case_truncated
run_case ref_cycle case_ref_cycle
run_case ref_self case_ref_self
run_case copy_past_base case_copy_past_base
run_case size_lies case_size_lies
run_case huge_delta_lies case_huge_delta_lies
run_case huge_delta_valid case_huge_delta_valid
run_case index_all_64 case_index_all_64
run_case zlib_bomb case_zlib_bomb
run_case bad_zlib case_bad_zlib
run_case bad_type case_bad_type
run_case loose_blobx case_loose_blobx
run_case loose_size_lies case_loose_size_lies
run_case fanout case_fanout
run_case offset64_outside case_offset64_outside
run_case fifo_pack case_fifo_pack
run_case alternates_loop case_alternates_loop
run_case long_chain case_long_chain
finish
