#!/usr/bin/env python3
"""MAP on the real datasets, side by side in one run, medians of 3.

usage: bench/realdata/map_bench.py NEW_LIFTED OLD_LIFTED [RUNS]

NEW_LIFTED is this branch's binary (go build -o /tmp/new-lifted ./cmd/lifted),
OLD_LIFTED the binary of the commit before (maxwalksat without blocks, stars
and components). For each dataset and configuration it runs the command RUNS
times (default 3), interleaved, and prints the median CPU seconds (user+sys
of the process, grounding included) and the median objective, bound and gap
(the objective on the scale sum w*n(x): the JSON "objective", or
stats.objective for binaries that print only that)."""
import json, os, statistics, subprocess, sys, tempfile

new, old = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
data = "/work/shared/data/mln"
sets = [
    ("UW-CSE", f"{data}/uwcse/tuffy-cse", "advisedBy"),
    ("Cora", f"{data}/cora-class/tuffy-class", "category"),
]
configs = [
    ("map-auto (default: 8 s wall)", new, ["--method", "map-auto"]),
    ("map-auto, --time-limit 60s", new, ["--method", "map-auto", "--time-limit", "60s"]),
    ("maxwalksat, new", new, ["--method", "maxwalksat"]),
    ("maxwalksat, old", old, ["--method", "maxwalksat"]),
]

def run(binary, d, q, extra):
    with tempfile.NamedTemporaryFile() as out, tempfile.NamedTemporaryFile() as tm:
        cmd = ["/usr/bin/time", "-f", "%U %S %e", "-o", tm.name, binary, "map", "prog.mln",
               "-e", "evidence.db", "-q", q, "--output-format", "json", "--seed", "1", "--quiet", "-o", out.name] + extra
        subprocess.run(cmd, cwd=d, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        u, s, e = map(float, open(tm.name).read().split()[-3:])
        js = json.load(open(out.name))
    st = js.get("stats", {})
    obj = js.get("objective", st.get("objective"))
    return dict(cpu=u + s, wall=e, obj=obj, bound=js.get("bound"), gap=js.get("gap"),
                comps=st.get("components"), exact=st.get("exact_components"))

for name, d, q in sets:
    res = {c[0]: [] for c in configs}
    for _ in range(runs):
        for label, binary, extra in configs:
            res[label].append(run(binary, d, q, extra))
    print(f"\n{name} ({q}), medians of {runs}")
    print("| method | CPU s | wall s | objective | bound | gap | components (proved) |")
    print("|---|---|---|---|---|---|---|")
    for label, _, _ in configs:
        rs = res[label]
        med = lambda k: statistics.median([r[k] for r in rs]) if all(r[k] is not None for r in rs) else None
        f = lambda x, p: "—" if x is None else f"{x:.{p}f}"
        comps = "—" if rs[0]["comps"] is None else f"{rs[0]['comps']} ({rs[0]['exact'] or 0})"
        print(f"| {label} | {f(med('cpu'),2)} | {f(med('wall'),2)} | {f(med('obj'),3)} | {f(med('bound'),3)} | {f(med('gap'),3)} | {comps} |")
