"""Per-query overhead of the Python package's two paths, side by side.

    LIFTED_BIN=/path/to/lifted LIFTED_LIB=/path/to/liblifted.so \\
        python3 bench/python/overhead.py [--n 20] [--method auto,lbp]

On the smokers example (examples/mln/smokers.mln with smokers.db, query
Smokes,Cancer) it times, interleaved query by query so that the machine's
noise falls on all alike:

  native    m.infer(...) on a model loaded once (lifted.load)
  one-shot  lifted.infer(..., native=True): load, query and free in-process
  subproc   lifted.infer(..., native=False): the binary, as before

and prints the median and the quartiles of N wall-clock times each (ms), the
median of the result's stats.seconds (the run's own time, as the engine
measures it), the median overhead (wall − stats.seconds: process start,
parsing, grounding, JSON, ctypes) and the ratios subprocess / native, and
the load time. It checks that the three
paths return the same dicts (timings aside) before timing. Run from the
repository root.
"""

import argparse
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

import lifted  # noqa: E402

MODEL = os.path.join(REPO, "examples", "mln", "smokers.mln")
DB = os.path.join(REPO, "examples", "mln", "smokers.db")
QUERY = "Smokes,Cancer"


def untimed(v):
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if not k.endswith("seconds")}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


def quart(xs):
    q = statistics.quantiles(xs, n=4)
    return statistics.median(xs), q[0], q[2]


def ms(t):
    return f"{t * 1e3:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--method", default="auto,lbp")
    args = ap.parse_args()
    print(f"binary {lifted.find_binary()}; library {lifted.find_library()}; "
          f"Python {sys.version.split()[0]}; {os.cpu_count()} CPUs")
    t0 = time.perf_counter()
    m = lifted.load(MODEL, evidence=DB)
    load_s = time.perf_counter() - t0
    print(f"lifted.load (first, including the library's start): {ms(load_s)} ms")
    loads = []
    for _ in range(args.n):
        t0 = time.perf_counter()
        lifted.load(MODEL, evidence=DB).close()
        loads.append(time.perf_counter() - t0)
    print(f"lifted.load + close, median of {args.n}: {ms(statistics.median(loads))} ms")
    print()
    print("| method | path | wall per query | stats.seconds | overhead = wall − stats.seconds |")
    print("|---|---|---|---|---|")
    for method in args.method.split(","):
        kw = {"method": method}
        a = m.infer(QUERY, **kw)
        b = lifted.infer(MODEL, DB, QUERY, native=True, **kw)
        c = lifted.infer(MODEL, DB, QUERY, native=False, **kw)
        if not (untimed(a) == untimed(b) == untimed(c)):
            sys.exit(f"method {method}: the paths answer differently")
        paths = [("native, loaded once: m.infer", lambda: m.infer(QUERY, **kw)),
                 ("native one-shot: infer(native=True)", lambda: lifted.infer(MODEL, DB, QUERY, native=True, **kw)),
                 ("subprocess: infer(native=False)", lambda: lifted.infer(MODEL, DB, QUERY, native=False, **kw))]
        wall = [[] for _ in paths]
        eng = [[] for _ in paths]
        for _ in range(args.n):
            for i, (_, fn) in enumerate(paths):
                t0 = time.perf_counter()
                r = fn()
                wall[i].append(time.perf_counter() - t0)
                eng[i].append(r["stats"]["seconds"])
        over = []
        for i, (name, _) in enumerate(paths):
            med, q1, q3 = quart(wall[i])
            o = statistics.median(w - e for w, e in zip(wall[i], eng[i]))
            over.append(o)
            print(f"| {a['method']} (--method {method}) | {name} | {ms(med)} ms ({ms(q1)}–{ms(q3)}) "
                  f"| {ms(statistics.median(eng[i]))} ms | {ms(o)} ms |")
        print(f"| | subprocess / native loaded once | {statistics.median(wall[2]) / statistics.median(wall[0]):.1f}× "
              f"| | {over[2] / over[0]:.0f}× |")
    m.close()
    print()
    print(f"medians (and quartiles) of {args.n} queries each, interleaved; "
          "smokers.mln + smokers.db, -q Smokes,Cancer")


if __name__ == "__main__":
    main()
