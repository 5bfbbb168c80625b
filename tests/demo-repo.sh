#!/bin/bash
# Build a sample repository with a few years of scripted history: three
# subsystems, releases with release candidates, renames, a merged topic
# branch and files that never change. `make demo` reports on it.
#
# usage: tests/demo-repo.sh DIR   (DIR is replaced if it is a previous demo)
set -eu

dir=$1
if [ -e "$dir" ]; then
	[ -f "$dir/.strata-demo" ] || {
		echo "demo-repo: '$dir' exists and is not a demo repository" >&2
		exit 1
	}
	rm -rf "$dir"
fi
mkdir -p "$dir"
cd "$dir"
git init -q -b main .
touch .strata-demo
echo .strata-demo > .git/info/exclude
git config user.name "Demo Maintainer"
git config user.email "maintainer@example.org"
git config tag.gpgSign false
git config commit.gpgSign false

t=1262304000 # 2010-01-01
tick() {
	t=$((t + 86400 * ${1:-3}))
	export GIT_AUTHOR_DATE="$t +0000" GIT_COMMITTER_DATE="$t +0000"
}
commit() { tick "${2:-3}"; git add -A; git commit -q -m "$1"; }
tag() { tick 1; git tag -a -m "release $1" "$1"; }

# Lines that look like code, numbered so that edits are real.
gen() { # gen FILE PREFIX COUNT
	local i
	mkdir -p "$(dirname "$1")"
	for i in $(seq 1 "$3"); do
		printf '%s_%d(void) { return %d; }\n' "$2" "$i" "$i"
	done > "$1"
}
edit() { # edit FILE LINE-STEP TEXT: rewrite every STEP-th line
	awk -v s="$2" -v t="$3" '{ if (NR % s == 0) print t "_" NR "();"; else print }' \
		"$1" > "$1.tmp" && mv "$1.tmp" "$1"
}
append() { # append FILE PREFIX COUNT
	local i
	for i in $(seq 1 "$3"); do
		printf '%s_%d(void) { return -%d; }\n' "$2" "$i" "$i"
	done >> "$1"
}

gen core/sched.c sched 400
gen core/mm.c mm 300
gen drivers/net/eth.c eth 250
gen drivers/usb/hub.c hub 200
gen fs/ext/inode.c inode 350
gen fs/ext/dir.c dir 150
printf 'Demo project\n============\n\nA sample history for strata.\n' > README
printf 'GPL-2.0\n' > COPYING
gen lib/string.c str 120
commit "initial import" 1
tag v1.0

append core/sched.c sched_fair 60; commit "sched: fair scheduling"
edit drivers/net/eth.c 7 eth_fix; commit "net: fix checksums"
tag v1.1-rc1
append fs/ext/inode.c inode_xattr 80; commit "ext: extended attributes"
tag v1.1

git checkout -q -b topic/usb3
gen drivers/usb/xhci.c xhci 220; commit "usb: add xhci"
edit drivers/usb/hub.c 5 hub_reset; commit "usb: hub reset rework"
git checkout -q main
edit core/mm.c 9 mm_numa; commit "mm: numa awareness"
tick 2; git merge -q --no-ff -m "Merge branch 'topic/usb3'" topic/usb3
tag v1.2-rc1
git mv fs/ext/dir.c fs/ext/namei.c; edit fs/ext/namei.c 11 namei_hash
commit "ext: rename dir.c to namei.c"
tag v1.2

gen drivers/gpu/drm.c drm 300; commit "gpu: new drm driver" 5
edit core/sched.c 13 sched_rt; commit "sched: realtime class"
tag v2.0-rc1
edit drivers/gpu/drm.c 4 drm_fix; commit "gpu: fixes"
tag v2.0-rc2
tag v2.0

append lib/string.c str_simd 90; commit "lib: vectorised string ops" 7
edit drivers/net/eth.c 3 eth_offload; commit "net: offloads"
append core/mm.c mm_thp 70; commit "mm: transparent huge pages"
tag v2.1

edit fs/ext/inode.c 6 inode_extent; commit "ext: extents" 10
append drivers/gpu/drm.c drm_atomic 120; commit "gpu: atomic modesetting"
tag v2.2-rc1
tag v2.2

edit core/sched.c 17 sched_deadline; commit "sched: deadline class" 4
append drivers/usb/xhci.c xhci_streams 40; commit "usb: streams"
