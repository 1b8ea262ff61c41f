#!/usr/bin/env bash
# compare.sh — lifted's ground BP and Gibbs against libDAI's on the same .fg
# models, side by side: CPU seconds (user + sys of the whole process, so
# that a loaded machine does not skew the ratio), medians of ROUNDS runs
# taken in turn, and the ratio libDAI/lifted (> 1: lifted faster).
#
#   bench/libdai/compare.sh [-rounds N] [-base BIN] LIBDAI_DIR [OUT_DIR]
#
# LIBDAI_DIR is a built libDAI checkout (lib/libdai.a and include/; built
# with WITH_BP, WITH_GIBBS and without DEBUG, e.g. `make lib`); nothing of it
# is kept here. -base BIN adds a column for another lifted binary (e.g. main
# before a change). OUT_DIR (default a temporary directory) keeps the
# converted models, the binaries and the raw outputs.
#
# Models: linkage_16, Promedus_11 and Promedus_14 of ../shared/data/uai with
# their .evid evidence, written as .fg by ./tofg (the evidence multiplied in
# as indicator factors, so that both programs read the same file). BP: tol
# 1e-9, at most 10000 iterations, no damping, flooding (libDAI PARALL) and
# sequential (SEQFIX, the order lifted's Sequential follows on a ground
# graph), libDAI in the linear domain. Gibbs: SWEEPS single-site sweeps of
# one chain without burn-in (libDAI Gibbs maxiter; lifted --method gibbs
# --chains 1 --burn-in 0 --samples SWEEPS), on the .fg models and on
# ../shared/data/fg/alarm.fg.
set -euo pipefail

rounds=3
base=
sweeps=${SWEEPS:-20000}
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift 2 ;;
	-base) base=$2; shift 2 ;;
	-h|--help) sed -n '2,24p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ]; then
	echo "usage: $0 [-rounds N] [-base BIN] LIBDAI_DIR [OUT_DIR]" >&2
	exit 2
fi
dai=$(cd "$1" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
data=${DATA:-$repo/../shared/data}

(cd "$repo" && go build -o "$out/lifted" ./cmd/lifted && go build -o "$out/tofg" ./bench/libdai/tofg)
g++ -O3 -w -I"$dai/include" -DDAI_WITH_BP -DDAI_WITH_GIBBS -o "$out/dai_bench" "$here/dai_bench.cpp" \
	-L"$dai/lib" -ldai -lgmpxx -lgmp

models=()
for m in linkage_16 Promedus_11 Promedus_14; do
	if [ -f "$data/uai/$m.uai" ]; then
		ev=()
		[ -f "$data/uai/$m.uai.evid" ] && ev=("$data/uai/$m.uai.evid")
		"$out/tofg" "$data/uai/$m.uai" "${ev[@]}" > "$out/$m.fg"
		models+=("$m")
	fi
done
[ ${#models[@]} -gt 0 ] || { echo "no models under $data/uai" >&2; exit 1; }
[ -f "$data/fg/alarm.fg" ] && cp "$data/fg/alarm.fg" "$out/alarm.fg"

# cpu CMD... prints the user + sys seconds of CMD (its output to $out/last).
cpu() {
	local rc=0
	/usr/bin/time -f "%U %S" -o "$out/time" "$@" > "$out/last" 2> "$out/last.err" || rc=$?
	# 3: lifted's BP did not converge (nor its damped fallbacks): timed all the same
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
		echo "failed ($rc): $*: $(tail -1 "$out/last.err")" >&2
		echo fail
		return 0
	fi
	awk '{printf "%.3f", $1 + $2}' "$out/time"
}
# median of the numbers on stdin; "fail" if any run failed.
median() { tr ' ' '\n' | grep . | sort -g | awk '/fail/ {f = 1} {a[NR]=$1} END {print f ? "fail" : a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "fail" || b == "fail") print "-"; else printf "%.2f", a / b}'; }

printf "%-12s %-6s %9s %9s %9s %7s" model mode libdai lifted ratio agree
[ -n "$base" ] && printf " %9s %7s" base new/base
printf "\n"
row() { # NAME MODE DAI_CMD... -- LIFTED_ARGS...
	local name=$1 mode=$2; shift 2
	local daicmd=() lcmd=()
	while [ "$1" != -- ]; do daicmd+=("$1"); shift; done
	shift
	lcmd=("$@")
	local td=() tl=() tb=()
	for _ in $(seq "$rounds"); do
		td+=("$(cpu "${daicmd[@]}")")
		cp "$out/last" "$out/$name-$mode.dai"
		tl+=("$(cpu "$out/lifted" "${lcmd[@]}")")
		cp "$out/last" "$out/$name-$mode.lifted"
		if [ -n "$base" ]; then
			tb+=("$(cpu "$base" "${lcmd[@]}")")
			cp "$out/last" "$out/$name-$mode.base"
		fi
	done
	local md ml
	md=$(echo "${td[@]}" | median)
	ml=$(echo "${tl[@]}" | median)
	local agree=- iters=
	if [ "$mode" != gibbs ]; then
		agree=$(python3 "$here/agree.py" "$out/$name-$mode.dai" "$out/$name-$mode.lifted" 2>/dev/null || echo -)
		iters="  iterations libDAI $(awk 'NR == 1 {print $4}' "$out/$name-$mode.dai"), lifted $(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["stats"]; print(s["bp_iterations"], "converged" if s["converged"] else "not converged")' "$out/$name-$mode.lifted" 2>/dev/null || echo "?")"
	fi
	printf "%-12s %-6s %9s %9s %9s %7s" "$name" "$mode" "$md" "$ml" "$(ratio "$md" "$ml")" "$agree"
	if [ -n "$base" ]; then
		local mb
		mb=$(echo "${tb[@]}" | median)
		printf " %9s %7s" "$mb" "$(ratio "$ml" "$mb")"
		if [ "$mode" = gibbs ] && ! cmp -s "$out/$name-$mode.lifted" "$out/$name-$mode.base"; then
			printf "  (outputs differ)"
		fi
	fi
	printf "%s\n" "$iters"
}
for m in "${models[@]}"; do
	for sched in flood seq; do
		row "$m" "$sched" "$out/dai_bench" bp "$out/$m.fg" "$sched" 1e-9 10000 -- \
			infer --method bp --schedule "$sched" --tol 1e-9 --max-iter 10000 --quiet \
			--output-format json "$out/$m.fg"
	done
done
gm=("${models[@]}")
[ -f "$out/alarm.fg" ] && gm+=(alarm)
for m in "${gm[@]}"; do
	row "$m" gibbs "$out/dai_bench" gibbs "$out/$m.fg" "$sweeps" 1 -- \
		infer --method gibbs --chains 1 --burn-in 0 --samples "$sweeps" --seed 1 --allow-unconverged --quiet "$out/$m.fg"
done
echo "ratio: libDAI CPU seconds / lifted CPU seconds (median of $rounds); agree: largest |marginal difference|; outputs in $out"
