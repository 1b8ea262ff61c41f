#!/usr/bin/env python3
"""Tuffy beside lifted on the real MLN datasets: grounding, MAP, marginals.

usage: bench/realdata/tuffy_bench.py LIFTED GROUNDBENCH OUTDIR SECTION [RUNS]

  LIFTED       a lifted binary (go build -o /tmp/lifted ./cmd/lifted)
  GROUNDBENCH  a groundbench binary (go build -o /tmp/gb ./bench/realdata/groundbench)
  OUTDIR       where every run's files go (Tuffy's answers, logs, JSON)
  SECTION      map | marginal | ground
  RUNS         runs of each configuration, interleaved (default 3)
  env ONLY     dataset names separated by ";" (default all)

Tuffy is run through bench/realdata/tuffy.sh (TUFFY_JAR, TUFFY_CONF, PG_USER:
an existing installation and a running PostgreSQL). Every row of the output
is a median over RUNS; each configuration's runs alternate with the others'
(side by side in one run). CPU s: user+sys of the process (for Tuffy, of
java, and separately PostgreSQL's own CPU over the run).

map: Tuffy's default MAP (-i prog.mln -e evidence.db -queryFile query.db),
  lifted map (map-auto, the default) and --method maxwalksat, all --seed 1.
  Tuffy's world is scored on lifted's objective scale (sum w*n(x) over all
  ground formulas): every query atom is fixed as evidence to Tuffy's value
  (the atoms in its answer file true, the others false) and `lifted map`'s
  JSON "objective" is read. The same scoring is applied to lifted's own
  maxwalksat world as a check of the scoring (it must give back the
  objective that run printed). TUFFY_MAP_RUNS=PREFIX1,PREFIX2,... scores
  Tuffy runs made before by tuffy.sh instead of running Tuffy again;
  SKIP_TUFFY=1 runs only lifted's configurations.
marginal: Tuffy -marginal (MC-SAT, its defaults) and lifted infer (default),
  the mean and max absolute difference over the query atoms (atoms Tuffy
  does not list count as probability 0, as Tuffy's answer means).
ground: Tuffy's grounding phases (from its console timestamps; inference cut
  to -maxTries 1 -maxFlips 1) beside groundbench's parse and ground.ground.
"""
import json, os, re, statistics, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
lifted, gbench, outdir, section = sys.argv[1:5]
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
data = os.environ.get("DATA", "/work/shared/data")
mln = f"{data}/mln"
os.makedirs(outdir, exist_ok=True)

# the second map-auto configuration's time limit (60s was used on Cora; on
# UW-CSE under load map-auto ran out of even 60 s wall: "none" lets it
# finish its sweeps)
AUTO_LIMIT = os.environ.get("AUTO_LIMIT", "60s")
MAPSETS = [
    ("UW-CSE", f"{mln}/uwcse/tuffy-cse", "advisedBy", "uwcse-tuffy"),
    ("Cora", f"{mln}/cora-class/tuffy-class", "category", "cora-tuffy"),
]
if os.environ.get("ONLY"):
    MAPSETS = [s for s in MAPSETS if s[0] in os.environ["ONLY"].split(";")]


def tuffy(mode, d, prefix, extra=(), env=None):
    """One run of tuffy.sh; returns its JSON."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([f"{here}/tuffy.sh", mode, d, prefix, *extra], env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        r = json.load(open(prefix + ".json"))
    except Exception:
        r = dict(rc=p.returncode, errors=[p.stdout[-2000:]])
    return r


def timed(cmd, cwd=None):
    with tempfile.NamedTemporaryFile() as tm:
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S %e %M", "-o", tm.name, *cmd], cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        u, s, e, m = open(tm.name).read().split()[-4:]
    return p, float(u) + float(s), float(e), int(m) / 1024


def lifted_run(task, d, q, out, extra=(), evid=("evidence.db",)):
    cmd = [lifted, task, "prog.mln"]
    for ev in evid:
        cmd += ["-e", ev]
    cmd += ["-q", q, "--output-format", "json", "--seed", "1", "--quiet", "-o", out, *extra]
    p, cpu, wall, mb = timed(cmd, cwd=d)
    if p.returncode != 0:
        return dict(rc=p.returncode, err=p.stderr[-500:], cpu=cpu, wall=wall)
    js = json.load(open(out))
    return dict(rc=0, cpu=cpu, wall=wall, mb=mb, js=js)


def atomkey(s):
    """Normalizes an atom name: no quotes, no spaces."""
    return re.sub(r'[\s"]', "", s)


def tuffy_map_true(path):
    """The atoms Tuffy's MAP answer lists (true ones)."""
    out = set()
    for l in open(path):
        l = l.strip()
        if l and not l.startswith("//"):
            out.add(atomkey(l))
    return out


def tuffy_marginals(path):
    out = {}
    for l in open(path):
        l = l.strip()
        if not l or l.startswith("//"):
            continue
        p, _, a = l.partition("\t") if "\t" in l else l.partition(" ")
        out[atomkey(a)] = float(p)
    return out


def score(d, q, world, tag):
    """lifted map's objective of the world (atom -> 0/1 over every query atom)
    given as evidence."""
    fixed = f"{outdir}/{tag}.fixed.db"
    with open(fixed, "w") as f:
        for a, v in sorted(world.items()):
            f.write(("" if v else "!") + a + "\n")
    r = lifted_run("map", d, q, f"{outdir}/{tag}.fixed.json", ["--method", "maxwalksat"],
                   evid=("evidence.db", fixed))
    if r["rc"] != 0:
        return None, r.get("err")
    return r["js"]["objective"], None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def f(x, p=2):
    return "—" if x is None else f"{x:,.{p}f}"


def section_map():
    for name, d, q, _ in MAPSETS:
        configs = [("lifted map (map-auto, default)", "auto", []),
                   (f"lifted map --method map-auto --time-limit {AUTO_LIMIT}" if AUTO_LIMIT != "none" else "lifted map --prop time-limit=none (map-auto)",
                    "auto" + AUTO_LIMIT, ["--time-limit", AUTO_LIMIT] if AUTO_LIMIT != "none" else ["--prop", "time-limit=none"]),
                   ("lifted map --method maxwalksat", "mws", ["--method", "maxwalksat"])]
        rows = {"Tuffy (default MAP)": []}
        rows.update({c[0]: [] for c in configs})
        notes = []
        for r in range(1, runs + 1):
            # Tuffy
            pre = f"{outdir}/tuffy-map-{name}-{r}"
            given = [x for x in os.environ.get("TUFFY_MAP_RUNS", "").split(",") if x]
            if os.environ.get("SKIP_TUFFY"):
                t = dict(rc=None)
            elif given:
                # Tuffy's runs made before (tuffy.sh output prefixes, e.g. runs
                # that did not fit in one interleaved loop): scored here
                if r > len(given):
                    t = dict(rc=None, errors=["no Tuffy run given"])
                else:
                    pre = given[r - 1]
                    while not os.path.exists(pre + ".json"):  # a run still going
                        time.sleep(10)
                    time.sleep(2)
                    t = json.load(open(pre + ".json"))
            else:
                t = tuffy("map", d, pre)
            ent = dict(cpu=t.get("java_cpu_s"), pg=t.get("pg_cpu_s"), wall=t.get("wall_s"), obj=None, tcost=t.get("cost"))
            if t.get("rc") == 0:
                # the query atoms: those of lifted's maxwalksat run below (made first once)
                ref = f"{outdir}/atoms-{name}.json"
                if not os.path.exists(ref):
                    lr = lifted_run("map", d, q, ref, ["--method", "maxwalksat"])
                true = tuffy_map_true(pre + ".txt")
                atoms = json.load(open(ref))["assignment"].keys()
                unknown = true - set(atoms)
                if unknown:
                    notes.append(f"run {r}: {len(unknown)} Tuffy atoms not among lifted's query atoms, e.g. {sorted(unknown)[:3]}")
                world = {a: int(atomkey(a) in true) for a in atoms}
                ent["obj"], err = score(d, q, world, f"tuffy-map-{name}-{r}-{os.path.basename(pre)}")
                ent["ntrue"] = sum(world.values())
                if err:
                    notes.append(f"run {r}: scoring failed: {err}")
            elif t.get("rc") is not None:
                notes.append(f"Tuffy run {r} failed: {t.get('errors')}")
            rows["Tuffy (default MAP)"].append(ent)
            print(f"[{name} run {r}] Tuffy: {json.dumps(t)} objective {ent['obj']}", file=sys.stderr, flush=True)
            for label, tag, extra in configs:
                lr = lifted_run("map", d, q, f"{outdir}/lifted-map-{tag}-{name}-{r}.json", extra)
                if lr["rc"] != 0:
                    notes.append(f"{label} run {r}: exit {lr['rc']}: {lr['err'].strip()}")
                    rows[label].append(dict(cpu=lr["cpu"], wall=lr["wall"], rc=lr["rc"]))
                    print(f"[{name} run {r}] {label}: exit {lr['rc']} cpu {lr['cpu']:.2f}", file=sys.stderr, flush=True)
                    continue
                js = lr["js"]
                e = dict(cpu=lr["cpu"], pg=None, wall=lr["wall"], printed=js.get("objective"), bound=js.get("bound"), gap=js.get("gap"),
                         ntrue=sum(js["assignment"].values()), rc=0)
                # every world is scored the same way as Tuffy's: fixed as evidence
                e["obj"], err = score(d, q, js["assignment"], f"lifted-map-{tag}-{name}-{r}")
                if err:
                    notes.append(f"{label} run {r}: scoring failed: {err}")
                rows[label].append(e)
                print(f"[{name} run {r}] {label}: cpu {lr['cpu']:.2f} printed {e['printed']} fixed {e['obj']} bound {e['bound']}", file=sys.stderr, flush=True)
        print(f"\n### MAP, {name} ({q}), medians of {runs}\n")
        print("| system | CPU s (process) | + PostgreSQL CPU s | wall s | objective (world fixed as evidence) | objective printed by the run | bound printed | gap printed | true query atoms | exits | all runs' objectives (fixed) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for label, es in rows.items():
            objs = ", ".join(f(e.get("obj"), 3) for e in es)
            exits = ",".join(str(e.get("rc", 0)) for e in es)
            print(f"| {label} | {f(med([e.get('cpu') for e in es]))} | {f(med([e.get('pg') for e in es]))} | "
                  f"{f(med([e.get('wall') for e in es]))} | {f(med([e.get('obj') for e in es]), 3)} | "
                  f"{f(med([e.get('printed') for e in es]), 3)} | "
                  f"{f(med([e.get('bound') for e in es]), 3)} | {f(med([e.get('gap') for e in es]), 3)} | "
                  f"{f(med([e.get('ntrue') for e in es]), 0)} | {exits} | {objs} |")
        tc = [e.get("tcost") for e in rows["Tuffy (default MAP)"]]
        print(f"\nTuffy's own reported costs: {tc}")
        for n in notes:
            print(f"- {n}")
        sys.stdout.flush()


def section_marginal():
    for name, d, q, _ in MAPSETS:
        tr, lr_ = [], []
        diffs = []
        notes = []
        for r in range(1, runs + 1):
            pre = f"{outdir}/tuffy-marginal-{name}-{r}"
            t = tuffy("marginal", d, pre)
            tr.append(t)
            lr = lifted_run("infer", d, q, f"{outdir}/lifted-infer-{name}-{r}.json")
            lr_.append(lr)
            print(f"[{name} run {r}] Tuffy: {json.dumps(t)}; lifted: cpu {lr['cpu']:.2f} rc {lr['rc']}", file=sys.stderr, flush=True)
            if t.get("rc") == 0 and lr["rc"] == 0:
                tm = tuffy_marginals(pre + ".txt")
                lm = lr["js"]["marginals"]
                unknown = set(tm) - {atomkey(a) for a in lm}
                if unknown:
                    notes.append(f"run {r}: {len(unknown)} Tuffy atoms not among lifted's, e.g. {sorted(unknown)[:3]}")
                ds = [abs(tm.get(atomkey(a), 0.0) - p) for a, p in lm.items()]
                diffs.append((statistics.mean(ds), max(ds), len(tm), len(lm), lr["js"].get("method")))
            else:
                notes.append(f"run {r}: Tuffy rc {t.get('rc')} {t.get('errors')}; lifted rc {lr['rc']} {lr.get('err')}")
        print(f"\n### Marginals, {name} ({q}), medians of {runs}\n")
        print("| system | CPU s (process) | + PostgreSQL CPU s | wall s | method |")
        print("|---|---|---|---|---|")
        print(f"| Tuffy -marginal (MC-SAT) | {f(med([t.get('java_cpu_s') for t in tr]))} | {f(med([t.get('pg_cpu_s') for t in tr]))} | "
              f"{f(med([t.get('wall_s') for t in tr]))} | MC-SAT |")
        meth = {l['js'].get('method') for l in lr_ if l['rc'] == 0}
        print(f"| lifted infer (default) | {f(med([l['cpu'] for l in lr_]))} | — | {f(med([l['wall'] for l in lr_]))} | {', '.join(sorted(map(str, meth)))} |")
        print("\n| run | mean abs diff Tuffy vs lifted | max abs diff | atoms Tuffy lists | lifted's query atoms |")
        print("|---|---|---|---|---|")
        for i, (mn, mx, nt, nl, _) in enumerate(diffs, 1):
            print(f"| {i} | {mn:.4f} | {mx:.4f} | {nt} | {nl} |")
        print(f"\nTuffy's marginals: {outdir}/tuffy-marginal-{name}-{{1..{runs}}}.txt")
        for n in notes:
            print(f"- {n}")
        sys.stdout.flush()


GROUNDSETS = [
    # name, dir, groundbench name, env for tuffy.sh
    ("UW-CSE", f"{mln}/uwcse/tuffy-cse", "uwcse-tuffy", {}),
    ("Cora", f"{mln}/cora-class/tuffy-class", "cora-tuffy", {}),
    ("rc1000", f"{mln}/rc1000/tuffy-rc1000", "rc1000-tuffy", {}),
]


def tuffy_copy(name, prog, dbs, query, weight=None):
    """Writes a Tuffy-readable copy of an Alchemy/Forclift-style dataset under
    OUTDIR/data/NAME: every predicate not in QUERY is marked closed-world
    (Tuffy's leading *, Alchemy's default for evidence predicates), formulas
    written without a weight get WEIGHT (groundbench's DefaultWeight), the
    evidence files are concatenated, and query.db lists the query predicates
    over variables, and a rule's body conjunction "a ^ b => c" is written
    with commas, "a, b => c", as Tuffy's grammar has it. Nothing else is changed: what Tuffy cannot read is
    reported as its error."""
    d = f"{outdir}/data/{name}"
    os.makedirs(d, exist_ok=True)
    decl = re.compile(r"^([A-Za-z_]\w*)\(\s*[A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)*\s*\)\s*$")
    seen_formula = False
    arity = {}
    with open(f"{d}/prog.mln", "w") as out:
        for l in open(prog):
            t = l.strip()
            m = decl.match(t)
            if t and not t.startswith("//") and m and not seen_formula:
                arity[m.group(1)] = t.count(",") + 1
                out.write(("" if m.group(1) in query else "*") + t + "\n")
            elif t and not t.startswith("//") and "=" not in t.split("(")[0]:
                seen_formula = True
                if weight is not None and not re.match(r"^[-+]?\d", t) and not t.endswith("."):
                    t = f"{weight} {t}"
                # Tuffy writes a rule's conjunction with commas ("a, b => c")
                if "=>" in t and "^" in t.split("=>")[0] and "v" not in t.split("=>")[0].split():
                    h, b = t.split("=>", 1)
                    t = h.replace(" ^ ", ", ").replace("^", ", ") + "=>" + b
                out.write(t + "\n")
            else:
                out.write(l)
    with open(f"{d}/evidence.db", "w") as out:
        for db in dbs:
            out.write(open(db).read() + "\n")
    with open(f"{d}/query.db", "w") as out:
        for q in query:
            out.write(f"{q}({','.join(f'v{i}' for i in range(arity.get(q, 1)))})\n")
    return d


def section_ground():
    extra_sets = [
        ("WebKB (corn.db, weights 1)", tuffy_copy("webkb", f"{mln}/webkb/forclift/webkb.mln", [f"{mln}/webkb/forclift/corn.db"],
                                                   ["PageClassCourse", "PageClassFaculty", "PageClassStudent"], 1), "webkb-forclift", {}),
        ("IMDB (imdb.all.db, weights 1)", tuffy_copy("imdb", f"{mln}/imdb/forclift/formulas.mln", [f"{mln}/imdb/forclift/imdb.all.db"],
                                                      ["workedUnder"], 1), "imdb-forclift", {}),
        ("protein (yeast.1.db)", tuffy_copy("protein", f"{mln}/protein/alchemy2/protein.mln", [f"{mln}/protein/lsm-train/yeast.1.db"],
                                             ["function"]), "protein-alchemy", {}),
        ("CAVIAR fold 0", tuffy_copy("caviar", f"{mln}/caviar-meet/lomrf-DN-HI/fold_0/meet_trained_func.mln",
                                     [f"{mln}/caviar-meet/lomrf-DN-HI/fold_0/21-Meet_WalkSplit.id1_id3.db"], ["HoldsAt"]), "caviar-fold0", {}),
    ]
    sets = GROUNDSETS + extra_sets
    if os.environ.get("ONLY"):
        sets = [s for s in sets if s[0] in os.environ["ONLY"].split(";")]
    print("| dataset | Tuffy atoms | Tuffy clauses | Tuffy load s (wall) | Tuffy ground s (wall: closure + clauses + consolidate) | Tuffy java CPU s (whole run) | + PostgreSQL CPU s (whole run) | ours: atoms | ours: formulas | ours parse s (wall) | ours ground s (wall) | ours ground CPU s | ground wall ratio Tuffy/ours |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, d, gname, env in sets:
        ts, gs = [], []
        err = None
        for r in range(1, runs + 1):
            t = tuffy("map", d, f"{outdir}/tuffy-ground-{name}-{r}", ["-maxTries", "1", "-maxFlips", "1"], env=env)
            ts.append(t)
            if t.get("rc") != 0 or t.get("ground_s") is None:
                err = t.get("errors")
            p = subprocess.run([gbench, "-data", data, "-only", gname, "-runs", "1", "-fingerprint=false"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            row = [l for l in p.stdout.splitlines() if l.startswith(f"| {gname} ")]
            gs.append(row[0].split("|")[2:-1] if row else None)
            print(f"[{name} run {r}] Tuffy {json.dumps(t)}; ours {row}", file=sys.stderr, flush=True)
        g = lambda k: med([t.get(k) for t in ts])
        ok = [x for x in gs if x and len(x) >= 7]
        if ok:
            parse = med([float(x[0]) for x in ok])
            oatoms, oforms = ok[0][1].strip(), ok[0][2].strip()
            ocpu = med([float(x[5]) for x in ok])
            owall = med([float(x[4]) for x in ok])
        else:
            parse = ocpu = owall = None
            oerr = gs[0][0].strip() if gs and gs[0] else "—"
            oatoms = oforms = oerr[:60] + "…" if len(oerr) > 60 else oerr
            print(f"\n{name}: ours: {oerr}\n")
        phases = f"{f(g('ground_s'))} ({f(g('closure_s'))} + {f(g('clauses_s'))} + {f(g('consolidate_s'))})"
        ratio = f"{g('ground_s') / owall:,.0f}×" if g("ground_s") and owall else "—"
        print(f"| {name} | {f(g('atoms'), 0)} | {f(g('clauses'), 0)} | {f(g('load_s'))} | {phases} | {f(g('java_cpu_s'))} | "
              f"{f(g('pg_cpu_s'))} | {oatoms} | {oforms} | {f(parse, 3)} | {f(owall, 3)} | {f(ocpu, 3)} | {ratio} |")
        if err:
            print(f"\n{name}: Tuffy error: {err}\n")
        sys.stdout.flush()


{"map": section_map, "marginal": section_marginal, "ground": section_ground}[section]()
