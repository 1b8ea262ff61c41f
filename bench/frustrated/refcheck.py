#!/usr/bin/env python3
"""Compare the atoms one answer labels mixed against a reference answer.

    refcheck.py ANSWER.json REFERENCE.json

Both are `lifted infer --output-format json` outputs on the same model
(binary variables). For a model without exact marginals (the 40×40
frustrated grid) the reference is another run, of another method or seed:
it prints the answer's per-atom status counts and, over the atoms it labels
mixed, the largest difference from the reference, how many differ by more
than 0.05, how many lie beyond 4 combined standard errors, and how many lie
outside the reference's own interval (its chains' spread where it is
unresolved, ±4 standard errors where it is mixed).
"""
import json
import math
import sys
from collections import Counter


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    a, r = load(sys.argv[1]), load(sys.argv[2])
    counts = Counter(s["status"] for s in a["status"])
    print("answer:", a["method"], "converged" if a["converged"] else "not converged",
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    rc = Counter(s["status"] for s in r["status"])
    print("reference:", r["method"], "converged" if r["converged"] else "not converged",
          ", ".join(f"{k} {v}" for k, v in sorted(rc.items())))
    worst, over, beyond, outside, n = 0.0, 0, 0, 0, 0
    for i, st in enumerate(a["status"]):
        if st["status"] != "mixed":
            continue
        n += 1
        pa, pr = a["marginals"][i][1], r["marginals"][i][1]
        sa = (a.get("std_errors") or [[0, 0]] * len(a["marginals"]))[i][1] or 0.0
        sr = (r.get("std_errors") or [[0, 0]] * len(r["marginals"]))[i][1] or 0.0
        d = abs(pa - pr)
        worst = max(worst, d)
        over += d > 0.05
        beyond += d > 4 * math.sqrt(sa * sa + sr * sr)
        rs = r["status"][i]
        if rs["status"] == "unresolved":
            lo, hi = rs["lo"], rs["hi"]
        else:
            lo, hi = pr - 4 * sr, pr + 4 * sr
        outside += not (lo - 1e-9 <= pa <= hi + 1e-9)
    print(f"mixed atoms {n}: max |answer - reference| {worst:.3f}, > 0.05: {over}, "
          f"beyond 4 combined SE: {beyond}, outside the reference's interval: {outside}")


if __name__ == "__main__":
    main()
