#!/usr/bin/env bash
# bench/realdata/run.sh LIFTED [DATA] [OUT.md]
#
# Runs a `lifted` binary (any version: the JSON is read defensively, a field
# that is missing prints "-") over every real MLN dataset in DATA/mln with a
# query set, and writes a markdown table (default bench/realdata/last-run.md):
#   - default `lifted infer` and default `lifted map`: wall s, CPU s (user +
#     sys) and peak RSS MB from /usr/bin/time -v, exit status, method, and for
#     map the objective, bound, gap and the component histogram when the JSON
#     has them (top level or under "stats");
#   - quality of the marginals: mean and max absolute difference against a
#     reference run made by the same binary, `--method mcsat` with 8 chains x
#     20000 samples, 2000 burn-in, seed 7 (stated in the table; exact only up
#     to MC-SAT's error, about 1/sqrt(ESS));
#   - quality of the MAP world: its objective minus the best objective of 5
#     long MaxWalkSAT runs (`--method maxwalksat --tries 10 --max-flips
#     1000000`, seeds 1..5), all read from the same JSON field.
# Each command is limited by TIMEOUT seconds (default 600; REFTIMEOUT for
# the reference runs, default 1200). Set QUICK=1 for short reference runs.
set -u
LIFTED=${1:?usage: run.sh LIFTED [DATA] [OUT.md]}
DATA=${2:-/work/shared/data}
OUT=${3:-$(dirname "$0")/last-run.md}
TIMEOUT=${TIMEOUT:-600}
REFTIMEOUT=${REFTIMEOUT:-1200}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ "${QUICK:-0}" = 1 ]; then
  REF_MCSAT="--method mcsat --chains 2 --samples 2000 --burn-in 200 --seed 7"
  MWS_RUNS="1 2"; MWS_ARGS="--method maxwalksat --tries 2 --max-flips 200000"
else
  REF_MCSAT="--method mcsat --chains 8 --samples 20000 --burn-in 2000 --seed 7"
  MWS_RUNS="1 2 3 4 5"; MWS_ARGS="--method maxwalksat --tries 10 --max-flips 1000000"
fi
M=$DATA/mln
# name | mln | evidence | query
DATASETS="
uwcse-tuffy|$M/uwcse/tuffy-cse/prog.mln|$M/uwcse/tuffy-cse/evidence.db|advisedBy
cora-tuffy|$M/cora-class/tuffy-class/prog.mln|$M/cora-class/tuffy-class/evidence.db|category
rc1000-tuffy|$M/rc1000/tuffy-rc1000/prog.mln|$M/rc1000/tuffy-rc1000/evidence.db|category
webkb-corn|$M/webkb/forclift/webkb.mln|$M/webkb/forclift/corn.db|PageClassCourse,PageClassFaculty,PageClassStudent
imdb-all|$M/imdb/forclift/formulas.mln|$M/imdb/forclift/imdb.all.db|workedUnder
protein-yeast1|$M/protein/alchemy2/protein.mln|$M/protein/lsm-train/yeast.1.db|function
caviar-fold0|$M/caviar-meet/lomrf-DN-HI/fold_0/meet_trained_func.mln|$M/caviar-meet/lomrf-DN-HI/fold_0/21-Meet_WalkSplit.id1_id3.db|HoldsAt
"
# Forclift's webkb and imdb programs have no weights: they get 1.
extra() { case $1 in webkb-*|imdb-*) echo "--default-weight 1";; esac; }

# run NAME ARGS...: runs lifted with a timeout under /usr/bin/time -v;
# NAME.json, NAME.err, NAME.time
run() {
  local name=$1; shift
  /usr/bin/time -v -o "$TMP/$name.time" timeout "$T" "$LIFTED" "$@" --output-format json >"$TMP/$name.json" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}

py() { python3 - "$@" <<'PYEOF'
import json, math, re, sys
cmd, tmp = sys.argv[1], sys.argv[2]
def load(n):
    try:
        return json.load(open(f"{tmp}/{n}.json"))
    except Exception:
        return None
def field(d, *names):
    if not isinstance(d, dict):
        return None
    for src in (d, d.get("stats") if isinstance(d.get("stats"), dict) else {}):
        for n in names:
            if n in src and src[n] is not None:
                return src[n]
    return None
def timing(n):
    try:
        t = open(f"{tmp}/{n}.time").read()
    except Exception:
        return "-", "-", "-"
    def g(p):
        m = re.search(p, t)
        return m.group(1) if m else None
    u, s, rss, el = g(r"User time \(seconds\): ([\d.]+)"), g(r"System time \(seconds\): ([\d.]+)"), g(r"Maximum resident set size \(kbytes\): (\d+)"), g(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)")
    wall = "-"
    if el:
        parts = [float(x) for x in el.split(":")]
        w = 0.0
        for x in parts:
            w = w * 60 + x
        wall = f"{w:.1f}"
    cpu = f"{float(u)+float(s):.1f}" if u and s else "-"
    mb = f"{int(rss)/1024:.0f}" if rss else "-"
    return wall, cpu, mb
def rc(n):
    try:
        return open(f"{tmp}/{n}.rc").read().strip()
    except Exception:
        return "-"
def fmt(x, p=6):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{p}g}"
    if isinstance(x, (dict, list)):
        return json.dumps(x, separators=(",", ":")).replace("|", "/")[:80]
    return str(x).replace("|", "/")
def objective(d):
    return field(d, "objective", "log_score", "score")
def err(n):
    try:
        lines = [l for l in open(f"{tmp}/{n}.err").read().splitlines() if l.strip()]
        return lines[-1].replace("|", "/")[:100] if lines else ""
    except Exception:
        return ""
if cmd == "infer":
    d, ref = load("infer"), load("ref")
    wall, cpu, mb = timing("infer")
    q = "-"
    md = d.get("marginals") if isinstance(d, dict) else None
    mr = ref.get("marginals") if isinstance(ref, dict) else None
    if isinstance(md, dict) and isinstance(mr, dict):
        diffs = [abs(md[k] - mr[k]) for k in mr if k in md and isinstance(md[k], (int, float))]
        if diffs:
            q = f"mean {sum(diffs)/len(diffs):.4f}, max {max(diffs):.3f} ({len(diffs)} atoms)"
    elif mr is None:
        q = "no reference: " + err("ref")
    status = rc("infer")
    if status != "0":
        status += ": " + err("infer")
    print(f"| {wall} | {cpu} | {mb} | {fmt(field(d, 'method'))} | {fmt(field(d, 'converged'))} | {q} | {status} |")
else:
    d = load("map")
    wall, cpu, mb = timing("map")
    obj = objective(d)
    best = None
    for n in sys.argv[3:]:
        o = objective(load(n))
        if isinstance(o, (int, float)) and (best is None or o > best):
            best = o
    q = "-"
    if isinstance(obj, (int, float)) and best is not None:
        q = f"{obj - best:+.4g} (best MWS {best:.10g})"
    elif best is not None:
        q = f"best MWS {best:.10g}"
    hist = field(d, "components", "component_histogram", "component_sizes")
    status = rc("map")
    if status != "0":
        status += ": " + err("map")
    print(f"| {wall} | {cpu} | {mb} | {fmt(field(d, 'method'))} | {fmt(obj, 12)} | {fmt(field(d, 'bound'), 12)} | {fmt(field(d, 'gap'))} | {fmt(hist)} | {q} | {status} |")
PYEOF
}

{
  echo "Generated by bench/realdata/run.sh $LIFTED on $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs."
  echo "Reference marginals: \`$REF_MCSAT\`. MAP reference: best of seeds $MWS_RUNS of \`$MWS_ARGS\`."
  echo
  echo "### infer (default method)"
  echo
  echo "| dataset | wall s | CPU s | peak MB | method | converged | abs. difference vs reference | exit |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$OUT"
MAPROWS=$TMP/maprows
: >"$MAPROWS"
echo "$DATASETS" | while IFS='|' read -r name mlnf db q; do
  [ -z "$name" ] && continue
  [ -f "$mlnf" ] || { echo "skip $name: $mlnf missing" >&2; continue; }
  rm -f "$TMP"/*.json "$TMP"/*.err "$TMP"/*.time "$TMP"/*.rc
  echo "== $name" >&2
  T=$TIMEOUT run infer infer "$mlnf" -e "$db" -q "$q" $(extra "$name")
  T=$REFTIMEOUT run ref infer "$mlnf" -e "$db" -q "$q" $(extra "$name") $REF_MCSAT
  echo "| $name $(py infer "$TMP")" >>"$OUT"
  T=$TIMEOUT run map map "$mlnf" -e "$db" -q "$q" $(extra "$name")
  names=""
  for s in $MWS_RUNS; do
    T=$REFTIMEOUT run "mws$s" map "$mlnf" -e "$db" -q "$q" $(extra "$name") $MWS_ARGS --seed "$s"
    names="$names mws$s"
  done
  echo "| $name $(py map "$TMP" $names)" >>"$MAPROWS"
done
{
  echo
  echo "### map (default method)"
  echo
  echo "| dataset | wall s | CPU s | peak MB | method | objective | bound | gap | components | objective − best MaxWalkSAT | exit |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  cat "$MAPROWS"
} >>"$OUT"
echo "wrote $OUT" >&2
