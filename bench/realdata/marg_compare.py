#!/usr/bin/env python3
"""Summarise marg_run.sh output: medians of CPU (user+sys) and wall seconds,
method, reason, component histogram, and the mean / max absolute difference
of each run's marginals against a reference run's (a JSON of `lifted infer`).

usage: marg_compare.py OUTDIR TAG DATASET [REFERENCE.json]"""
import glob, json, statistics, sys

out, tag, ds = sys.argv[1:4]
ref = json.load(open(sys.argv[4]))["marginals"] if len(sys.argv) > 4 else None
cpu, wall = [], []
for t in sorted(glob.glob(f"{out}/{tag}-{ds}-*.time")):
    u, s, w = map(float, open(t).read().split()[-3:])
    cpu.append(u + s)
    wall.append(w)
print(f"{tag} {ds}: runs {len(cpu)}, CPU s median {statistics.median(cpu):.2f} {cpu}, wall s median {statistics.median(wall):.2f}")
js = sorted(glob.glob(f"{out}/{tag}-{ds}-*.json"))
d = json.load(open(js[0]))
st = d["stats"]
print("  method:", d["method"], "| converged:", d["converged"], "| log Z kind:", d.get("log_z_kind"))
print("  reason:", d["method_reason"])
print("  components:", st.get("components"), "exact:", st.get("exact_components"), "sizes:", st.get("component_sizes"))
if ref:
    for j in js:
        m = json.load(open(j))["marginals"]
        diffs = [abs(m[k] - ref[k]) for k in ref]
        print(f"  {j.split('/')[-1]}: vs reference, {len(diffs)} atoms: mean |diff| {statistics.mean(diffs):.4g}, max {max(diffs):.4g}")
