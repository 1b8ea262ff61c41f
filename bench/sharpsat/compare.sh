#!/usr/bin/env bash
# compare.sh — lifted's exact model counter (lifted count --method exact)
# against sharpSAT on the DIMACS instances of ../shared/data/cnf, side by
# side: CPU seconds (user + sys of the whole process) and peak memory, the
# median of ROUNDS runs taken in turn, the ratio sharpSAT/lifted (> 1: lifted
# faster), and whether the two counts agree.
#
#   bench/sharpsat/compare.sh [-rounds N] [-timeout SECONDS] SHARPSAT_BIN [LIFTED_BIN]
#
# SHARPSAT_BIN is a built sharpSAT (github.com/marcthurley/sharpSAT, built
# beside the project with cmake and Debian's libgmp-dev; nothing of it is kept
# here). LIFTED_BIN defaults to a build of ./cmd/lifted. Instances: those
# sharpSAT-TD counts within 60 s on this machine (../shared/data/cnf/SOURCE.txt)
# plus the generated normalised Latin squares of order 5-7.
set -euo pipefail
rounds=3
limit=300
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift 2 ;;
	-timeout) limit=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: $0 [-rounds N] [-timeout S] SHARPSAT_BIN [LIFTED_BIN]" >&2; exit 2; }
sharp=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
data=${DATA:-$repo/../shared/data}
[ -d "$data/cnf" ] || { echo "no $data/cnf: ../shared/data is not beside the repository" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
lifted=${2:-}
if [ -z "$lifted" ]; then (cd "$repo" && go build -o "$tmp/lifted" ./cmd/lifted); lifted=$tmp/lifted; fi

models=(2bitmax_6 2bitcomp_5 3blocks ais6 ais8 ais10 bw_large.a logistics.a logistics.b uf20-01 uf50-01
	generated/ls5-norm-gen generated/ls6-norm-gen generated/ls7-norm-gen 2bitadd_10)
# run PROG FILE OUT: CPU seconds and peak KB of one run into OUT.time; the count into OUT.count
run() {
	local prog=$1 f=$2 out=$3 rc=0
	if [ "$prog" = lifted ]; then
		/usr/bin/time -f "%U %S %M" -o "$out.time" timeout "$limit" "$lifted" count --method exact --timeout "${limit}s" "$f" >"$out.log" 2>&1 || rc=$?
		sed -n 's/^count \([0-9]*\).*/\1/p' "$out.log" | head -1 >"$out.count"
	else
		# sharpSAT appends an HTML row of statistics to ./data.out: run it in
		# the scratch directory, not wherever the script was called from.
		(cd "$tmp" && /usr/bin/time -f "%U %S %M" -o "$out.time" timeout "$limit" "$sharp" "$f" >"$out.log" 2>&1) || rc=$?
		awk '/# solutions/{getline; print; exit}' "$out.log" >"$out.count"
	fi
	[ -s "$out.count" ] || echo timeout >"$out.count"
	tail -1 "$out.time" | awk '{printf "%.2f %d\n", $1+$2, $3}' >"$out.cpu"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '| instance | count | agree | sharpSAT CPU s | lifted CPU s | sharpSAT/lifted | sharpSAT MB | lifted MB |\n|---|---|---|---|---|---|---|---|\n'
for m in "${models[@]}"; do
	f=$data/cnf/$m.cnf
	[ -f "$f" ] || continue
	for r in $(seq "$rounds"); do
		run sharp "$f" "$tmp/s$r"
		run lifted "$f" "$tmp/l$r"
	done
	sc=$(cat "$tmp/s1.count"); lc=$(cat "$tmp/l1.count")
	agree=no; [ "$sc" = "$lc" ] && agree=yes
	st=$(for r in $(seq "$rounds"); do cut -d' ' -f1 "$tmp/s$r.cpu"; done | median)
	lt=$(for r in $(seq "$rounds"); do cut -d' ' -f1 "$tmp/l$r.cpu"; done | median)
	sm=$(for r in $(seq "$rounds"); do cut -d' ' -f2 "$tmp/s$r.cpu"; done | median)
	lm=$(for r in $(seq "$rounds"); do cut -d' ' -f2 "$tmp/l$r.cpu"; done | median)
	ratio=$(awk -v a="$st" -v b="$lt" 'BEGIN { if (b > 0) printf "%.2f", a/b; else print "-" }')
	printf '| %s | %s | %s | %s | %s | %s | %d | %d |\n' "$(basename "$m")" "$([ "$lc" = timeout ] && echo "$sc" || echo "$lc")" "$agree" "$st" "$lt" "$ratio" $((sm/1024)) $((lm/1024))
done
