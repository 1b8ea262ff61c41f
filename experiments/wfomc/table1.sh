#!/usr/bin/env bash
# Experiment (b) of issue 5: a Table 1-style comparison of exact lifted
# weight learning (LWL) and pseudo-likelihood learning (PLL), by test-set
# log-likelihood under leave-one-fold-out cross-validation on UW-CSE, IMDB
# and WebKB (Van den Broeck, Meert and Davis, "Lifted generative parameter
# learning", 2013). Both learners see the same structure and training folds
# (each fold its own database and domain); the held-out fold is always
# scored exactly, with WFOMC (lifted loglik).
#
# Usage: experiments/wfomc/table1.sh [OUT.md]   (default: print to stdout)
# Environment: DATA (default ../shared/data/mln next to the repository).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=${DATA:-$(cd "$root/.." && pwd)/shared/data/mln}
out=${1:-/dev/stdout}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && go build -o "$tmp/lifted" ./cmd/lifted)
lifted="$tmp/lifted"

folds() {
	case $1 in
	uwcse) ls "$data"/uwcse/forclift/uwcse_fold[1-5].db ;;
	imdb) ls "$data"/imdb/forclift/imdb_fold[1-5].db ;;
	webkb) ls "$data"/webkb/forclift-webkb2/fold[1-4].db ;;
	esac
}

now() { date +%s.%N; }

{
	echo "| dataset | test fold | training folds | PLL test log-lik | LWL test log-lik | LWL − PLL | PLL s | LWL s | LWL iterations |"
	echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
	for ds in uwcse imdb webkb; do
		model="$here/models/$ds.mln"
		# Keep the atoms of the predicates the structure declares: the others
		# would only add the same constant (their free atoms) to every
		# log-likelihood.
		preds=$(grep -oE '^[A-Za-z_]+\(' "$model" | tr -d '(' | sort -u | paste -sd'|')
		mkdir -p "$tmp/$ds"
		for f in $(folds $ds); do
			grep -E "^[[:space:]]*($preds)\(" "$f" >"$tmp/$ds/$(basename "$f")"
		done
		all=("$tmp/$ds"/*.db)
		for test in "${all[@]}"; do
			train=()
			for f in "${all[@]}"; do [[ $f != "$test" ]] && train+=("$f"); done
			tr=$(IFS=,; echo "${train[*]}")
			declare -A ll secs
			iters=
			for m in pll lwl; do
				t0=$(now)
				log=$("$lifted" learn --method $m -i "$model" -t "$tr" -o "$tmp/$m.mln" 2>&1 >/dev/null | tr '\r' '\n' | tail -1)
				secs[$m]=$(echo "$(now) - $t0" | bc)
				[[ $m == lwl ]] && iters=$(echo "$log" | grep -oE '[0-9]+ iterations' | cut -d' ' -f1)
				ll[$m]=$("$lifted" loglik "$tmp/$m.mln" "$test" | cut -f1)
			done
			diff=$(echo "${ll[lwl]} - (${ll[pll]})" | bc -l)
			printf "| %s | %s | %d | %.1f | %.1f | %+.1f | %.2f | %.2f | %s |\n" "$ds" "$(basename "$test" .db)" "${#train[@]}" \
				"${ll[pll]}" "${ll[lwl]}" "$diff" "${secs[pll]}" "${secs[lwl]}" "$iters"
		done
	done
} >"$out"
