#!/usr/bin/env bash
# UW-CSE, WebKB and IMDB (../shared/data/mln): `lifted compress` with the
# first-order construction (--construction first-order, forced), with
# grounding + colour passing (--construction ground) and with the default
# (first-order only where the reduced model keeps at most half the
# constants): wall time (median of 3), construction time reported in the
# statistics (grounding + colour passing, or the first-order
# construction), ground sizes represented, what was grounded, and the
# counted graph's sizes. Weights are irrelevant to the sizes
# (--default-weight 1). "unary evidence" keeps only the evidence atoms of
# one argument (attributes, no relations), the case where constants stay
# interchangeable.
#
# Usage: experiments/foconstr/datasets.sh [OUT.md]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=${DATA:-$(cd "$root/.." && pwd)/shared/data/mln}
out=${1:-/dev/stdout}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/lifted" ./cmd/lifted)
lifted="$tmp/lifted"

field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2"; }

run() { # name mln db query construction
	local name=$1 m=$2 d=$3 q=$4 c=$5 ws=()
	local ev=() cf=()
	[ -n "$d" ] && ev=(-e "$data/$d")
	case $d in unary:*) grep -E '^!?[A-Za-z_]+\([^,]*\)' "$data/${d#unary:}" >"$tmp/unary.db"; ev=(-e "$tmp/unary.db") ;; esac
	[ "$c" != default ] && cf=(--construction "$c")
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$lifted" compress "$data/$m" "${ev[@]}" -q "$q" --default-weight 1 "${cf[@]}" >"$tmp/j" 2>/dev/null || { echo "| $name | $c | failed |"; return; }
		t1=$(date +%s.%N)
		ws+=("$(echo "$t1 - $t0" | bc -l)")
	done
	w=$(printf "%s\n" "${ws[@]}" | sort -g | sed -n 2p)
	secs=$(echo "$(field ground_seconds "$tmp/j") + $(field color_seconds "$tmp/j")" | bc -l)
	[ "$(field lifted_construction "$tmp/j")" = true ] && secs=$(field ground_seconds "$tmp/j")
	[ "$c" = default ] && c="default: $(field lifted_construction "$tmp/j" | sed 's/true/first-order/; s/false/ground/')"
	printf "| %s | %s | %.3g | %.3g | %s | %s | %s | %s | %s | %s |\n" "$name" "$c" "$w" "$secs" \
		"$(field ground_atoms "$tmp/j")" "$(field ground_formulas "$tmp/j")" \
		"$(field ground_atoms_built "$tmp/j")" "$(field ground_formulas_built "$tmp/j")" \
		"$(field clusternodes "$tmp/j")" "$(field clusterfactors "$tmp/j")"
}

{
	echo "| model (evidence; query) | construction | wall s | construction s | ground atoms | ground formulas | atoms built | formulas built | clusternodes | clusterfactors |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	while IFS='|' read -r name m d q; do
		for c in first-order ground default; do run "$name" "$m" "$d" "$q" "$c"; done
	done <<'LIST'
UW-CSE forclift (fold 1; Professor,Publication)|uwcse/forclift/convergencetest.mln|uwcse/forclift/uwcse_fold1.db|Professor,Publication
UW-CSE forclift (fold 1, unary evidence; Professor,Publication)|uwcse/forclift/convergencetest.mln|unary:uwcse/forclift/uwcse_fold1.db|Professor,Publication
WebKB forclift (corn; PageClassCourse)|webkb/forclift/webkb.mln|webkb/forclift/corn.db|PageClassCourse
WebKB forclift (corn, unary evidence; PageClassCourse)|webkb/forclift/webkb.mln|unary:webkb/forclift/corn.db|PageClassCourse
WebKB alchemy2 (no evidence; PageClass)|webkb/alchemy2/webkb.mln||PageClass
IMDB forclift (fold 1; workedUnder,actor)|imdb/forclift/formulas.mln|imdb/forclift/imdb_fold1.db|workedUnder,actor
IMDB forclift (fold 1, unary evidence; workedUnder,actor)|imdb/forclift/formulas.mln|unary:imdb/forclift/imdb_fold1.db|workedUnder,actor
LIST
} >"$out"
