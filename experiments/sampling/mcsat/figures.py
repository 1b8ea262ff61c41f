#!/usr/bin/env python3
"""Before/after figures of MC-SAT (experiments/sampling/MCSAT.md).

    python3 experiments/sampling/mcsat/figures.py BEFORE AFTER [uw-reference.json]

BEFORE and AFTER are `lifted` binaries (go build -o ... ./cmd/lifted at the
two commits). Every run is one process; CPU seconds are user+sys of the
process (resource.getrusage of the child), ESS per CPU second is the run's
smallest bulk ESS (stats.min_bulk_ess) over its CPU seconds. Exact marginals
by --method enumerate. Medians of 3 seeds.
"""
import json, os, resource, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
UW = "/work/shared/data/mln/uwcse/tuffy-cse"


def run(binary, args, cwd=ROOT):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([binary, "infer", *args, "--output-format", "json", "--allow-unconverged", "--quiet"],
                       cwd=cwd, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode not in (0, 3):
        raise SystemExit(f"{binary} {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    out = json.loads(p.stdout)
    return out, cpu


def errors(marg, exact):
    d = [abs(marg[k] - exact[k]) for k in exact]
    return max(d), sum(d) / len(d)


def small(name, model, binaries, seeds=(1, 2, 3)):
    exact, _ = run(binaries[1], model[:model.index("--method")] + ["--method", "enumerate"])
    exact = exact["marginals"]
    rows = []
    for label, b in zip(("before", "after"), binaries):
        res = []
        for s in seeds:
            out, cpu = run(b, model + ["--seed", str(s)])
            st = out["stats"]
            mx, _ = errors(out["marginals"], exact)
            res.append(dict(cpu=cpu, ess=st.get("min_bulk_ess", 0), mixed=st["converged"], rhat=st.get("r_hat", 0), err=mx))
        med = lambda k: statistics.median(r[k] for r in res)
        rows.append((name, label, med("cpu"), med("ess"), statistics.median(r["ess"] / r["cpu"] for r in res),
                     med("rhat"), sum(r["mixed"] for r in res), med("err")))
    return rows


def uw(binaries, ref, samples_after):
    refm = json.load(open(ref))["marginals"]
    rows = []
    runs = [("after", binaries[1], 1000, (1,)), ("after", binaries[1], samples_after, (1, 2, 3))]
    if os.environ.get("UW_BEFORE") == "1":  # about 4 CPU minutes a run
        runs.insert(0, ("before", binaries[0], 1000, (1,)))
    for label, b, samples, seeds in runs:
        res = []
        for s in seeds:
            out, cpu = run(b, ["prog.mln", "-e", "evidence.db", "-q", "advisedBy", "--method", "mcsat",
                               "--samples", str(samples), "--burn-in", str(max(samples // 10, 20)), "--seed", str(s)], cwd=UW)
            mx, mean = errors(out["marginals"], refm)
            res.append(dict(cpu=cpu, mixed=out["stats"]["converged"], why=out["stats"].get("mixing", ""), mx=mx, mean=mean))
        med = lambda k: statistics.median(r[k] for r in res)
        rows.append((label, samples, len(seeds), med("cpu"), sum(r["mixed"] for r in res), med("mean"), med("mx"), res[0]["why"][:90]))
    return rows


def main():
    before, after = sys.argv[1], sys.argv[2]
    print("| model | binary | CPU s | min bulk ESS | ESS per CPU s | worst R-hat | runs mixed (of 3) | max abs error vs exact |")
    print("|---|---|---|---|---|---|---|---|")
    for name, model in (
        ("smokers, --samples 5000 --chains 2", ["examples/mln/smokers.mln", "-e", "examples/mln/smokers.db", "-q", "Smokes,Cancer",
                                                 "--method", "mcsat", "--samples", "5000", "--chains", "2"]),
        ("dishes, --samples 1000 (8 chains)", ["experiments/sampling/mcsat/dishes.mln", "-e", "experiments/sampling/mcsat/dishes.db",
                                               "-q", "orders,likes", "--method", "mcsat", "--samples", "1000"]),
        ("dishes, --samples 25000 (8 chains)", ["experiments/sampling/mcsat/dishes.mln", "-e", "experiments/sampling/mcsat/dishes.db",
                                                "-q", "orders,likes", "--method", "mcsat", "--samples", "25000"])):
        for r in small(name, model, (before, after)):
            print("| %s | %s | %.2f | %.0f | %.0f | %.3f | %d | %.4f |" % r)
    if len(sys.argv) > 3:
        print()
        print("| UW-CSE | samples per chain | runs | CPU s | runs mixed | mean abs diff vs reference | max abs diff | why not mixed (first run) |")
        print("|---|---|---|---|---|---|---|---|")
        for r in uw((before, after), sys.argv[3], int(os.environ.get("UW_SAMPLES", "200"))):
            print("| %s | %d | %d | %.1f | %d | %.4f | %.4f | %s |" % r)


if __name__ == "__main__":
    main()
