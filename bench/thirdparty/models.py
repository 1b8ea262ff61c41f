#!/usr/bin/env python3
"""Runs every third-party example model found under /work/ext with one or
more lifted binaries and prints a table: model source x (models, parsed,
run, exact by default), one count per binary ("before / after"). Each model
is run with every binary in turn before the next model, so that the
binaries meet the same machine load.
Usage: models.py BINARY [BINARY2 ...] [--timeout S] [--log FILE].

Sources (each skipped with a message when its checkout is absent):
  tuffy    /work/ext/tuffy       samples/*/prog.mln, test/*prog*.mln (+ evidence, query files)
  pracmln  /work/ext/pracmln     examples/*/*.pracmln (zip projects; query.conf names mln, db, queries)
  lomrf    /work/ext/lomrf-data  Examples/Inference/* (flags from the run scripts)
  alchemy  /work/ext/alchemy2    examples/model.mln, exdata/*.mln

A model counts as parsed unless the run ends with an error positioned in
one of its files (file:line:col), as run when lifted exits 0 within the
timeout, and as exact when the run's summary on stderr says it is exact
(e.g. "exact by wfomc", "exact by enumeration").
"""
import glob, json, os, re, shlex, subprocess, sys, tempfile, zipfile

EXT = "/work/ext"


def tuffy():
    root = os.path.join(EXT, "tuffy")
    for d in sorted(glob.glob(os.path.join(root, "samples", "*"))):
        prog = os.path.join(d, "prog.mln")
        if not os.path.isfile(prog):
            continue
        ev = os.path.join(d, "evidence.db")
        args = [prog]
        if os.path.isfile(ev):
            args += ["-e", ev]
        else:
            yield ("samples/" + os.path.basename(d), None, "evidence.db missing from the checkout")
            continue
        args += ["--query-file", os.path.join(d, "query.db")]
        yield ("samples/" + os.path.basename(d), args, None)
    t = os.path.join(root, "test")
    for prog in sorted(glob.glob(os.path.join(t, "*[pP]rog*.mln"))):
        base = os.path.basename(prog)
        stem = re.split(r"_?[pP]rog", base)[0]
        evs = [f for f in glob.glob(os.path.join(t, stem + "*[eE]vidence.db"))]
        qs = [f for f in glob.glob(os.path.join(t, stem + "*[qQ]uery.db"))]
        if not evs or not qs:
            yield ("test/" + base, None, "no evidence or query file in the checkout")
            continue
        yield ("test/" + base, [prog, "-e", sorted(evs)[0], "--query-file", sorted(qs)[0]], None)


def pracmln(tmp):
    root = os.path.join(EXT, "pracmln", "examples")
    for proj in sorted(glob.glob(os.path.join(root, "*", "*.pracmln"))):
        name = os.path.basename(proj)[:-len(".pracmln")]
        out = os.path.join(tmp, "pracmln", name)
        os.makedirs(out, exist_ok=True)
        zipfile.ZipFile(proj).extractall(out)
        conf = json.load(open(os.path.join(out, "query.conf")))
        mlns = sorted(os.path.basename(f) for f in glob.glob(os.path.join(out, "mlns", "*.mln")))
        dbs = sorted(os.path.basename(f) for f in glob.glob(os.path.join(out, "dbs", "*.db")))
        qmln, qdb = conf.get("mln", ""), conf.get("db", "")
        queries = [q.strip() for q in re.split(r",(?![^()]*\))", conf.get("queries", "")) if q.strip()]
        runs = [(m, qdb) for m in mlns] + [(qmln, d) for d in dbs if d != qdb]
        for m, d in runs:
            if m not in mlns or d not in dbs:
                continue
            args = [os.path.join(out, "mlns", m), "-e", os.path.join(out, "dbs", d)]
            for q in queries:
                args += ["-q", q]
            if not queries:
                args += ["-q", "@ALL"]
            cw = [c.strip() for c in conf.get("cw_preds", "").split(",") if c.strip()]
            if cw:
                args += ["--cw", ",".join(cw)]
            yield ("%s/%s+%s" % (name, m, d), args, None)


def lomrf():
    root = os.path.join(EXT, "lomrf-data", "Examples", "Inference")
    seen = set()
    for script in sorted(glob.glob(os.path.join(root, "*", "*.sh"))):
        d = os.path.dirname(script)
        text = open(script).read().replace("\\\n", " ")
        env = dict(re.findall(r'^(\w+)="?([^"\n`]*)"?\s*$', text, re.M))
        text = re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), m.group(0)), text)
        for line in text.splitlines():
            line = line.split("&&")[0].strip()
            if not line.startswith("lomrf infer"):
                continue
            toks = shlex.split(line)[2:]
            opts = {}
            i = 0
            while i < len(toks):
                if toks[i].startswith("-") and i + 1 < len(toks):
                    opts[toks[i]] = toks[i + 1]
                    i += 2
                else:
                    i += 1
            strip = lambda s: ",".join(p.split("/")[0] for p in s.split(","))
            args = [os.path.join(d, opts["-i"])]
            if "-e" in opts:
                args += ["-e", os.path.join(d, opts["-e"])]
            args += ["-q", strip(opts["-q"])]
            if "-cwa" in opts:
                args += ["--cw", strip(opts["-cwa"])]
            if "-owa" in opts:
                args += ["--ow", strip(opts["-owa"])]
            if tuple(args) in seen:
                continue
            seen.add(tuple(args))
            yield ("%s/%s" % (os.path.basename(d), opts["-i"]), args, None)
            if opts["-i"] == "theory.mln" and os.path.isfile(os.path.join(d, "theory_cnf.mln")):
                a2 = list(args)
                a2[0] = os.path.join(d, "theory_cnf.mln")
                yield ("%s/theory_cnf.mln" % os.path.basename(d), a2, None)


def alchemy():
    root = os.path.join(EXT, "alchemy2")
    ex = os.path.join(root, "examples")
    if os.path.isfile(os.path.join(ex, "model.mln")):
        yield ("examples/model.mln", [os.path.join(ex, "model.mln"), "-e", os.path.join(ex, "evidence.db"), "-q", "Smokes,Cancer,Friends"], None)
    for f in sorted(glob.glob(os.path.join(root, "exdata", "*.mln"))):
        yield ("exdata/" + os.path.basename(f), [f, "-q", "@ALL"], None)


POSERR = re.compile(r"\.(mln|db|txt):\d+:\d+: ")
DECLARES = re.compile(r"this MLN declares ([^)]*)\)")


def run(binary, args, timeout):
    cmd = [binary, "infer"] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        return None, (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")


UNKNOWN_LISTED = re.compile(r'unknown predicate "([^"]+)" in the (closed|open)-world list')


def classify(binary, args, timeout):
    # Run scripts may list predicates the model lacks (LoMRF ignores them):
    # such names are dropped from --cw/--ow and the model run again.
    if "@ALL" in args:
        rc, err = run(binary, [a for a in args if a not in ("-q", "@ALL")], timeout)
        m = DECLARES.search(err)
        if not m:
            return classify_result(rc, err)
        i = args.index("@ALL")
        args = args[:i] + [m.group(1).replace(" ", "")] + args[i + 1:]
    for _ in range(5):
        rc, err = run(binary, args, timeout)
        m = UNKNOWN_LISTED.search(err)
        if rc in (0, None) or not m:
            break
        flag = "--cw" if m.group(2) == "closed" else "--ow"
        i = args.index(flag)
        rest = [x for x in args[i + 1].split(",") if x != m.group(1)]
        args = args[:i] + ([flag, ",".join(rest)] if rest else []) + args[i + 2:]
    return classify_result(rc, err)


def classify_result(rc, err):
    lines = [l for l in err.strip().splitlines() if l.strip()]
    parsed = not (rc not in (0, None) and any(POSERR.search(l) for l in lines[-5:]))
    ran = rc == 0
    summary = " ".join(l for l in lines if l.startswith("lifted:"))
    exact = ran and bool(re.search(r"exact by|exact:|; exact", summary)) and "not exact" not in summary
    status = "timeout" if rc is None else ("ok" if rc == 0 else "exit %d" % rc)
    last = lines[-1][:200] if lines else ""
    return parsed, ran, exact, status, last


def main():
    binaries = []
    timeout = 60
    log = None
    a = sys.argv[1:]
    while a:
        if a[0] == "--timeout":
            timeout = float(a[1]); a = a[2:]
        elif a[0] == "--log":
            log = open(a[1], "w"); a = a[2:]
        elif a[0].startswith("-"):
            sys.exit("unknown argument " + a[0])
        else:
            binaries.append(a[0]); a = a[1:]
    if not binaries:
        sys.exit("usage: models.py BINARY [BINARY2] [--timeout S] [--log FILE]")
    tmp = tempfile.mkdtemp(prefix="thirdparty-")
    sources = [("tuffy", "tuffy", tuffy), ("pracmln", "pracmln", lambda: pracmln(tmp)),
               ("lomrf", "lomrf-data", lomrf), ("alchemy", "alchemy2", alchemy)]
    rows = []
    for name, d, gen in sources:
        if not os.path.isdir(os.path.join(EXT, d)):
            print("%s: no checkout at %s; skipped" % (name, os.path.join(EXT, d)), file=sys.stderr)
            continue
        n = 0
        counts = [[0, 0, 0] for _ in binaries]
        for model, args, why in gen():
            n += 1
            if args is None:
                if log:
                    print("%s\t%s\tskipped\t%s" % (name, model, why), file=log)
                continue
            # The binaries run one after the other on each model, so that
            # they meet the same machine load.
            for bi, binary in enumerate(binaries):
                parsed, ran, exact, status, last = classify(binary, list(args), timeout)
                c = counts[bi]
                c[0] += parsed; c[1] += ran; c[2] += exact
                if log:
                    print("%s\t%s\t%s\tparsed=%d run=%d exact=%d\t%s\t%s" % (name, model, os.path.basename(binary), parsed, ran, exact, status, last), file=log)
                    log.flush()
        rows.append((name, n, counts))
    names = [os.path.basename(b) for b in binaries]
    cols = lambda what: " / ".join("%s %s" % (what, nm) for nm in names) if len(names) > 1 else what
    print("| source | models | %s | %s | %s |" % (cols("parsed"), cols("run"), cols("exact by default")))
    print("|---|---:|---:|---:|---:|")
    tot_n = 0
    tot = [[0, 0, 0] for _ in binaries]
    for name, n, counts in rows:
        cell = lambda k: " / ".join(str(c[k]) for c in counts)
        print("| %s | %d | %s | %s | %s |" % (name, n, cell(0), cell(1), cell(2)))
        tot_n += n
        for bi, c in enumerate(counts):
            tot[bi] = [x + y for x, y in zip(tot[bi], c)]
    cell = lambda k: " / ".join(str(c[k]) for c in tot)
    print("| all | %d | %s | %s | %s |" % (tot_n, cell(0), cell(1), cell(2)))


if __name__ == "__main__":
    main()
