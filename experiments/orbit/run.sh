#!/usr/bin/env bash
# Pure-Go vs nauty automorphism orbits, side by side in one run: grids,
# tori and the 2-star MLN grounding (plus renaming orbits on the 2-star).
# Needs Debian's libnauty2-dev. Prints each benchmark's median of `count`
# runs (default 5) and the nauty/go ratio of medians.
# Usage: experiments/orbit/run.sh [count]   (or pipe saved output to: run.sh -)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = - ]; then cat; else
  go test -tags nauty -run '^$' -bench . -benchtime 1x -count "${1:-5}" ./lift/orbit/
fi | grep '^Benchmark' |
  awk '{ n = $1; sub(/-[0-9]+$/, "", n); print n, $3 }' | sort -k1,1 -k2,2n |
  awk '{ c[$1]++; v[$1, c[$1]] = $2 }
       END {
         for (n in c) med[n] = v[n, int((c[n] + 1) / 2)]
         for (n in c) printf "%-30s median %10.1f ms (%d runs)\n", n, med[n] / 1e6, c[n]
         for (n in c) if (n ~ /\/go$/) {
           b = n; sub(/\/go$/, "/nauty", b)
           if (b in med) printf "%-30s nauty/go = %.2f\n", substr(n, 1, length(n) - 3) " ratio", med[b] / med[n]
         }
       }' | sort
