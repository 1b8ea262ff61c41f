#!/usr/bin/env bash
# One measured run of Tuffy (Niu et al., VLDB 2011) on an MLN dataset, for
# the side-by-side figures of bench/realdata/TUFFY.md (issue 27).
#
# usage: bench/realdata/tuffy.sh MODE DIR OUTPREFIX [extra Tuffy options...]
#   MODE       map | marginal   (marginal adds -marginal: Tuffy's MC-SAT)
#   DIR        dataset directory holding prog.mln, evidence.db, query.db
#              (or set PROG, EVIDENCE, QUERYFILE / QUERY to other paths)
#   OUTPREFIX  written: OUTPREFIX.txt (Tuffy's answer), OUTPREFIX.log
#              (Tuffy's console, each line prefixed by seconds since start),
#              OUTPREFIX.json (the measurements below)
# environment:
#   TUFFY_JAR   an existing Tuffy build (default /work/ext/tuffy/tuffy.jar)
#   TUFFY_CONF  its tuffy.conf, pointing at a RUNNING PostgreSQL (default
#               /work/ext/tuffy/tuffy.conf)
#   PG_USER     the OS user the PostgreSQL server runs as (default postgres):
#               the CPU of all its processes (backends included, and the
#               exited ones through the postmaster's cutime/cstime) is read
#               from /proc before and after the run
#   JAVA        java binary (default java); JAVA_OPTS extra JVM options
#
# This script neither builds nor patches Tuffy. See TUFFY.md for how the
# measured installation was made.
#
# Measurements in OUTPREFIX.json: wall_s; java_cpu_s (user+sys of the java
# process and its threads, from /usr/bin/time); pg_cpu_s (PostgreSQL's CPU
# over the run, extra to java's); phase times (wall) from the timestamps of
# Tuffy's console lines: load_s (connect, parse, store evidence, KBMC: start
# -> ">>> Grounding..."), ground_s (">>> Grounding..." -> "### atoms = ..."),
# split into closure_s (-> ">>> Computing active clauses"), clauses_s (->
# ">>> Adding unit clauses") and consolidate_s; partition_s (-> ">>> Running
# ... inference"), infer_s (-> ">>> Writing answer"); Tuffy's own "### total
# grounding" line (-verbose 1);
# atoms, clauses, components as Tuffy prints them; cost (MAP: "Best answer
# has cost"; marginal: "Average Cost").
set -euo pipefail
mode=$1 dir=$2 out=$3
shift 3
jar=${TUFFY_JAR:-/work/ext/tuffy/tuffy.jar}
conf=${TUFFY_CONF:-/work/ext/tuffy/tuffy.conf}
pguser=${PG_USER:-postgres}
java=${JAVA:-java}
prog=${PROG:-$dir/prog.mln}
evid=${EVIDENCE:-$dir/evidence.db}
[ -f "$jar" ] || { echo "tuffy.sh: no Tuffy jar at $jar (set TUFFY_JAR)" >&2; exit 2; }
[ -f "$conf" ] || { echo "tuffy.sh: no tuffy.conf at $conf (set TUFFY_CONF)" >&2; exit 2; }
args=(-conf "$conf" -verbose 1 -i "$prog" -e "$evid" -r "$out.txt")
if [ -n "${QUERY:-}" ]; then args+=(-q "$QUERY"); else args+=(-queryFile "${QUERYFILE:-$dir/query.db}"); fi
case $mode in
map) ;;
marginal) args+=(-marginal) ;;
*) echo "tuffy.sh: MODE must be map or marginal" >&2; exit 2 ;;
esac
args+=("$@")

# pgcpu prints the CPU seconds used so far by every process of $pguser
# (utime+stime+cutime+cstime; the postmaster's cutime/cstime holds the CPU
# of the backends that have exited).
tck=$(getconf CLK_TCK)
pgcpu() {
	local uid sum=0 f
	uid=$(id -u "$pguser")
	for f in /proc/[0-9]*; do
		[ -r "$f/stat" ] || continue
		[ "$(stat -c %u "$f" 2>/dev/null)" = "$uid" ] || continue
		local s
		s=$(cat "$f/stat" 2>/dev/null) || continue
		s=${s##*) }
		# after "comm) ": field 3 is state; utime..cstime are fields 14..17
		set -- $s
		sum=$((sum + ${12} + ${13} + ${14} + ${15}))
	done
	echo "$sum"
}

mkdir -p "$(dirname "$out")"
p0=$(pgcpu)
t0=$(date +%s.%N)
tm=$(mktemp)
set +e
/usr/bin/time -f "%U %S %e %M" -o "$tm" "$java" ${JAVA_OPTS:-} -jar "$jar" "${args[@]}" 2>&1 |
	python3 -u -c '
import sys, time
t0 = float(sys.argv[1])
for line in sys.stdin:
    sys.stdout.write("%9.3f %s" % (time.time() - t0, line))
' "$t0" >"$out.log"
rc=${PIPESTATUS[0]}
set -e
p1=$(pgcpu)
read -r u s e m < <(tail -n 1 "$tm") || true  # first line may be "Command exited with ..."
rm -f "$tm"
python3 - "$out.log" "$rc" "$u" "$s" "$e" "$m" "$p0" "$p1" "$tck" "$mode" "$dir" "$out.txt" <<'EOF' >"$out.json"
import json, re, sys
log, rc, u, s, e, m, p0, p1, tck, mode, d, ans = sys.argv[1:]
lines = []
for l in open(log, errors="replace"):
    t, _, rest = l.lstrip(" ").partition(" ")
    try:
        lines.append((float(t), rest.rstrip("\n")))
    except ValueError:
        pass
def at(prefix):
    for t, l in lines:
        if l.startswith(prefix):
            return t
    return None
def num(pat):
    for _, l in lines:
        mm = re.search(pat, l)
        if mm:
            return mm.group(1).replace(",", "")
    return None
g, p, i, w = at(">>> Grounding..."), at(">>> Partitioning MRF"), at(">>> Running MAP") or at(">>> Running marginal"), at(">>> Writing answer")
ca, cl, su, na = at(">>> Computing active clauses"), at(">>> Grounding clauses"), at(">>> Adding unit clauses"), at("### atoms =")
end = lines[-1][0] if lines else None
def d_(a, b):
    return None if a is None or b is None else round(b - a, 3)
r = dict(dataset=d, mode=mode, rc=int(rc), answer=ans,
         wall_s=float(e) if e else None,
         java_cpu_s=round(float(u) + float(s), 2) if u else None,
         java_peak_mb=round(int(m) / 1024) if m else None,
         pg_cpu_s=round((int(p1) - int(p0)) / int(tck), 2),
         load_s=d_(0.0, g), ground_s=d_(g, na), closure_s=d_(g, ca), clauses_s=d_(ca, su),
         consolidate_s=d_(su, na), partition_s=d_(na, i), infer_s=d_(i, w), total_s=d_(0.0, w),
         total_grounding_line=num(r"### total grounding = (.*)"),
         atoms=num(r"### atoms = ([\d,]+); clauses"), clauses=num(r"### atoms = [\d,]+; clauses = ([\d,]+)"),
         components=num(r"### ([\d,]+) components?"),
         cost=num(r"(?:Best answer has cost|Average Cost) ([-\d.,]+)"),
         log_end_s=end)
if r["atoms"]: r["atoms"] = int(r["atoms"])
if r["clauses"]: r["clauses"] = int(r["clauses"])
errs = [l for _, l in lines if re.search(r"Exception|ERROR|Error", l)]
if errs: r["errors"] = errs[:5]
print(json.dumps(r))
EOF
cat "$out.json"
exit "$rc"
