#!/usr/bin/env bash
# scale.sh — how grounding, MAP and marginal inference grow with the data:
# a dataset's domain replicated k times (./replicate: fresh constants per
# replica, the evidence copied into each, a few cross-replica links), then
# per k: the grounder alone (./groundsize: its prediction, the ground
# formulas, the bytes the ground network holds per ground formula), and
# `lifted map` and `lifted infer` at their defaults; each with wall and
# CPU seconds and peak resident memory (/usr/bin/time -v).
#
#   bench/scale/scale.sh [-k "1 10 100"] [-only uwcse|cora] [-cap BYTES] [-timeout S] [OUT_DIR]
#
# -cap BYTES runs every program under `prlimit --as=BYTES` (address space),
# so one that outgrows it fails instead of taking the machine; Go reserves
# address space beyond what it uses, so leave a margin. A grounding over
# the memory-sized limit is refused by lifted before the work, with its
# predicted size: the table shows that message.
set -euo pipefail
ks="1 10 100"
only=
cap=
limit=1800
while [ $# -gt 0 ]; do
	case $1 in
	-k) ks=$2; shift 2 ;;
	-only) only=$2; shift 2 ;;
	-cap) cap=$2; shift 2 ;;
	-timeout) limit=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
data=${DATA:-$repo/../shared/data}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
(cd "$repo" && go build -o "$out/lifted" ./cmd/lifted && go build -o "$out/replicate" ./bench/scale/replicate && go build -o "$out/groundsize" ./bench/scale/groundsize)

# name, program, evidence, query predicate
datasets=("uwcse mln/uwcse/tuffy-cse/prog.mln mln/uwcse/tuffy-cse/evidence.db advisedBy"
	"cora mln/cora-class/tuffy-class/prog.mln mln/cora-class/tuffy-class/evidence.db category")

# measure NAME CMD...: "wall_s cpu_s peak_MB status" of one run; output in $out/NAME.{out,err}
measure() {
	local name=$1 rc=0
	shift
	local pre=(timeout "$limit")
	[ -n "$cap" ] && pre=(prlimit --as="$cap" "${pre[@]}")
	/usr/bin/time -v -o "$out/$name.time" "${pre[@]}" "$@" >"$out/$name.out" 2>"$out/$name.err" || rc=$?
	awk -v rc="$rc" -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i]}
		/User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {m = $2}
		END {printf "%.1f %.1f %.0f %s", w, u + s, m / 1024, rc == 0 ? "ok" : (rc == 124 ? "timeout" : "failed")}' "$out/$name.time"
}

printf '| dataset | k | predicted formulas | ground formulas | bytes / ground formula | ground wall s / CPU s / peak MB | map wall s / CPU s / peak MB | infer wall s / CPU s / peak MB |\n|---|---|---|---|---|---|---|---|\n'
for d in "${datasets[@]}"; do
	set -- $d
	name=$1 prog=$data/$2 ev=$data/$3 q=$4
	[ -n "$only" ] && [ "$only" != "$name" ] && continue
	for k in $ks; do
		db=$out/$name-$k.db
		"$out/replicate" -k "$k" -mln "$prog" -db "$ev" >"$db"
		g=$(measure "$name-$k-ground" "$out/groundsize" -mln "$prog" -db "$db" -q "$q")
		pred=$(sed -n 's/^predicted formulas \([0-9]*\).*/\1/p' "$out/$name-$k-ground.out")
		nf=$(sed -n 's/.* formulas \([0-9]*\) factors.*/\1/p' "$out/$name-$k-ground.out")
		bpf=$(sed -n 's/.*bytes_per_formula \([0-9.]*\).*/\1/p' "$out/$name-$k-ground.out")
		[ -n "$nf" ] || { nf="refused: $(tail -1 "$out/$name-$k-ground.err" | cut -c1-160)"; bpf=-; }
		m=$(measure "$name-$k-map" "$out/lifted" map "$prog" -e "$db" -q "$q")
		i=$(measure "$name-$k-infer" "$out/lifted" infer "$prog" -e "$db" -q "$q")
		st() { local f=$2; set -- $1; if [ "$4" = ok ]; then echo "$1 / $2 / $3"; else echo "$4 ($1 / $2 / $3): $(tail -1 "$out/$f.err" | cut -c1-140)"; fi; }
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$k" "${pred:--}" "$nf" "$bpf" \
			"$(st "$g" "$name-$k-ground")" "$(st "$m" "$name-$k-map")" "$(st "$i" "$name-$k-infer")"
	done
done
echo "outputs in $out"
