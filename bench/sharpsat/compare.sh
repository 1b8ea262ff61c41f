#!/usr/bin/env bash
# compare.sh — lifted's exact model counter (lifted count --method exact)
# against sharpSAT on the DIMACS instances of ../shared/data/cnf, side by
# side: CPU seconds (user + sys of the whole process) and peak resident
# memory (the process's rusage, bench/sharpsat/cpu), the median of ROUNDS runs taken in turn, the ratio
# sharpSAT/lifted (> 1: lifted faster), whether the two counts agree, and
# the search statistics both report (decisions, conflicts, failed literals).
#
#   bench/sharpsat/compare.sh [-rounds N] [-timeout SECONDS] [-base OLD_LIFTED_BIN] SHARPSAT_BIN [LIFTED_BIN]
#
# SHARPSAT_BIN is a built sharpSAT (github.com/marcthurley/sharpSAT, built
# beside the project with cmake and Debian's libgmp-dev; nothing of it is kept
# here). LIFTED_BIN defaults to a build of ./cmd/lifted. With -base, an older
# build of lifted runs in the same rounds too (before/after in one run). The
# statistics come from one run of bench/sharpsat/stats (lifted; its
# "conflicts" leave out failed literals, as sharpSAT's do) and from
# sharpSAT's own output. The load average is printed before and after: the
# machine may be shared. Instances: those sharpSAT-TD counts within 60 s on
# this machine (../shared/data/cnf/SOURCE.txt) plus the generated normalised
# Latin squares of order 5-7 (MODELS="a b ..." selects some).
set -euo pipefail
rounds=3
limit=300
base=
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift 2 ;;
	-timeout) limit=$2; shift 2 ;;
	-base) base=$(realpath "$2"); shift 2 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: $0 [-rounds N] [-timeout S] [-base OLD_LIFTED_BIN] SHARPSAT_BIN [LIFTED_BIN]" >&2; exit 2; }
sharp=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
data=${DATA:-$repo/../shared/data}
[ -d "$data/cnf" ] || { echo "no $data/cnf: ../shared/data is not beside the repository" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
lifted=${2:-}
if [ -z "$lifted" ]; then (cd "$repo" && go build -o "$tmp/lifted" ./cmd/lifted); lifted=$tmp/lifted; fi
(cd "$repo" && go build -o "$tmp/stats" ./bench/sharpsat/stats && go build -o "$tmp/cpu" ./bench/sharpsat/cpu)

models=(2bitmax_6 2bitcomp_5 3blocks ais6 ais8 ais10 bw_large.a logistics.a logistics.b uf20-01 uf50-01
	generated/ls5-norm-gen generated/ls6-norm-gen generated/ls7-norm-gen 2bitadd_10)
# MODELS="3blocks ais8" runs a subset.
[ -z "${MODELS:-}" ] || read -ra models <<<"$MODELS"
# measure OUT CMD...: runs CMD (stopped after $limit s), its output to
# OUT.log, and writes to OUT.time its user and system CPU seconds and its
# peak resident KB (bench/sharpsat/cpu: the command's own rusage, to the
# microsecond; the shell's time around GNU time and timeout(1), used
# before, counted their forks too, about 4 ms a run); exits with CMD's
# status.
measure() {
	local out=$1 rc=0
	shift
	"$tmp/cpu" -o "$out.time" -timeout "$limit" "$@" >"$out.log" 2>&1 || rc=$?
	return "$rc"
}
# run PROG FILE OUT: CPU seconds and peak KB of one run into OUT.cpu; the count into OUT.count
run() {
	local prog=$1 f=$2 out=$3 rc=0
	case $prog in
	lifted|base)
		local bin=$lifted
		[ "$prog" = base ] && bin=$base
		measure "$out" "$bin" count --method exact --quiet --timeout "${limit}s" "$f" || rc=$?
		sed -n 's/^count \([0-9]*\).*/\1/p' "$out.log" | head -1 >"$out.count"
		;;
	*)
		# sharpSAT appends an HTML row of statistics to ./data.out: run it in
		# the scratch directory, not wherever the script was called from.
		(cd "$tmp" && measure "$out" "$sharp" "$f") || rc=$?
		awk '/# solutions/{getline; print; exit}' "$out.log" >"$out.count"
		;;
	esac
	[ -s "$out.count" ] || echo timeout >"$out.count"
	echo "$rc" >"$out.rc"
	awk '{printf "%.4f %d\n", $1+$2, $3}' "$out.time" >"$out.cpu"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# col PREFIX FIELD: the median over the rounds of field FIELD of PREFIX$r.cpu
col() { for r in $(seq "$rounds"); do cut -d' ' -f"$2" "$tmp/$1$r.cpu"; done | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a/b; else print "-" }'; }
# sharpstat LOG: decisions/conflicts/failed literals from sharpSAT's output
sharpstat() {
	awk '/^decisions/{d=$2} /^conflicts/{c=$2} /^failed literals found/{f=$NF} END {if (d == "") print "–"; else printf "%s / %s / %s", d, c, f}' "$1"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
echo
hdr='| instance | count | agree | sharpSAT CPU s | lifted CPU s | sharpSAT/lifted |'
sep='|---|---|---|---|---|---|'
if [ -n "$base" ]; then hdr+=' before CPU s | sharpSAT/before |'; sep+='---|---|'; fi
hdr+=' sharpSAT MB | lifted MB | sharpSAT decisions / conflicts / failed lits | lifted decisions / conflicts / failed lits |'
sep+='---|---|---|---|'
echo "$hdr"; echo "$sep"
for m in "${models[@]}"; do
	f=$data/cnf/$m.cnf
	[ -f "$f" ] || continue
	for r in $(seq "$rounds"); do
		run sharp "$f" "$tmp/s$r"
		run lifted "$f" "$tmp/l$r"
		[ -z "$base" ] || run base "$f" "$tmp/b$r"
	done
	sc=$(cat "$tmp/s1.count"); lc=$(cat "$tmp/l1.count")
	agree=no; [ "$sc" = "$lc" ] && agree=yes
	# sharpSAT prints no count for an unsatisfiable formula (it exits 0).
	if [ "$sc" = timeout ] && [ "$(cat "$tmp/s1.rc")" = 0 ] && [ "$lc" = 0 ]; then sc=0; agree="yes (UNSAT)"; fi
	st=$(col s 1); lt=$(col l 1); sm=$(col s 2); lm=$(col l 2)
	row="| $(basename "$m") | $([ "$lc" = timeout ] && echo "$sc" || echo "$lc") | $agree | $st | $lt | $(ratio "$st" "$lt") |"
	if [ -n "$base" ]; then bt=$(col b 1); row+=" $bt | $(ratio "$st" "$bt") |"; fi
	ls=$(timeout "$limit" "$tmp/stats" "$f" 2>/dev/null | awk '{printf "%s / %s / %s", $4, $6, $8}') || ls="timeout"
	row+=" $((sm / 1024)) | $((lm / 1024)) | $(sharpstat "$tmp/s1.log") | ${ls:-timeout} |"
	echo "$row"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
