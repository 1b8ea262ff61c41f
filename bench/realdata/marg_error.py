#!/usr/bin/env python3
"""Error of `lifted infer` runs (JSON) against a reference (JSON of a lifted
run, or Tuffy's marginal output: lines `PROB atom`, the atoms it leaves out
counted as probability 0), for MARGINALS.md.

usage: marg_error.py REFERENCE RUN.json [RUN.json ...]

Per run: CPU s (from RUN.time beside it: user sys wall), method, converged,
mean and max |p - p_ref| over the reference's atoms, the largest stated
standard error (sampler answers), and the fraction of atoms with
|p - p_ref| <= 4 s.e. + 0.01 (atoms without a standard error: exact or BP,
counted within only when |p - p_ref| <= 0.01); a sampled reference's own
standard error is added in quadrature. The reference's own largest
standard error is printed first: errors below it are not resolved."""
import gzip, json, math, os, re, statistics, sys


def load(path):
    if path.endswith(".json.gz"):
        d = json.load(gzip.open(path, "rt"))
        d.setdefault("method", "reference")
        d.setdefault("converged", d.get("diagnostics", {}).get("converged"))
        d.setdefault("stats", d.get("diagnostics", {}))
        return d["marginals"], d.get("std_errors") or {}, d
    if path.endswith(".json"):
        d = json.load(open(path))
        return d["marginals"], d.get("std_errors") or {}, d
    m = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 2:
            try:
                m[re.sub(r"\s+", "", " ".join(f[1:]))] = float(f[0])
            except ValueError:
                pass
    return m, {}, None


ref, rse, rd = load(sys.argv[1])
exact = (rd or {}).get("exact") or {}
if rd:
    st = rd["stats"]
    print(f"reference {sys.argv[1]}: {rd['method']}, converged {rd['converged']}, "
          f"R-hat {st.get('r_hat')}, bulk ESS {st.get('bulk_ess')}, tail ESS {st.get('tail_ess')}, "
          f"samples {st.get('samples')}, max s.e. {max((v for v in rse.values() if v is not None), default=0):.4g}")
for path in sys.argv[2:]:
    m, se, d = load(path)
    norm = {re.sub(r"\s+", "", k).replace('"', ""): v for k, v in m.items()}
    sen = {re.sub(r"\s+", "", k).replace('"', ""): v for k, v in se.items()}
    diffs, within, missing = [], 0, 0
    dex, dsa = [], []
    for k, p in ref.items():
        kk = re.sub(r"\s+", "", k).replace('"', "")
        if kk not in norm:
            missing += 1
            if d is not None:
                continue
            norm[kk] = 0.0  # Tuffy's output leaves out atoms of probability 0
        e = abs(norm[kk] - p)
        diffs.append(e)
        (dex if k in exact else dsa).append(e)
        s = sen.get(kk) or 0
        r = rse.get(k) or 0
        if s != s:  # NaN
            s = 0
        if r != r:
            r = 0
        if e <= 4 * math.hypot(s, r) + 0.01:
            within += 1
    cpu = ""
    t = path[: -len(".json")] + ".time" if path.endswith(".json") else None
    if t and os.path.exists(t):
        u, sy, w = map(float, open(t).read().split()[-3:])
        cpu = f"CPU {u + sy:.2f} s (wall {w:.1f}), "
    head = f"{d['method']}, converged {d['converged']}, " if d else ""
    mse = max((v for v in se.values() if v is not None and v == v), default=0)
    print(f"{path}: {cpu}{head}{len(diffs)} atoms ({missing} missing): mean |err| {statistics.mean(diffs):.4f}, "
          f"max {max(diffs):.4f}, max s.e. {mse:.4f}, within 4 s.e.+0.01 {within / len(diffs):.3f}")
    if exact:
        print(f"    exact reference atoms {len(dex)}: mean {statistics.mean(dex):.4f} max {max(dex):.4f}; "
              f"sampled reference atoms {len(dsa)}: mean {statistics.mean(dsa):.4f} max {max(dsa):.4f}")
