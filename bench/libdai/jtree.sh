#!/usr/bin/env bash
# jtree.sh — lifted's junction tree (--method jtree) against libDAI's JTree
# on the UAI 2014 models of ../shared/data/uai, side by side: CPU seconds
# (user + sys of the whole process: reading the .fg included on both
# sides), medians of ROUNDS runs taken in turn, the ratio libDAI/lifted
# (> 1: lifted faster), the largest |marginal difference| and |Δ log Z|.
#
#   bench/libdai/jtree.sh [-rounds N] [-base BIN] LIBDAI_DIR [OUT_DIR]
#
# -base BIN adds columns for another lifted binary (e.g. main before a
# change), run in turn with the other two: its CPU seconds and
# libDAI/base.
#
# LIBDAI_DIR is a built libDAI checkout (lib/libdai.a, include/; WITH_JTREE,
# no DEBUG). Both programs read the same .fg, written by ./tofg with the
# .evid evidence multiplied in as indicator factors (so neither clamps
# evidence: the tables are the same size). libDAI: JTree HUGIN, MINFILL,
# SUMPROD (linear domain); lifted: --method jtree with --prop max-table=2^26
# (PROPS overrides; a model over the limits shows as "refused"), since
# libDAI has no such limit. MODELS overrides the model list (CSP_11 is left
# out by default: its min-fill order needs a 2^27-entry, 1 GiB table).
set -euo pipefail

rounds=3
base=
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift 2 ;;
	-base) base=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
	-h|--help) sed -n '2,25p' "$0"; exit 0 ;;
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
props=${PROPS:-max-table=67108864}
models=${MODELS:-"Grids_11 Grids_12 Pedigree_11 Promedus_11 Promedus_14 Segmentation_11 Segmentation_12 ObjectDetection_11 Alchemy_11 DBN_11"}

(cd "$repo" && go build -o "$out/lifted" ./cmd/lifted && go build -o "$out/tofg" ./bench/libdai/tofg)
g++ -O3 -w -I"$dai/include" -DDAI_WITH_BP -DDAI_WITH_GIBBS -DDAI_WITH_JTREE -o "$out/dai_bench" "$here/dai_bench.cpp" \
	-L"$dai/lib" -ldai -lgmpxx -lgmp

cpu() { # CMD...: user + sys seconds, or "fail"; output in $out/last
	if /usr/bin/time -f "%U %S" -o "$out/time" "$@" > "$out/last" 2> "$out/last.err"; then
		awk '{printf "%.3f", $1 + $2}' "$out/time"
	else
		echo fail
	fi
}
median() { tr ' ' '\n' | grep . | sort -g | awk '/fail/ {f = 1} {a[NR]=$1} END {print f ? "fail" : a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "-"; else printf "%.2f", a / b}'; }

if [ -n "$base" ]; then
	printf "| model | libDAI s | lifted s | libDAI/lifted | max |Δ marginal| | |Δ log Z| | treewidth (lifted) | base s | libDAI/base |\n|---|---|---|---|---|---|---|---|---|\n"
else
	printf "| model | libDAI s | lifted s | libDAI/lifted | max |Δ marginal| | |Δ log Z| | treewidth (lifted) |\n|---|---|---|---|---|---|---|\n"
fi
for m in $models; do
	[ -f "$data/uai/$m.uai" ] || continue
	ev=()
	[ -f "$data/uai/$m.uai.evid" ] && ev=("$data/uai/$m.uai.evid")
	"$out/tofg" "$data/uai/$m.uai" "${ev[@]}" > "$out/$m.fg"
	td=() tl=() tb=()
	for _ in $(seq "$rounds"); do
		td+=("$(cpu "$out/dai_bench" jtree "$out/$m.fg")")
		[ "${td[-1]}" != fail ] && cp "$out/last" "$out/$m.dai"
		tl+=("$(cpu "$out/lifted" infer --method jtree --prop "$props" --quiet --output-format json "$out/$m.fg")")
		if [ "${tl[-1]}" != fail ]; then cp "$out/last" "$out/$m.lifted"; else cp "$out/last.err" "$out/$m.lifted.err"; fi
		if [ -n "$base" ]; then
			tb+=("$(cpu "$base" infer --method jtree --prop "$props" --quiet --output-format json "$out/$m.fg")")
		fi
	done
	md=$(echo "${td[@]}" | median)
	ml=$(echo "${tl[@]}" | median)
	agree=- dz=- tw=-
	if [ "$md" != fail ] && [ "$ml" != fail ]; then
		agree=$(python3 "$here/agree.py" "$out/$m.dai" "$out/$m.lifted")
		dz=$(python3 -c 'import json, sys
d = float(open(sys.argv[1]).readline().split()[3]); l = json.load(open(sys.argv[2]))["log_z"]
print("%.0e" % abs(d - l))' "$out/$m.dai" "$out/$m.lifted")
	fi
	if [ "$ml" != fail ]; then
		tw=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["stats"]; print(s.get("treewidth", "?"))' "$out/$m.lifted")
	else
		ml="refused"
		grep -q "exceeds the limit" "$out/$m.lifted.err" || ml="fail"
		tw=$(grep -o "treewidth at least [0-9]*" "$out/$m.lifted.err" | head -1 | sed 's/treewidth //')
	fi
	if [ -n "$base" ]; then
		mb=$(echo "${tb[@]}" | median)
		[ "$mb" = fail ] && mb=refused/fail
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" "$m" "$md" "$ml" "$(ratio "$md" "$ml")" "$agree" "$dz" "$tw" "$mb" "$(ratio "$md" "$mb")"
	else
		printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$m" "$md" "$ml" "$(ratio "$md" "$ml")" "$agree" "$dz" "$tw"
	fi
done
echo "ratio: libDAI CPU seconds / lifted CPU seconds (median of $rounds); outputs in $out"
