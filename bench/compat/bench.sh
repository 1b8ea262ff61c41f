#!/usr/bin/env bash
# bench.sh — compare the Go benchmarks of two trees, matched by benchmark
# name (not package path, which a refactor may change).
#
# usage: bench/compat/bench.sh [flags] BASE NEW
#
#   BASE, NEW   a source tree (a directory) or a git ref of this repository
#               (exported with git archive into a temporary directory next
#               to a symlink to ../shared, so the benchmarks that read
#               ../shared/data find it)
#
# flags (defaults in brackets):
#   -count N       rounds [5]; each round runs every benchmark once in BASE,
#                  then once in NEW (interleaved, so load on the machine hits
#                  both alike); the medians over the rounds are compared
#   -benchtime T   go test -benchtime per benchmark and round [200ms]
#   -bench RE      benchmarks to run [.]
#   -skip RE       benchmarks to leave out (go test -skip) [ExactLS7: one
#                  iteration of count's BenchmarkExactLS7 takes ~8 minutes
#                  here; the benchmark itself skips unless
#                  LIFTED_LONG_BENCH=1, so -skip '^$' alone does not run it]
#   -cpu N         GOMAXPROCS for the benchmark binaries [unset: all CPUs]
#   -out DIR       keep the raw go test output here [a temporary directory]
#
# The benchmark packages are found in each tree separately (the directories
# of *_test.go files with "func Benchmark"); each package's test binary is
# compiled once (go test -c) and run in its package directory, as go test
# does. Output: per benchmark name (the -GOMAXPROCS suffix dropped) the
# median ns/op of BASE and NEW and the ratio NEW/BASE (< 1: NEW faster),
# then the geometric mean of the ratios. A benchmark found in only one tree
# is listed with "-" for the other.
#
# Example (the whole default run takes a few minutes on 2 shared cores):
#   bench/compat/bench.sh 3ee562b .
#   bench/compat/bench.sh -count 8 -bench 'BP|Compress' -benchtime 500ms 3ee562b .
set -euo pipefail

count=5
benchtime=200ms
bench=.
skip=ExactLS7
cpu=
keep=
while [ $# -gt 0 ]; do
	case $1 in
	-count) count=$2; shift 2 ;;
	-benchtime) benchtime=$2; shift 2 ;;
	-bench) bench=$2; shift 2 ;;
	-skip) skip=$2; shift 2 ;;
	-cpu) cpu=$2; shift 2 ;;
	-out) keep=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench.sh: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 2 ]; then
	echo "usage: $0 [-count N] [-benchtime T] [-bench RE] [-skip RE] [-cpu N] [-out DIR] BASE NEW" >&2
	exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${keep:-$tmp/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
shared=
[ -d "$repo/../shared" ] && shared=$(cd "$repo/../shared" && pwd)

# tree SIDE SRC: the directory of SIDE's sources.
tree() {
	local side=$1 src=$2
	if [ -d "$src" ]; then
		(cd "$src" && pwd)
		return
	fi
	mkdir -p "$tmp/$side/tree"
	git -C "$repo" archive --format=tar "$src" | tar -x -C "$tmp/$side/tree"
	[ -n "$shared" ] && ln -s "$shared" "$tmp/$side/shared"
	echo "$tmp/$side/tree"
}

# build SIDE DIR: compile the test binary of every benchmark package.
build() {
	local side=$1 dir=$2 pkg
	mkdir -p "$tmp/$side/bin"
	: >"$tmp/$side/pkgs"
	(cd "$dir" && grep -rl --include='*_test.go' '^func Benchmark' . | xargs -n1 dirname | sort -u) |
		while read -r pkg; do
			local bin
			bin=$tmp/$side/bin/$(echo "${pkg#./}" | tr / _).test
			(cd "$dir" && go test -c -o "$bin" "$pkg") >&2
			printf '%s\t%s\n' "$dir/${pkg#./}" "$bin" >>"$tmp/$side/pkgs"
		done
}

base_dir=$(tree base "$1")
new_dir=$(tree new "$2")
echo "bench.sh: base $base_dir, new $new_dir" >&2
build base "$base_dir"
build new "$new_dir"

args=(-test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" -test.count 1 -test.benchmem)
[ -n "$skip" ] && args+=(-test.skip "$skip")
[ -n "$cpu" ] && args+=(-test.cpu "$cpu")

for r in $(seq 1 "$count"); do
	for side in base new; do
		echo "bench.sh: round $r/$count: $side" >&2
		while IFS=$'\t' read -r pdir bin; do
			(cd "$pdir" && "$bin" "${args[@]}") >>"$out/$side.txt" 2>&1 ||
				echo "bench.sh: $bin failed (see $out/$side.txt)" >&2
		done <"$tmp/$side/pkgs"
	done
done

# Per benchmark name, the median of ns/op (and of allocs/op) over rounds.
medians() {
	awk '
	/^Benchmark/ && / ns\/op/ {
		name = $1
		sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i++) {
			if ($(i+1) == "ns/op") ns[name] = ns[name] " " $i
			if ($(i+1) == "allocs/op") al[name] = al[name] " " $i
		}
	}
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		if (n == 0) return "-"
		return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	END { for (k in ns) printf "%s\t%s\t%s\t%d\n", k, median(ns[k]), (k in al) ? median(al[k]) : "-", split(ns[k], x, " ") }
	' "$1" | sort
}
medians "$out/base.txt" >"$tmp/base.med"
medians "$out/new.txt" >"$tmp/new.med"

echo
echo "benchmark medians over $count rounds, -benchtime $benchtime (ratio = new/base; < 1 is faster)"
join -t $'\t' -a1 -a2 -e - -o 0,1.2,2.2,1.3,2.3,1.4,2.4 "$tmp/base.med" "$tmp/new.med" |
	awk -F'\t' '
	function num(x) { return x == "-" ? x : sprintf("%.0f", x) }
	BEGIN { printf "%-50s %14s %14s %7s %10s %10s %5s\n", "name", "base ns/op", "new ns/op", "ratio", "base alloc", "new alloc", "n" }
	{
		r = "-"
		if ($2 != "-" && $3 != "-" && $2 > 0) { r = sprintf("%.3f", $3 / $2); s += log($3 / $2); k++ }
		printf "%-50s %14s %14s %7s %10s %10s %5s\n", $1, num($2), num($3), r, num($4), num($5), $6 "/" $7
	}
	END { if (k) printf "geometric mean of the %d ratios: %.3f\n", k, exp(s / k) }'
if [ -n "$keep" ]; then
	echo "raw output: $out/base.txt, $out/new.txt"
fi
