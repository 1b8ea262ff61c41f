#!/usr/bin/env bash
# Issue 39's figure: the real-data defaults (Cora and UW-CSE, map and
# infer) run R times as the machine is and R times beside H CPU hogs
# (busy shell loops); prints, per command, whether every output is byte
# for byte the same, the outputs' SHA-256 and the CPU seconds of each run.
#
#   bench/determinism/run.sh [-runs R] [-hogs H] [-only map|infer] LIFTED [DATA]
#
# LIFTED is a built binary (go build -o /tmp/lifted ./cmd/lifted); DATA is
# ../shared/data by default. No --seed: the defaults as a user runs them.
set -euo pipefail
runs=3 hogs=8 only=""
while [ $# -gt 0 ]; do
  case "$1" in
    -runs) runs=$2; shift 2 ;;
    -hogs) hogs=$2; shift 2 ;;
    -only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
lifted=${1:?usage: run.sh [-runs R] [-hogs H] [-only map|infer] LIFTED [DATA]}
data=${2:-../shared/data}
cora=$data/mln/cora-class/tuffy-class
uw=$data/mln/uwcse/tuffy-cse
[ -d "$cora" ] && [ -d "$uw" ] || { echo "run.sh: needs $cora and $uw (../shared/data)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

cases=(
  "map|Cora map|$cora/prog.mln -e $cora/evidence.db -q category"
  "map|UW-CSE map|$uw/prog.mln -e $uw/evidence.db -q advisedBy"
  "infer|UW-CSE infer|$uw/prog.mln -e $uw/evidence.db -q advisedBy"
  "infer|Cora infer|$cora/prog.mln -e $cora/evidence.db -q category"
)

# one run: output file, CPU seconds (user+sys of the child) on stdout
once() { # out args...
  local out=$1; shift
  /usr/bin/time -f "%U %S" -o "$out.time" "$lifted" "$@" --quiet >"$out" 2>"$out.err" || { echo "run.sh: $lifted $* failed: $(tail -2 "$out.err")" >&2; exit 1; }
  awk '{printf "%.2f", $1+$2}' "$out.time"
}

echo "| run | identical | SHA-256 (first 12) | CPU s as the machine is (load $(cut -d' ' -f1 /proc/loadavg)) | CPU s beside $hogs hogs |"
echo "|---|---|---|---|---|"
n=0
for c in "${cases[@]}"; do
  IFS='|' read -r cmd name args <<<"$c"
  [ -z "$only" ] || [ "$only" = "$cmd" ] || continue
  n=$((n+1))
  read -ra a <<<"$args"
  quiet=() loaded=()
  for i in $(seq "$runs"); do quiet+=("$(once "$tmp/$n.q$i" "$cmd" "${a[@]}")"); done
  for _ in $(seq "$hogs"); do (while :; do :; done) & done
  for i in $(seq "$runs"); do loaded+=("$(once "$tmp/$n.l$i" "$cmd" "${a[@]}")"); done
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  sums=$(sha256sum "$tmp/$n".[ql]* | grep -v '\.\(time\|err\)$' | awk '{print $1}' | sort -u)
  same=yes; [ "$(echo "$sums" | wc -l)" -eq 1 ] || same="NO ($(echo "$sums" | wc -l) different)"
  echo "| $name | $same, $((2*runs)) of $((2*runs)) | ${sums:0:12} | ${quiet[*]} | ${loaded[*]} |"
done
