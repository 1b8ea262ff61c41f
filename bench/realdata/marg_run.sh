#!/bin/sh
# usage: marg_run.sh BINARY TAG RUNS OUTDIR [extra lifted flags...]
# Runs the default `lifted infer` on UW-CSE and Cora RUNS times each, writing
# OUTDIR/TAG-DATASET-I.json and OUTDIR/TAG-DATASET-I.time (user sys wall).
set -e
bin=$1; tag=$2; runs=$3; out=$4; shift 4
d=/work/shared/data/mln
for i in $(seq 1 "$runs"); do
  for ds in uwcse:uwcse/tuffy-cse:advisedBy cora:cora-class/tuffy-class:category; do
    name=${ds%%:*}; rest=${ds#*:}; dir=${rest%%:*}; q=${rest#*:}
    /usr/bin/time -f "%U %S %e" -o "$out/$tag-$name-$i.time" \
      "$bin" infer "$d/$dir/prog.mln" -e "$d/$dir/evidence.db" -q "$q" --output-format json --seed 1 "$@" \
      > "$out/$tag-$name-$i.json"
  done
done
