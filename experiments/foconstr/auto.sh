#!/usr/bin/env bash
# The default method (auto) before and after it lifts before grounding:
# `lifted infer s.mln -e s.db -q Smokes,Cancer` with no --method, built
# from BASE (default: main) and from the working tree, run alternately,
# wall time medians of 3. Models: friends-and-smokers (1.5 Smokes(x) =>
# Cancer(x); 1.1 Friends(x,y) ^ Smokes(x) => Smokes(y); Friends
# open-world; evidence Smokes(P0), !Smokes(P1), Smokes(P2)), which wfomc
# lifts, and the same with 0.7 Friends(x,y) ^ Friends(y,z) => Friends(x,z),
# which it does not (auto goes to lifted BP). Also prints the method each
# run chose and whether the outputs are equal.
#
# Usage: experiments/foconstr/auto.sh [BASE] [OUT.md]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
base=${1:-main}
out=${2:-/dev/stdout}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/base"
git -C "$root" archive "$base" | tar -x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/before" ./cmd/lifted)
(cd "$root" && go build -o "$tmp/after" ./cmd/lifted)

gen() { # n transitive(0|1)
	local n=$1
	{
		printf "person = {"
		seq -s, -f "P%.0f" 0 $((n - 1)) | sed 's/,/, /g' | tr -d '\n'
		printf "}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n"
		printf "1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"
		if [ "$2" = 1 ]; then printf "0.7 Friends(x, y) ^ Friends(y, z) => Friends(x, z)\n"; fi
	} >"$tmp/s.mln"
	printf "Smokes(P0)\n!Smokes(P1)\nSmokes(P2)\n" >"$tmp/s.db"
}

one() { # BIN: wall seconds of one run; output in $tmp/out.BIN, method in $tmp/err.BIN
	local t0 t1
	t0=$(date +%s.%N)
	"$tmp/$1" infer "$tmp/s.mln" -e "$tmp/s.db" -q Smokes,Cancer >"$tmp/out.$1" 2>"$tmp/err.$1" || { echo -; return; }
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}

method() { sed -n 's/^lifted: method \([a-z]*\): .*/\1/p' "$tmp/err.$1" | head -1; }

{
	echo "| model | n | before wall s | after wall s | before / after | before method | after method | same output |"
	echo "|---|---:|---:|---:|---:|---|---|---|"
	for tr in 0 1; do
		for n in 100 1000 10000; do
			gen "$n" "$tr"
			b=() a=()
			for _ in 1 2 3; do
				b+=("$(one before)")
				a+=("$(one after)")
			done
			bw=$(printf "%s\n" "${b[@]}" | sort -g | sed -n 2p)
			aw=$(printf "%s\n" "${a[@]}" | sort -g | sed -n 2p)
			same=no
			cmp -s "$tmp/out.before" "$tmp/out.after" && same=yes
			name=smokers
			[ "$tr" = 1 ] && name=smokers+transitivity
			printf "| %s | %d | %.3g | %.3g | %.2g | %s | %s | %s |\n" "$name" "$n" "$bw" "$aw" "$(echo "$bw / $aw" | bc -l)" "$(method before)" "$(method after)" "$same"
		done
	done
} >"$out"
