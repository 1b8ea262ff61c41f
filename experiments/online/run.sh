#!/bin/sh
# Runs the online-learning experiments (issue 6) and writes their tables to
# experiments/online/*.out.md; results.md discusses them. About 10 minutes.
set -e
cd "$(dirname "$0")/../.."
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
go build -o "$D/gen" ./experiments/online/gen
go build -o "$D/fig12" ./experiments/online/fig12

# Enriched friends-and-smokers, 10 persons: 5 data sets sampled (Gibbs, 200
# sweeps, seed 1) from the weights written in smokers.mln.
"$D/gen" -i experiments/online/smokers.mln -n 5 -seed 1 -burnin 200 -o "$D/smokers"
# (a) every predicate is non-evidence (the paper's 140 variables).
"$D/fig12" -i experiments/online/smokers.mln -ne Friends,Smokes,Cancer,Stress,Treatment \
	-passes 5 -scg-iter 6 -batch-size 10 -step 0.2 \
	"$D"/smokers1.db "$D"/smokers2.db "$D"/smokers3.db "$D"/smokers4.db "$D"/smokers5.db \
	> experiments/online/smokers-all.out.md
# (b) Friends is evidence: asymmetric evidence, the setting where lifting the
# whole mega-example fails.
"$D/fig12" -i experiments/online/smokers.mln -ne Smokes,Cancer,Stress,Treatment \
	-passes 5 -scg-iter 6 -batch-size 10 -step 0.2 \
	"$D"/smokers1.db "$D"/smokers2.db "$D"/smokers3.db "$D"/smokers4.db "$D"/smokers5.db \
	> experiments/online/smokers-friends-evidence.out.md

# IMDB (Forclift's five folds), partially observed: 20% of the atoms of the
# non-evidence predicates hidden in each training fold; tested on the other
# (complete) folds.
I=../shared/data/mln/imdb/forclift
[ -d "$I" ] || I=/work/shared/data/mln/imdb/forclift
T=""
for i in 1 2 3 4 5; do
	"$D/gen" -i experiments/online/imdb.mln -from "$I/imdb_fold$i.db" -hide workedUnder,actor,director -frac 0.2 -seed "$i" -o "$D/imdb-train$i.db"
	T="$T${T:+,}$D/imdb-train$i.db"
done
mkdir -p "$D/logs"
"$D/fig12" -i experiments/online/imdb.mln -ne workedUnder,actor,director \
	-passes 3 -scg-iter 4 -batch-size 100 -step 0.05 -train-dbs "$T" -logs "$D/logs" \
	"$I"/imdb_fold1.db "$I"/imdb_fold2.db "$I"/imdb_fold3.db "$I"/imdb_fold4.db "$I"/imdb_fold5.db \
	> experiments/online/imdb.out.md
# The same IMDB curves against wall-clock seconds.
go run ./experiments/online/curves -logs "$D/logs" > experiments/online/imdb-seconds.out.md

