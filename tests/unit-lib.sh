# shellcheck shell=bash
# tests/unit-lib.sh: build a standalone C unit-test program. Source it from a
# t-*.sh that compiles tests/unit/X_test.c against some of src/.
#
#   unit_setup NAME [--san-auto]
#       root (the repository), tmp (a scratch directory removed on exit),
#       fail MSG (prints "NAME: MSG", exits 1), CC/CXX, LC_ALL=C TZ=UTC,
#       and san, the sanitizer flags: ASan/UBSan with SAN=1 or, with
#       --san-auto, whenever this compiler and machine can run them (probed
#       once). Under sanitizers LSAN_OPTIONS gains tests/lsan.supp (the
#       caller's own options, given after, still win).
#   unit_build OUT "PKGS" ARG...
#       builds OUT from the ARGs: .c files (compiled with $CC), .cc files
#       (with $CXX; then everything is linked with $CXX), -l/-L link flags,
#       and other -flags for every compile (a later -O2 beats -O1). Paths
#       not starting with / are under $root. PKGS are pkg-config packages.
#       A module is named by src/MODULE.c and brings the files of its
#       stages, src/MODULE_*.c (a module split by stage may have no
#       src/MODULE.c left); src/util.c, the layer every module uses, is
#       always linked.
#       Fails with the compiler's output shown.
#   skip_all REASON, skip_part REASON (tests/skip-lib.sh)

# shellcheck source=tests/skip-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/skip-lib.sh"

unit_setup() {
	local auto=0
	unit_name=$1
	[ "${2:-}" = --san-auto ] && auto=1
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-$unit_name.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	export LC_ALL=C TZ=UTC
	CC=${CC:-cc}
	CXX=${CXX:-c++}
	command -v "${CC%% *}" >/dev/null || fail "no C compiler ($CC)"
	command -v pkg-config >/dev/null || fail "pkg-config is missing"

	san=
	local want="-fsanitize=address,undefined -fno-omit-frame-pointer"
	want="$want -fno-sanitize-recover=undefined"
	if [ $auto = 1 ]; then
		echo 'int main(void){return 0;}' >"$tmp/san.c"
		local cc_cmd
		read -ra cc_cmd <<<"$CC"
		if "${cc_cmd[@]}" -fsanitize=address,undefined "$tmp/san.c" \
			-o "$tmp/san" 2>/dev/null && "$tmp/san" 2>/dev/null; then
			san=$want
		fi
	elif [ "${SAN:-0}" = 1 ]; then
		san=$want
	fi
	if [ -n "$san" ]; then
		LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
		export LSAN_OPTIONS
	fi
}

fail() {
	echo "${unit_name:-test}: $*" >&2
	exit 1
}

unit_build() {
	local out=$1 pkgs=$2 a f o cxx=0
	local flags=() ldflags=() csrc=() ccsrc=() objs=() pcflags pclibs
	shift 2
	pcflags=() pclibs=()
	if [ -n "$pkgs" ]; then
		# shellcheck disable=SC2086
		pkg-config --exists $pkgs ||
			fail "missing pkg-config packages: $pkgs"
		# shellcheck disable=SC2086
		read -ra pcflags <<<"$(pkg-config --cflags $pkgs)"
		# shellcheck disable=SC2086
		read -ra pclibs <<<"$(pkg-config --libs $pkgs)"
	fi
	local -A seen=()
	for a in "$@" src/util.c; do
		case $a in
		-[lL]*) ldflags+=("$a"); continue ;;
		-*) flags+=("$a"); continue ;;
		/*) f=$a ;;
		*) f=$root/$a ;;
		esac
		local parts=("$f")
		case $f in
		"$root"/src/*.c)
			parts=()
			[ -f "$f" ] && parts=("$f")
			for o in "${f%.c}"_*.c; do
				[ -f "$o" ] && parts+=("$o")
			done
			[ ${#parts[@]} -gt 0 ] || parts=("$f") ;;
		esac
		for f in "${parts[@]}"; do
			[ -f "$f" ] || fail "${f#"$root"/} is missing"
			[ -n "${seen[$f]:-}" ] && continue
			seen[$f]=1
			case $f in
			*.cc) ccsrc+=("$f"); cxx=1 ;;
			*) csrc+=("$f") ;;
			esac
		done
	done
	local san_flags cc_cmd cxx_cmd cmd
	read -ra san_flags <<<"$san"
	read -ra cc_cmd <<<"$CC"
	read -ra cxx_cmd <<<"$CXX"
	flags=(-Wall -Wextra -Werror -D_GNU_SOURCE -O1 -g -pthread
		"${san_flags[@]}" "-I$root/include" "${pcflags[@]}" "${flags[@]}")
	local log=$tmp/cc.log
	if [ $cxx = 0 ]; then
		"${cc_cmd[@]}" -std=c11 "${flags[@]}" -o "$out" "${csrc[@]}" \
			"${pclibs[@]}" "${ldflags[@]}" -lm >"$log" 2>&1 ||
			{ cat "$log" >&2; fail "unable to build ${out##*/}"; }
		return 0
	fi
	# Objects one by one, kept for the next build with the same flags.
	local key
	key=$(printf '%s\n' "${flags[@]}" | cksum | cut -d' ' -f1)
	mkdir -p "$tmp/obj-$key"
	for f in "${csrc[@]}" "${ccsrc[@]}"; do
		o=$tmp/obj-$key/$(printf '%s' "$f" | cksum | cut -d' ' -f1).o
		objs+=("$o")
		[ -f "$o" ] && continue
		if [ "${f%.cc}" != "$f" ]; then
			cmd=("${cxx_cmd[@]}" -std=c++17)
		else
			cmd=("${cc_cmd[@]}" -std=c11)
		fi
		"${cmd[@]}" "${flags[@]}" -c -o "$o" "$f" >"$log" 2>&1 || {
			cat "$log" >&2
			rm -f "$o"
			fail "unable to build ${f#"$root"/}"
		}
	done
	"${cxx_cmd[@]}" -pthread "${san_flags[@]}" -o "$out" "${objs[@]}" \
		"${pclibs[@]}" "${ldflags[@]}" -lm >"$log" 2>&1 ||
		{ cat "$log" >&2; fail "unable to build ${out##*/}"; }
}
