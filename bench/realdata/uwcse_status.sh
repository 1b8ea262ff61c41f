#!/bin/sh
# Issue 35's UW-CSE figures: the default `lifted infer` and the samplers,
# each run's per-atom statuses checked against the reference
# (bench/realdata/uwref, reference/uwcse-advisedBy.json.gz) by
# marg_status.py. CPU s from /usr/bin/time (user + sys) beside each JSON.
#
#   sh bench/realdata/uwcse_status.sh LIFTED OUTDIR [SEED]
set -e
bin=$1; out=$2; seed=${3:-1}
data=${DATA:-/work/shared/data/mln/uwcse/tuffy-cse}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
run() {
	tag=$1; shift
	/usr/bin/time -f "%U %S %e" -o "$out/$tag.time" "$bin" infer "$data/prog.mln" -e "$data/evidence.db" -q advisedBy \
		--output-format json --seed "$seed" --quiet "$@" > "$out/$tag.json" || echo "$tag: exit $?" >&2
}
run default
s="--chains 4 --samples 300 --burn-in 100 --allow-unconverged"
run gibbs --method gibbs $s
run gibbs-pairs-off --method gibbs --prop pairs=off $s
run bgibbs --method bgibbs $s
run mcsat --method mcsat $s
python3 "$here/marg_status.py" "$here/reference/uwcse-advisedBy.json.gz" "$out"/*.json
