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
# ONLY (default all): a comma-separated list of names to run.
# Each command is limited by TIMEOUT seconds (default 600; REFTIMEOUT for
# the reference runs, default 1200). Set QUICK=1 for short reference runs.
# RUNS (default 3): the default infer (with --allow-unconverged, so that an
# answer the default marks as not converged is printed and measured: its
# "converged" column says so) and map run that many times each;
# the table gives the median wall, CPU and peak memory, and the answer of
# the run with the median CPU time.
# REFDIR (default none): reference runs are kept there as NAME.ref.json and
# NAME.mwsS.json and reused when present (a reference made another way,
# e.g. bench/realdata/reference/, can be put there under the same name).
set -u
LIFTED=${1:?usage: run.sh LIFTED [DATA] [OUT.md]}
DATA=${2:-/work/shared/data}
OUT=${3:-$(dirname "$0")/last-run.md}
TIMEOUT=${TIMEOUT:-600}
REFTIMEOUT=${REFTIMEOUT:-1200}
RUNS=${RUNS:-3}
REFDIR=${REFDIR:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -n "$REFDIR" ] && mkdir -p "$REFDIR"
# REF_MCSAT, MWS_RUNS and MWS_ARGS may be set to override the reference runs.
if [ -n "${REF_MCSAT:-}" ]; then
  MWS_RUNS=${MWS_RUNS:-"1 2 3 4 5"}; MWS_ARGS=${MWS_ARGS:-"--method maxwalksat --tries 10 --max-flips 1000000"}
elif [ "${QUICK:-0}" = 1 ]; then
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

# refrun DATASET NAME ARGS...: a reference run, taken from REFDIR when it
# holds DATASET.NAME.json, else run and (with REFDIR) kept there.
refrun() {
  local ds=$1 name=$2; shift 2
  if [ -n "$REFDIR" ] && [ -s "$REFDIR/$ds.$name.json" ]; then
    cp "$REFDIR/$ds.$name.json" "$TMP/$name.json"; echo 0 >"$TMP/$name.rc"; : >"$TMP/$name.err"
    return
  fi
  T=$REFTIMEOUT run "$name" "$@"
  if [ -n "$REFDIR" ] && [ "$(cat "$TMP/$name.rc")" = 0 ]; then cp "$TMP/$name.json" "$REFDIR/$ds.$name.json"; fi
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
def runs(n):
    """the names n1..nR of the repeated runs that exist, else [n]"""
    import os
    rs = sorted((f[:-5] for f in os.listdir(tmp) if re.fullmatch(re.escape(n) + r"\d+\.time", f)), key=lambda x: int(x[len(n):]))
    return rs or [n]
def median_run(n):
    """the run of n with the median CPU time, and the medians of wall, CPU, MB over the runs"""
    rs = runs(n)
    ts = [(timing1(r), r) for r in rs]
    def num(x):
        try:
            return float(x)
        except Exception:
            return float("inf")
    ts.sort(key=lambda t: num(t[0][1]))
    mid = ts[(len(ts) - 1) // 2]
    med = lambda i: sorted((t[0][i] for t in ts), key=num)[(len(ts) - 1) // 2]
    return mid[1], med(0), med(1), med(2), len(rs)
def timing1(n):
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
def refnote(ref):
    """the reference's own accuracy: its largest stated standard error, and whether it mixed"""
    if not isinstance(ref, dict):
        return ""
    se = ref.get("std_errors")
    parts = []
    if isinstance(se, dict) and se:
        vals = [v for v in se.values() if isinstance(v, (int, float))]
        if vals:
            parts.append(f"ref. max s.e. {max(vals):.3f}")
    conv = field(ref, "converged")
    if conv is not None:
        parts.append("ref. mixed" if conv else "ref. NOT mixed")
    return "; " + ", ".join(parts) if parts else ""
if cmd == "infer":
    best, wall, cpu, mb, nruns = median_run("infer")
    d, ref = load(best), load("ref")
    q = "-"
    md = d.get("marginals") if isinstance(d, dict) else None
    mr = ref.get("marginals") if isinstance(ref, dict) else None
    if isinstance(md, dict) and isinstance(mr, dict):
        diffs = [abs(md[k] - mr[k]) for k in mr if k in md and isinstance(md[k], (int, float))]
        if diffs:
            q = f"mean {sum(diffs)/len(diffs):.4f}, max {max(diffs):.3f} ({len(diffs)} atoms){refnote(ref)}"
    elif mr is None:
        q = "no reference: " + err("ref")
    status = rc(best)
    if status != "0":
        status += ": " + err(best)
    se = d.get("std_errors") if isinstance(d, dict) else None
    sev = [v for v in se.values() if isinstance(v, (int, float))] if isinstance(se, dict) else []
    sed = f"{max(sev):.3f}" if sev else "-"
    print(f"| {nruns} | {wall} | {cpu} | {mb} | {fmt(field(d, 'method'))} | {fmt(field(d, 'converged'))} | {sed} | {q} | {status} |")
else:
    best_run, wall, cpu, mb, nruns = median_run("map")
    d = load(best_run)
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
    status = rc(best_run)
    if status != "0":
        status += ": " + err(best_run)
    print(f"| {nruns} | {wall} | {cpu} | {mb} | {fmt(field(d, 'method'))} | {fmt(obj, 12)} | {fmt(field(d, 'bound'), 12)} | {fmt(field(d, 'gap'))} | {fmt(hist)} | {q} | {status} |")
PYEOF
}

{
  echo "Generated by bench/realdata/run.sh $LIFTED on $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs."
  echo "Reference marginals: \`$REF_MCSAT\` unless REFDIR held another (REFDIR=${REFDIR:-none}). MAP reference: best of seeds $MWS_RUNS of \`$MWS_ARGS\`."
  echo "Runs per default command: $RUNS (medians; the answer shown is the median-CPU run's)."
  echo
  echo "### infer (default method)"
  echo
  echo "| dataset | runs | wall s | CPU s | peak MB | method | converged | max stated s.e. | abs. difference vs reference | exit |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$OUT"
MAPROWS=$TMP/maprows
: >"$MAPROWS"
echo "$DATASETS" | while IFS='|' read -r name mlnf db q; do
  [ -z "$name" ] && continue
  if [ -n "${ONLY:-}" ] && ! echo ",$ONLY," | grep -q ",$name,"; then continue; fi
  [ -f "$mlnf" ] || { echo "skip $name: $mlnf missing" >&2; continue; }
  rm -f "$TMP"/*.json "$TMP"/*.err "$TMP"/*.time "$TMP"/*.rc
  echo "== $name" >&2
  # the repeated runs alternate infer and map
  for r in $(seq 1 "$RUNS"); do
    T=$TIMEOUT run "infer$r" infer "$mlnf" -e "$db" -q "$q" $(extra "$name") --seed 1 --allow-unconverged
    T=$TIMEOUT run "map$r" map "$mlnf" -e "$db" -q "$q" $(extra "$name") --seed 1
  done
  refrun "$name" ref infer "$mlnf" -e "$db" -q "$q" $(extra "$name") $REF_MCSAT
  echo "| $name $(py infer "$TMP")" >>"$OUT"
  names=""
  for s in $MWS_RUNS; do
    refrun "$name" "mws$s" map "$mlnf" -e "$db" -q "$q" $(extra "$name") $MWS_ARGS --seed "$s"
    names="$names mws$s"
  done
  echo "| $name $(py map "$TMP" $names)" >>"$MAPROWS"
done
{
  echo
  echo "### map (default method)"
  echo
  echo "| dataset | runs | wall s | CPU s | peak MB | method | objective | bound | gap | components | objective − best MaxWalkSAT | exit |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  cat "$MAPROWS"
} >>"$OUT"
echo "wrote $OUT" >&2
