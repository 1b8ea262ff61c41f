#!/usr/bin/env bash
# serial.sh — the serial fraction of the all-cores colour passing on an n×n
# grid without evidence, from a CPU profile (so that it does not depend on
# how loaded the machine is).
#
# usage: experiments/colourpassing/serial.sh [SIDE] [RUNS] [WORKERS]
#
# Runs lift's BenchmarkParallelGrid (workers=WORKERS, default 2) RUNS times
# at SIDE×SIDE under -cpuprofile and splits the CPU time of lift.refine
# into the parallel sections (the chunks that runTasks hands to its
# goroutines, lift.runTasks.func1, on the caller and the helpers) and the
# rest (serial: steps too small to split, prefix sums, joining the lists,
# setting up), less the caller's spinning and waiting for the helpers
# (lift.(*taskState).wait; on idle cores that is the helpers' share of the
# parallel sections, already counted). Prints both, the serial fraction f, and Amdahl's bound
# 1/(f + (1-f)/W) on the speedup with W workers; then runs the single
# worker (workers=1, RUNS times, profiled too) and prints the speedup the
# profiles predict on W idle cores: the single worker's CPU time in
# lift.refine over serial + parallel/W (so the parallel sections' extra
# work, atomics and second passes, counts against them).
set -euo pipefail
side=${1:-1000} runs=${2:-3} workers=${3:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/lift" && go test -c -o "$tmp/lift.test" .)
LIFTED_BENCH_GRID=$side "$tmp/lift.test" -test.run '^$' -test.bench "ParallelGrid//workers=$workers\$" \
	-test.benchtime "${runs}x" -test.cpuprofile "$tmp/cpu.prof" | grep '^Benchmark' || true
LIFTED_BENCH_GRID=$side "$tmp/lift.test" -test.run '^$' -test.bench 'ParallelGrid//workers=1$' \
	-test.benchtime "${runs}x" -test.cpuprofile "$tmp/cpu1.prof" | grep '^Benchmark' || true
cum() { # cum ms of function $2 in profile $1, restricted by pprof args $3...
	local prof=$1 fn=$2
	shift 2
	go tool pprof -unit ms -top -cum -nodecount 100000 "$@" "$tmp/lift.test" "$prof" 2>/dev/null |
		awk -v fn="$fn" '$6 == fn {gsub("ms", "", $4); print $4 + 0; found = 1} END {if (!found) print 0}'
}
refine=$(cum "$tmp/cpu.prof" github.com/lifted-dev/lifted/lift.refine)
par=$(cum "$tmp/cpu.prof" github.com/lifted-dev/lifted/lift.runTasks.func1)
parCaller=$(cum "$tmp/cpu.prof" github.com/lifted-dev/lifted/lift.runTasks.func1 -focus 'lift\.refine$')
wait=$(cum "$tmp/cpu.prof" 'github.com/lifted-dev/lifted/lift.(*taskState).wait' -focus 'lift\.refine$')
cpu1=$(cum "$tmp/cpu1.prof" github.com/lifted-dev/lifted/lift.refine)
awk -v r="$refine" -v p="$par" -v pc="$parCaller" -v wt="$wait" -v w="$workers" -v c1="$cpu1" -v n="$runs" 'BEGIN {
	s = r - pc - wt
	f = s / (s + p)
	printf "CPU ms: refine on the calling goroutine %.0f, of which in parallel sections %.0f and waiting for helpers %.0f; parallel sections on all goroutines %.0f\n", r, pc, wt, p
	printf "serial %.0f ms, parallel %.0f ms: serial fraction %.3f; Amdahl bound with %d workers %.2fx\n", s, p, f, w, 1 / (f + (1 - f) / w)
	t = s + p / w
	printf "single worker (its own profile): refine %.0f ms; predicted with %d workers on idle cores (serial + parallel/%d) %.0f ms: speedup %.2fx\n", c1, w, w, t, c1 / t
}'
