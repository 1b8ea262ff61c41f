#!/usr/bin/env bash
# Friends and smokers (1.5 Smokes(x) => Cancer(x); 1.1 Friends(x,y) ^
# Smokes(x) => Smokes(y); Friends open-world) with Smokes evidence on E
# people (Smokes(P0), !Smokes(P1), Smokes(P2), ...), n people, query
# Smokes,Cancer: wall time of `lifted infer --method lbp` with the
# first-order construction, with grounding + colour passing
# (--construction ground) and ground BP (--method bp), medians of 3.
# "inner" is the construction + BP time the run reports (its summary line),
# without parsing the model and writing the n-line answers.
#
# Usage: experiments/foconstr/smokers.sh [OUT.md]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-/dev/stdout}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/lifted" ./cmd/lifted)
lifted="$tmp/lifted"

gen() { # n e
	local n=$1 e=$2
	{
		printf "person = {"
		seq -s, -f "P%.0f" 0 $((n - 1)) | sed 's/,/, /g' | tr -d '\n'
		printf "}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n"
		printf "1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"
	} >"$tmp/s.mln"
	for i in $(seq 0 $((e - 1))); do
		if [ $((i % 2)) = 0 ]; then echo "Smokes(P$i)"; else echo "!Smokes(P$i)"; fi
	done >"$tmp/s.db"
}

# run ARGS...: prints "wall inner" for one run (or "- -" when it fails)
one() {
	local t0 t1
	t0=$(date +%s.%N)
	if "$lifted" infer "$tmp/s.mln" -e "$tmp/s.db" -q Smokes,Cancer "$@" >/dev/null 2>"$tmp/err"; then
		t1=$(date +%s.%N)
		inner=$(tail -1 "$tmp/err" | sed 's/.*; \([0-9.e+-]*\) s$/\1/')
		echo "$(echo "$t1 - $t0" | bc -l) $inner"
	else
		echo "- -"
	fi
}

median3() { # ARGS: run 3 times, print "wall inner" medians
	local a b c
	a=$(one "$@"); b=$(one "$@"); c=$(one "$@")
	w=$(printf "%s\n%s\n%s\n" "${a% *}" "${b% *}" "${c% *}" | sort -g | sed -n 2p)
	i=$(printf "%s\n%s\n%s\n" "${a#* }" "${b#* }" "${c#* }" | sort -g | sed -n 2p)
	printf "%.3g %.3g" "$w" "$i" 2>/dev/null || echo "- -"
}

{
	echo "| n | evidence | first-order wall s | first-order inner s | ground+CP wall s | ground+CP inner s | ground BP wall s | ground BP / first-order (wall) | ground BP / first-order (inner) | clusternodes |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for n in 1000 10000 100000 1000000; do
		for e in 3 30 300; do
			gen "$n" "$e"
			read -r fw fi <<<"$(median3 --method lbp)"
			cn=$("$lifted" compress "$tmp/s.mln" -e "$tmp/s.db" -q Smokes,Cancer 2>/dev/null | sed 's/.*"clusternodes":\([0-9]*\).*/\1/')
			gw=- gi=- bw=- bi=- r1=- r2=-
			if [ "$n" -le 1000 ]; then
				read -r gw gi <<<"$(median3 --method lbp --construction ground)"
				read -r bw bi <<<"$(median3 --method bp)"
				r1=$(printf "%.0f" "$(echo "$bw / $fw" | bc -l)")
				r2=$(printf "%.0f" "$(echo "$bi / $fi" | bc -l)")
			fi
			echo "| $n | $e | $fw | $fi | $gw | $gi | $bw | $r1 | $r2 | $cn |"
		done
	done
} >"$out"
