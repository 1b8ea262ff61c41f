#!/usr/bin/env bash
# bench.sh — colour passing throughput before and after, side by side.
#
# usage: experiments/colourpassing/bench.sh BASE-REF ROUNDS [BENCH-REGEX]
#
# Builds lift's test binary from BASE-REF (git archive, with this tree's
# lift/bench_test.go copied in, so both run the same benchmark) and from this
# tree, then runs BenchmarkColourPassingFactors ROUNDS times, alternating
# base and new (GOMAXPROCS 1, -benchtime 1x), and prints every run's
# nodes/s (wall) and nodes/cpu-s (process CPU time) and their medians.
# LIFTED_BENCH_LARGE=1 adds the 10^7-factor graphs (several GB).
set -euo pipefail
base=$1 rounds=$2 bench=${3:-ColourPassingFactors}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base"
git -C "$root" archive "$base" | tar -x -C "$tmp/base"
cp "$root/lift/bench_test.go" "$tmp/base/lift/bench_test.go"
(cd "$tmp/base/lift" && go test -c -o "$tmp/base.test" .)
(cd "$root/lift" && go test -c -o "$tmp/new.test" .)
for r in $(seq "$rounds"); do
	for side in base new; do
		"$tmp/$side.test" -test.run '^$' -test.bench "$bench" -test.benchtime 1x -test.cpu 1 |
			awk -v side=$side '/^Benchmark/ {for (i = 1; i <= NF; i++) {if ($(i+1) == "nodes/s") w = $i; if ($(i+1) == "nodes/cpu-s") c = $i}; print side, $1, w, c}'
	done
done | tee "$tmp/runs"
echo
echo "medians over $rounds rounds: benchmark, base nodes/s, new nodes/s, ratio; base nodes/cpu-s, new nodes/cpu-s, ratio"
awk '{w[$2 " " $1] = w[$2 " " $1] " " $3; c[$2 " " $1] = c[$2 " " $1] " " $4; names[$2] = 1}
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
END { for (b in names) { bw = med(w[b " base"]); nw = med(w[b " new"]); bc = med(c[b " base"]); nc = med(c[b " new"]);
	printf "%-55s %12.0f %12.0f %5.2fx   %12.0f %12.0f %5.2fx\n", b, bw, nw, nw / bw, bc, nc, nc / bc } }' "$tmp/runs" | sort
