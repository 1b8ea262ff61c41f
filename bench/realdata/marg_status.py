#!/usr/bin/env python3
"""Per-atom statuses of `lifted infer` runs (JSON) checked against a
reference (gzipped JSON with marginals and std_errors, as
bench/realdata/uwref writes), for issue 35's UW-CSE figures.

usage: marg_status.py REFERENCE RUN.json [RUN.json ...]

Per run: CPU s (from RUN.time beside it when present: user sys wall), the
count of each status, mean and max |p - p_ref| over all atoms and over the
mixed ones, how many mixed atoms lie beyond 4 * sqrt(se^2 + se_ref^2) of the
reference ("false mixed"), and how many unresolved intervals [lo, hi] miss
the reference by more than 2 se_ref ("intervals missing"). A run without
statuses (an explicit --method) counts every atom by its run-level label."""
import gzip, json, math, os, re, sys


def norm(k):
    return re.sub(r"\s+", "", k).replace('"', "")


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


ref = load(sys.argv[1])
rm = {norm(k): v for k, v in ref["marginals"].items()}
rse = {norm(k): v for k, v in (ref.get("std_errors") or {}).items()}
print(f"reference {sys.argv[1]}: {len(rm)} atoms, largest s.e. {max(rse.values(), default=0):.4g}")
for path in sys.argv[2:]:
    d = load(path)
    m = {norm(k): v for k, v in d["marginals"].items()}
    se = {norm(k): v for k, v in (d.get("std_errors") or {}).items()}
    st = {norm(k): v for k, v in (d.get("status") or {}).items()}
    counts, errs, merrs = {}, [], []
    false_mixed = missing = 0
    for k, p0 in rm.items():
        if k not in m:
            continue
        e = abs(m[k] - p0)
        errs.append(e)
        s = st.get(k, {}).get("status") or ("mixed" if d.get("converged") else "unresolved")
        counts[s] = counts.get(s, 0) + 1
        r = rse.get(k) or 0
        if s == "mixed":
            merrs.append(e)
            if e > 4 * math.sqrt((se.get(k) or 0) ** 2 + r ** 2):
                false_mixed += 1
        elif s == "unresolved":
            lo, hi = st.get(k, {}).get("lo", 0), st.get(k, {}).get("hi", 1)
            if p0 < lo - 2 * r or p0 > hi + 2 * r:
                missing += 1
    cpu = ""
    tf = os.path.splitext(path)[0] + ".time"
    if os.path.exists(tf):
        u, s_, w = open(tf).read().split()[:3]
        cpu = f"{float(u) + float(s_):.2f} CPU s, "
    mean = sum(errs) / max(len(errs), 1)
    mm = sum(merrs) / max(len(merrs), 1)
    print(f"{path}: {cpu}{d.get('method')}, statuses {dict(sorted(counts.items()))}; "
          f"mean |err| {mean:.4f}, max {max(errs, default=0):.4f}; mixed atoms: mean {mm:.4f}, max {max(merrs, default=0):.4f}, "
          f"beyond 4 s.e. {false_mixed}; unresolved intervals missing {missing}")
