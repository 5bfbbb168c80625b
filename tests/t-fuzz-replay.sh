#!/bin/bash
# fuzz replay: every file of every fuzz target's corpus
# (tests/fuzz/corpus/<name>/, the seeds and the crashes found and kept) is
# run through its target once, as a regression test, with no libFuzzer:
# each tests/fuzz/fuzz_<name>.c is linked with tests/fuzz/replay.c (a
# main() that calls LLVMFuzzerTestOneInput() on each file) and the core
# objects (src/*.c but main.c and the Makefile's PUB_SRC: make
# print-core-src), built here with the normal compiler, under ASan/UBSan
# with SAN=1. A target that
# includes strata/template.h also links the ctemplate bridge
# (src/template.cc, with $CXX) and ctemplate. A target without a corpus
# fails, and so does a crash, with the file that caused it named.
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-fuzz-replay
pkgs="libgit2 libdeflate zlib"
# shellcheck disable=SC2086
pkg-config --exists $pkgs || fail "missing pkg-config packages: $pkgs"

# The core sources as the Makefile finds them (by wildcard: a module split
# into stage files src/MODULE_*.c brings them all), not as it spells them.
# (Without the parent make's jobserver, which is not open here.)
core=()
for f in $(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s \
	--no-print-directory -C "$root" print-core-src); do
	core+=("$root/$f")
done
[ ${#core[@]} -gt 5 ] || fail "too few core sources: ${core[*]}"

read -ra cc_cmd <<<"$CC"
read -ra san_flags <<<"$san"
# shellcheck disable=SC2086
read -ra pcflags <<<"$(pkg-config --cflags $pkgs)"
# shellcheck disable=SC2086
read -ra pclibs <<<"$(pkg-config --libs $pkgs)"
# (-O0: building is most of the script; each input runs once.)
flags=(-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O0 -g -pthread
	"${san_flags[@]}" "-I$root/include" "${pcflags[@]}")

# The core objects once, two compilers at a time.
mkdir "$tmp/obj"
printf '%s\n' "${core[@]}" "$root/tests/fuzz/replay.c" |
	xargs -P 2 -I{} sh -c 'f={}; b=${f##*/}; exec "$@" -c -o "'"$tmp"'/obj/${b%.c}.o" "$f" 2>"'"$tmp"'/obj/${b%.c}.log"' \
		sh "${cc_cmd[@]}" "${flags[@]}" ||
	{ cat "$tmp"/obj/*.log >&2; fail "unable to build the core objects"; }
objs=()
for f in "${core[@]}"; do
	b=${f##*/}
	objs+=("$tmp/obj/${b%.c}.o")
done

read -ra cxx_cmd <<<"$CXX"
tpl_objs=()
tpl_build() {
	[ ${#tpl_objs[@]} = 0 ] || return 0
	"${cxx_cmd[@]}" -std=c++17 -Wall -Wextra -Werror -D_GNU_SOURCE -O0 -g \
		-pthread "${san_flags[@]}" "-I$root/include" -c \
		-o "$tmp/obj/template.o" "$root/src/template.cc" \
		>"$tmp/cxx.log" 2>&1 ||
		{ cat "$tmp/cxx.log" >&2; fail "unable to build src/template.cc"; }
	# shellcheck disable=SC2207
	tpl_objs=("$tmp/obj/template.o" $(pkg-config --libs libctemplate))
}

targets=0
files=0
for src in "$root"/tests/fuzz/fuzz_*.c; do
	[ -e "$src" ] || continue
	name=${src##*/fuzz_}
	name=${name%.c}
	targets=$((targets + 1))
	corpus=$root/tests/fuzz/corpus/$name
	inputs=()
	for f in "$corpus"/*; do
		[ -f "$f" ] && inputs+=("$f")
	done
	[ ${#inputs[@]} -gt 0 ] || fail "fuzz_$name has no corpus in tests/fuzz/corpus/$name"
	bin=$tmp/replay_$name
	link=("${cc_cmd[@]}")
	extra=()
	if grep -q 'strata/template.h' "$src"; then
		tpl_build
		link=("${cxx_cmd[@]}")
		extra=("${tpl_objs[@]}")
	fi
	{ "${cc_cmd[@]}" "${flags[@]}" -c -o "$bin.o" "$src" &&
		"${link[@]}" "${san_flags[@]}" -pthread -o "$bin" "$bin.o" \
			"$tmp/obj/replay.o" "${objs[@]}" "${extra[@]}" \
			"${pclibs[@]}" -lm; } >"$tmp/cc.log" 2>&1 ||
		{ cat "$tmp/cc.log" >&2; fail "unable to build fuzz_$name"; }
	if ! timeout 600 "$bin" "${inputs[@]}" >"$tmp/out" 2>&1; then
		# Name the input that fails.
		for f in "${inputs[@]}"; do
			timeout 120 "$bin" "$f" >"$tmp/one" 2>&1 || {
				tail -n 30 "$tmp/one" >&2
				fail "fuzz_$name fails on ${f#"$root"/}"
			}
		done
		tail -n 30 "$tmp/out" >&2
		fail "fuzz_$name fails on its corpus as a whole"
	fi
	files=$((files + ${#inputs[@]}))
	echo "fuzz_$name: ${#inputs[@]} inputs replayed"
done
[ $targets -gt 0 ] || fail "no fuzz targets in tests/fuzz"
echo "$targets targets, $files inputs replayed"
