#!/usr/bin/env bash
# device.sh — colour passing's scaling and its speedup on 2 cores, on a quiet
# machine (issue 26). Needs no Go: it runs the static binaries that
# build-device.sh puts in experiments/colourpassing/bin/.
#
# usage: OUT=DIR experiments/colourpassing/device.sh
#   BIN     the scaling program of this branch (default bin/scaling)
#   BEFORE  the same program before this branch (main at 0c80ede; default
#           bin/scaling-before;
#           skipped when absent)
#   CPUS    the two CPUs to pin to (default 0,1; when CPU 1 is CPU 0's
#           hyperthread sibling, CPU 0 and the first CPU that is not)
#   QUICK=1 smaller sizes only (a smoke test, under a minute)
#
# Every run is pinned with taskset to the two CPUs, so GOMAXPROCS is 2.
# Writes to $OUT: machine.txt (CPU, topology, huge pages, load); after.md
# (n×n grids 100…1826, 5 repetitions: CPU seconds of one worker and their
# growth exponent in N, wall seconds of 1 and 2 workers and the speedup);
# ideas-1000.md and ideas-1826.md (3 repetitions, also with gathering ahead
# off, LIFTED_GATHER=0, and with the spinning helpers off, LIFTED_SPIN=0;
# at 1000² also with parallel steps from 2·256 nodes instead of 2·1024);
# before.md (main's code at 1000² and 1826², 3 repetitions);
# after-3000.md (3000², 2 repetitions); tiled.md (1000² and 1826² with the
# variables numbered in 8×8 tiles, if time is left); log.txt. The stages share a budget
# of about 5.7 minutes. The scaling program checks every colouring against
# the single worker's and exits non-zero on a difference (in log.txt).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/bin/scaling}
BEFORE=${BEFORE:-$here/bin/scaling-before}
OUT=${OUT:?set OUT to the output folder}
mkdir -p "$OUT"
log=$OUT/log.txt
if [ -z "${CPUS:-}" ]; then
	sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null || echo 0)
	CPUS=0,1
	if ! [[ "$sib" =~ ^0$ ]]; then
		# The siblings of CPU 0 as a list of numbers ("0,8" or "0-1").
		sibs=$(echo "$sib" | awk -F, '{for (i = 1; i <= NF; i++) {n = split($i, r, "-"); if (n == 2) for (j = r[1]; j <= r[2]; j++) print j; else print $i}}')
		if echo "$sibs" | grep -qx 1; then
			for c in $(seq 1 $(($(nproc --all) - 1))); do
				if ! echo "$sibs" | grep -qx "$c"; then CPUS=0,$c; break; fi
			done
		fi
	fi
fi
pin="taskset -c $CPUS"
{
	echo "date: $(date -u)"
	echo "CPUs used: $CPUS (CPU 0's siblings: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null))"
	echo "commit: $(cat "$here/bin/commit" 2>/dev/null), before: $(cat "$here/bin/commit-before" 2>/dev/null)"
	echo "nproc: $(nproc), load: $(cat /proc/loadavg)"
	echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
	lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|L1d|L2|L3|NUMA node\(s\)'
	free -g 2>/dev/null | head -2
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
# The stages share a budget of BUDGET seconds (default 340): a stage's limit
# is cut to what is left, and a stage with under 20 s left is skipped.
BUDGET=${BUDGET:-340}
stage() { # stage NAME LIMIT-S CMD...: run CMD pinned, stdout to $OUT/NAME.md
	local name=$1 limit=$2
	shift 2
	local left=$((BUDGET - SECONDS))
	if [ "$left" -lt 20 ]; then
		echo "== $name skipped: $left s of the budget left" | tee -a "$log"
		return
	fi
	[ "$limit" -gt "$left" ] && limit=$left
	echo "== $name ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg), limit ${limit}s): $*" | tee -a "$log"
	timeout "$limit" $pin "$@" > "$OUT/$name.md" 2>> "$log"
	echo "   exit $? ($(date -u +%T), ${SECONDS}s in)" | tee -a "$log"
	cat "$OUT/$name.md"
}
ideas='LIFTED_GATHER=0;LIFTED_SPIN=0'
if [ "${QUICK:-0}" = 1 ]; then
	stage after 60 "$BIN" -sizes 100,316,577 -reps 3
	stage ideas 60 "$BIN" -sizes 577 -reps 3 -alt "$ideas"
	[ -x "$BEFORE" ] && stage before 60 "$BEFORE" -sizes 577 -reps 3
	exit 0
fi
# In order of importance: the scaling and speedup of this branch; what each
# idea gives (gathering ahead, spinning helpers; each switched off in turn)
# at 1000²; before (main) against after; the same ideas at 1826²; 3000².
stage after 130 "$BIN" -sizes 100,183,316,577,1000,1826 -reps 5
stage ideas-1000 70 "$BIN" -sizes 1000 -reps 3 -alt "$ideas;minchunk=256"
[ -x "$BEFORE" ] && stage before 70 "$BEFORE" -sizes 1000,1826 -reps 3
stage ideas-1826 100 "$BIN" -sizes 1826 -reps 3 -alt "$ideas"
stage after-3000 90 "$BIN" -sizes 3000 -reps 2
# The same grids with their variables numbered in 8×8 tiles (what a
# locality relabelling could gain; compare with after.md's rows).
stage tiled 60 "$BIN" -sizes 1000,1826 -reps 3 -tile 8
echo "total ${SECONDS}s" | tee -a "$log"
