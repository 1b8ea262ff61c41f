#!/bin/bash
# anchor.sh: lifted's wfomc beside the WFOMC tool of Wang, Kuželka et al.
# (github.com/yuanhong-wang/WFOMC, built beside the project, not committed)
# on that tool's own model files, which lifted reads as they are
# (format/wfomcs: .wfomcs files, and the tool's .mln syntax with
# --format wfomcs-mln), at growing domain sizes n = 4, 10, 20, 40, 100, ...:
# for each model the largest n each system answers within the CPU limit, the
# CPU seconds of both at the largest n both answered (and the tool's own
# "WFOMC time", without Python's start-up), and the relative difference of
# their log Z there (the tool computes in exact rationals). Both read the
# same file at each n (its domain line set to n, its cardinality constraints
# scaled as spec says); beyond n = 10^6, where lifted would name every
# element, lifted reads the domain line as 0 and takes n from --domain.
#
#   bench/wfomc/anchor.sh [-limit S] [-max N] [-models "a b"] TOOL_DIR LIFTED_BINARY
#
# TOOL_DIR is the tool's checkout (its src/ and models/); it runs with
# $PYTHON (default python3) and PYTHONPATH=$SHIMS:TOOL_DIR/src ($SHIMS: a folder of
# the packages it imports, if they are not installed). CPU seconds are the
# process's user + system time (/usr/bin/time), so a loaded machine slows
# both alike; the limit is a CPU-time limit (ulimit -t), not wall time.
set -u
limit=10
max=1000000000
models="friends-smokes friends-smokes-wfomcs employment 2-colored-graph nonisolated-graph existential deskmate function-no-fix-sc2 permutation-no-fix-sc2 2-regular-graph-sc2 2-regular-graph function-no-fix permutation-no-fix partition head-middle-tail linear_order_perm linear_order_perm_pred predecessor 3Markov_chain molecule molecule-evidence"
while [ $# -gt 2 ]; do
	case "$1" in
	-limit) limit=$2; shift 2 ;;
	-max) max=$2; shift 2 ;;
	-models) models=$2; shift 2 ;;
	*) echo "anchor.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ $# -ne 2 ]; then
	echo "usage: bench/wfomc/anchor.sh [-limit S] [-max N] [-models \"a b\"] TOOL_DIR LIFTED_BINARY" >&2
	exit 2
fi
tool=$(cd "$1" && pwd) lifted=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# spec MODEL: the tool's file, its domain's name, and for the models with
# cardinality constraints how each |P| = k grows with n (P=a/b: k = n·a/b;
# sizes where that is not an integer are skipped; P=n-c: k = n − c), so that
# the models keep their meaning (a 2-regular graph has 2n ordered edges, a
# permutation's successor n − 1). The models with the linear order axiom
# (LEQ, PRED) run the tool's incremental algorithm, the only one of its that
# supports it.
spec() {
	case $1 in
	friends-smokes) echo "friends-smokes.mln person" ;;
	friends-smokes-wfomcs) echo "friends-smokes.wfomcs person" ;;
	employment) echo "employment.mln persons" ;;
	2-colored-graph) echo "2-colored-graph.wfomcs V" ;;
	nonisolated-graph) echo "nonisolated_graph.wfomcs V" ;;
	existential) echo "existential.wfomcs domain" ;;
	deskmate) echo "deskmate.mln students" ;;
	function-no-fix-sc2) echo "function-no-fix-sc2.wfomcs domain" ;;
	permutation-no-fix-sc2) echo "permutation-no-fix-sc2.wfomcs domain" ;;
	2-regular-graph-sc2) echo "2-regular-graph-sc2.wfomcs V" ;;
	2-regular-graph) echo "2-regular-graph.wfomcs V E=2/1" ;;
	function-no-fix) echo "function-no-fix.wfomcs domain func=1/1" ;;
	permutation-no-fix) echo "permutation-no-fix.wfomcs domain F1=1/1,F2=1/1" ;;
	partition) echo "partition.wfomcs domain P1=3/10,P2=4/10,P3=3/10" ;;
	head-middle-tail) echo "linear_order/head-middle-tail.wfomcs domain" ;;
	linear_order_perm) echo "linear_order/linear_order_perm.wfomcs domain Perm=1/1,Pred=n-1" ;;
	linear_order_perm_pred) echo "predk/linear_order_perm_pred.wfomcs domain" ;;
	predecessor) echo "predk/predecessor.wfomcs domain TT=n-10" ;;
	3Markov_chain) echo "predk/3Markov_chain.mln domain" ;;
	molecule) echo "molecule.mln atoms" ;;
	molecule-evidence) echo "unary_evidence/molecule.mln atoms" ;;
	*) return 1 ;;
	esac
}

# sizes: 4, 10, 20, 40, 100, 200, 400, ... up to max (even, so that the
# matchings have a model; at least 4, so that the 2-regular graphs do).
sizes() {
	local d=1
	while [ "$d" -le "$max" ]; do
		for m in 1 2 4; do
			[ $((d * m)) -ge 4 ] && [ $((d * m)) -le "$max" ] && echo $((d * m))
		done
		d=$((d * 10))
	done
}

# cards FILE RULES N: FILE with each |P| = k set by RULES at size N; fails
# when a k is not an integer.
cards() {
	local file=$1 rules=$2 n=$3 out rule p a b
	out=$(cat "$file")
	for rule in ${rules//,/ }; do
		p=${rule%%=*} a=${rule#*=}
		if [ "${a#n-}" != "$a" ]; then
			k=$((n - ${a#n-}))
			[ "$k" -ge 0 ] || return 1
		else
			b=${a#*/} a=${a%/*}
			[ $((n * a % b)) -eq 0 ] || return 1
			k=$((n * a / b))
		fi
		out=$(printf '%s\n' "$out" | sed -E "s/^\|$p\| *= *[0-9]+/|$p| = $k/")
	done
	printf '%s\n' "$out"
}

# runone OUT CMD...: runs CMD under the CPU limit; prints its CPU seconds,
# or "fail" when it did not exit 0.
runone() {
	local out=$1
	shift
	if (ulimit -t "$limit"; /usr/bin/time -f "%U %S" -o "$out.time" "$@" >"$out" 2>"$out.err"); then
		awk '{printf "%.3f", $1 + $2}' "$out.time"
	else
		echo fail
	fi
}

ours_logz() { sed -n 's/^log Z = //p' "$1" | head -1; }
tool_own() { cat "$1" "$1.err" | sed -n 's/.*WFOMC time: \([0-9.e-]*\).*/\1/p' | head -1; }
tool_logz() { cat "$1" "$1.err" | sed -n 's/.*WFOMC (round): .*(exp(\([^)]*\))).*/\1/p' | head -1; }

echo "| model | largest n, lifted | largest n, WFOMC tool | common n | lifted CPU s | tool CPU s (its own wall "WFOMC time") | tool/lifted | log Z rel. diff |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for model in $models; do
	read -r theirs tdom card <<<"$(spec "$model")" || { echo "anchor.sh: unknown model $model" >&2; continue; }
	lastL= lastT= cpuL= cpuT= zL= zT= doneL= doneT=
	fmt=
	[ "${theirs##*.}" = mln ] && fmt="--format wfomcs-mln"
	for n in $(sizes); do
		[ -n "$doneL" ] && [ -n "$doneT" ] && break
		theirfile=$tool/models/$theirs
		if [ -n "$card" ]; then
			cards "$tool/models/$theirs" "$card" "$n" >"$work/theirs" || continue
			theirfile=$work/theirs
		fi
		sed -E "s/^$tdom *= *[0-9]+/$tdom = $n/" "$theirfile" >"$work/model.${theirs##*.}"
		if [ -z "$doneL" ]; then
			ourfile=$work/model.${theirs##*.}
			if [ "$n" -gt 1000000 ]; then
				ourfile=$work/ours.${theirs##*.}
				sed -E "s/^$tdom *= *[0-9]+/$tdom = 0/" "$theirfile" >"$ourfile"
			fi
			c=$(runone "$work/l" "$lifted" wfomc $fmt "$ourfile" --domain "$tdom=$n")
			if [ "$c" = fail ]; then doneL=1; else lastL=$n; cL[$n]=$c; zLn[$n]=$(ours_logz "$work/l"); fi
		fi
		if [ -z "$doneT" ]; then
			algo=
			grep -qE '\b(LEQ|PRED[0-9]*|CIRCULAR_PRED)\(' "$theirfile" && algo="-a incremental"
			c=$(cd "$tool" && runone "$work/t" env PYTHONPATH="${SHIMS:-}:$tool/src" "${PYTHON:-python3}" -c "import sys; sys.set_int_max_str_digits(0); from wfomc.solver import main; sys.argv=['wfomc']+sys.argv[2:]+['-i',sys.argv[1]]; main()" "$work/model.${theirs##*.}" $algo)
			if [ "$c" = fail ] || [ -z "$(tool_logz "$work/t")" ]; then doneT=1; else lastT=$n; cT[$n]=$c; oT[$n]=$(tool_own "$work/t"); zTn[$n]=$(tool_logz "$work/t"); fi
		fi
	done
	common=$lastL
	if [ -z "$lastL" ] || [ -z "$lastT" ]; then
		common=
	elif [ "$lastT" -lt "$lastL" ]; then
		common=$lastT
	fi
	if [ -n "$common" ]; then
		row=$(python3 -c "
import sys
l, t, o = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[5] or 'nan')
zl, zt = float(sys.argv[3]), float(sys.argv[4])
d = abs(zl - zt) / max(abs(zt), 1e-300)
# /usr/bin/time counts in hundredths of a second
ls, r = (f'{l:.2f}', f'{t / l:.0f}') if l >= 0.01 else ('< 0.01', f'> {t / 0.01:.0f}')
print(f'{ls} | {t:.2f} ({o:.2f}) | {r} | {d:.1e}')
" "${cL[$common]}" "${cT[$common]}" "${zLn[$common]}" "${zTn[$common]}" "${oT[$common]}")
		echo "| $model | ${lastL:-none} | ${lastT:-none} | $common | $row |"
	else
		echo "| $model | ${lastL:-none} | ${lastT:-none} | – | | | | |"
	fi
	unset cL cT oT zLn zTn
done
