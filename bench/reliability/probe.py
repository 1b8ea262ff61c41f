#!/usr/bin/env python3
"""The reliability probe of issue 39, re-run on a built lifted binary.

    go build -o /tmp/probe/lifted ./cmd/lifted
    go build -buildmode=c-shared -o /tmp/probe/liblifted.so ./python/native   # for the Python probes
    python3 bench/reliability/probe.py /tmp/probe/lifted --lib /tmp/probe/liblifted.so > RESULTS-table.md

Every probe runs the binary under a safety cap, so that a regression cannot
take a shared machine down: ``prlimit --as=8000000000`` (8 GB of address
space; a Go program past it dies with "fatal error: out of memory", which the
probe reports as a defect) and a wall-clock timeout (the process group is
killed). For each it records the exit status, the first line of stderr (timed
progress lines "lifted: [1.0 s] ..." skipped, temporary paths shortened to
$T), the wall time and the peak resident memory (ru_maxrss of that child,
from wait4), and prints a Markdown table with a verdict: ok means a clear
error or an answer, no crash (goroutine dump, exit 2, a signal), no NaN, the
expected message or answer, and no more memory than the probe allows (a
refusal: 1 GB at most).

A second table measures the time from SIGINT (or SIGTERM) to the exit for
each long-running command, sent once the command is under way (after a delay
or once its stderr shows a given progress line); the goal is exit 130 and a
message within 0.5 s. main's handler ends a command that has not stopped by
itself 0.45 s after the signal ("the command had not stopped by itself"; 10 s
with --allow-partial), so the table says which stopped by themselves.

Standard library only (Python 3.11). Needs /usr/bin/prlimit, the shared data
beside the repository (../shared: UW-CSE, the DIMACS files), and for the
Python probes the native library (--lib, else $LIFTED_LIB); --skip-race skips
the `go test -race` concurrency probe (it compiles the engine with -race).
"""

import argparse
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

AS_CAP = 8_000_000_000  # prlimit --as
MB = 1024  # ru_maxrss is in KiB

PROGRESS = re.compile(r"^lifted: \[[0-9.]+ s\] ")


class Run:
    """One finished child: its exit status (negative: killed by that signal),
    stdout, stderr, wall seconds, peak RSS in KiB, and whether the wall
    timeout killed it."""

    def __init__(self, code, out, err, wall, rss_kb, timed_out):
        self.code, self.out, self.err, self.wall, self.rss_kb, self.timed_out = code, out, err, wall, rss_kb, timed_out

    def lines(self):
        """stderr without the timed progress lines."""
        return [l for l in self.err.splitlines() if l.strip() and not PROGRESS.match(l)]

    def first(self):
        ls = self.lines()
        return ls[0].strip() if ls else ""

    def message(self):
        """The first line of stderr (progress lines skipped); for an
        answer (exit 0) the summary, stderr's last line, or stdout's first
        where stderr is empty."""
        ls = self.lines()
        if self.code == 0:
            if ls:
                return ls[-1].strip()
            o = self.out.strip().splitlines()
            return "stdout: " + o[0] if o else ""
        return ls[0].strip() if ls else ""

    def crashed(self):
        e = self.err
        return (self.code < 0 or self.code == 2 and ("goroutine " in e or "fatal error" in e)
                or "panic:" in e or "fatal error:" in e or "goroutine 1 [" in e or "SIGSEGV" in e)


def start(argv, stdin=None, env=None, cwd=None, stderr_pipe=False, measure=True):
    """Starts argv under prlimit --as in a new process group; stdout and
    stderr go to temporary files (or stderr to a pipe). With measure, under
    /usr/bin/time -f %M too: its peak RSS is the command's own (the
    ru_maxrss of a child forked from this Python process would start at
    Python's own peak, which Linux keeps across exec). Without it (the
    signal probes), the process started is the command itself (prlimit
    execs it), so p.pid is the command's."""
    out = tempfile.TemporaryFile()
    err = subprocess.PIPE if stderr_pipe else tempfile.TemporaryFile()
    full = ["prlimit", f"--as={AS_CAP}", "--"] + list(argv)
    rss = None
    if measure:
        fd, rss = tempfile.mkstemp(prefix="probe-rss-")
        os.close(fd)
        full = ["/usr/bin/time", "-f", "%M", "-o", rss] + full
    p = subprocess.Popen(full, stdin=stdin if stdin is not None else subprocess.DEVNULL, stdout=out,
                         stderr=err, env=env, cwd=cwd, start_new_session=True)
    p._probe_out, p._probe_err, p._probe_rss = out, err, rss
    return p


def time_file(path):
    """The peak RSS (KiB) and, where the command died of a signal, the
    signal, from /usr/bin/time's -o file."""
    try:
        with open(path) as f:
            text = f.read()
    finally:
        os.remove(path)
    nums = [int(l) for l in text.split() if l.isdigit()]
    m = re.search(r"terminated by signal (\d+)", text)
    return (nums[-1] if nums else 0), (int(m.group(1)) if m else 0)


def finish(p, t0, timeout):
    """Waits for p (killing its group after timeout seconds from t0) and
    returns a Run with its own rusage (wait4)."""
    killed = []

    def kill():
        killed.append(True)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    left = max(0.0, timeout - (time.monotonic() - t0))
    timer = threading.Timer(left, kill)
    timer.start()
    errbuf = b""
    if p._probe_err == subprocess.PIPE or p.stderr is not None:
        errbuf = p.stderr.read()  # until the child closes it
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    rss_kb = ru.ru_maxrss
    if p._probe_rss:
        rss_kb, sig = time_file(p._probe_rss)
        if sig:
            p.returncode = -sig
    out = p._probe_out
    out.seek(0)
    o = out.read().decode("utf-8", "replace")
    out.close()
    if p.stderr is None:
        p._probe_err.seek(0)
        errbuf = p._probe_err.read()
        p._probe_err.close()
    else:
        p.stderr.close()
    return Run(p.returncode, o, errbuf.decode("utf-8", "replace"), wall, rss_kb, bool(killed))


def run(argv, timeout=60, **kw):
    t0 = time.monotonic()
    p = start(argv, **kw)
    return finish(p, t0, timeout)


# ---------------------------------------------------------------- inputs


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return path


def friends(dir, n):
    """The friends-and-smokers training set of cmd/lifted's signal tests:
    n people, a transitive formula (n^3 groundings), a ring of Friends, half
    the people smoking."""
    consts = ", ".join(f"P{i}" for i in range(n))
    facts = "".join(f"Friends(P{i}, P{(i + 1) % n})\nSmokes(P{i // 2})\n" for i in range(n))
    m = write(os.path.join(dir, f"friends{n}.mln"),
              f"person = {{{consts}}}\nFriends(person, person)\nSmokes(person)\n"
              "0.5 Friends(x,y) ^ Friends(y,z) => Friends(x,z)\n1.0 Smokes(x) ^ Friends(x,y) => Smokes(y)\n")
    return m, write(os.path.join(dir, f"friends{n}.db"), facts)


def make_inputs(d, big=True):
    """Generates every input of the probes into d (without big, not the
    173 MB model); returns their paths."""
    p = {}
    p["deep"] = write(os.path.join(d, "deep.mln"), "person = {A}\nP(person)\n1.0 " + "(" * 300000 + "P(x)" + ")" * 300000 + "\n")
    p["bang"] = write(os.path.join(d, "bang.mln"), "person = {A}\nP(person)\n1.0 " + "!" * 1000000 + "P(x)\n")
    p["cnf1e7"] = write(os.path.join(d, "big.cnf"), "p cnf 10000000 1\n1 -2 0\n")
    p["cnf2e28"] = write(os.path.join(d, "huge.cnf"), "p cnf 268435456 1\n1 -2 0\n")
    p["nul"] = write(os.path.join(d, "nul.mln"), b"\0" * 10_000_000, "wb")
    p["inczero"] = write(os.path.join(d, "inczero.mln"), 'person = {A}\nP(person)\n#include "/dev/zero"\n1.0 P(x)\n')
    p["empty"] = write(os.path.join(d, "empty.mln"), "")
    # Three binary variables in a chain (a tree: BP is exact), tables of
    # 1e308 entries (they overflowed: lbp said "all entries zero").
    p["e308"] = write(os.path.join(d, "e308.uai"), "MARKOV\n3\n2 2 2\n3\n2 0 1\n2 1 2\n1 0\n"
                      "4\n1e308 1e308 1e308 1e308\n4\n1e308 1 1 1e308\n2\n1e308 1\n")
    # A chain of 300,000 binary variables: a 12 MB answer, whose writing
    # the SIGTERM probe interrupts.
    n = 300000
    lines = ["MARKOV", str(n), " ".join(["2"] * n), str(2 * n - 1)]
    lines += [f"2 {i} {i + 1}" for i in range(n - 1)] + [f"1 {i}" for i in range(n)]
    for i in range(n - 1):
        w = 0.5 + (i * 7919 % 1000) / 666.0
        lines.append(f"4\n {w:g} 1 1 {w:g}")
    for i in range(n):
        lines.append(f"2\n {0.5 + (i * 104729 % 1000) / 666.0:g} 1")
    p["chain"] = write(os.path.join(d, "chain.uai"), "\n".join(lines) + "\n")
    # 2^24 named constants: a 173 MB model.
    p["named24"] = os.path.join(d, "named24.mln")
    if big:
        with open(p["named24"], "w") as f:
            f.write("person = {")
            for lo in range(0, 1 << 24, 1 << 16):
                f.write(("" if lo == 0 else ", ") + ", ".join(f"P{i}" for i in range(lo, lo + (1 << 16))))
            f.write("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n"
                    "1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
    for n in (60, 200, 600):
        p[f"friends{n}"] = friends(d, n)
    return p


# ---------------------------------------------------------------- probes


class Probe:
    def __init__(self, name, shown, former, fn, max_mb=1024):
        self.name, self.shown, self.former, self.fn, self.max_mb = name, shown, former, fn, max_mb


def verdict(r, max_mb, problems):
    """ok, or what is wrong."""
    why = list(problems)
    if r.timed_out:
        why.insert(0, f"killed at the {r.wall:.0f} s timeout")
    elif r.crashed():
        why.insert(0, "crash (" + ("signal %d" % -r.code if r.code < 0 else "exit %d, goroutine dump" % r.code) + ")")
    if re.search(r"\bNaN\b|\bInf\b", r.out) and "NaN" not in why:
        why.append("NaN/Inf in the answer")
    if r.rss_kb > max_mb * MB:
        why.append(f"peak {r.rss_kb / MB:.0f} MB > {max_mb} MB")
    return "ok" if not why else "**DEFECT**: " + "; ".join(why)


def expect(r, code=None, err=(), out=(), notin=()):
    """The problems of r against an expected exit status and texts."""
    why = []
    if code is not None and r.code != code:
        why.append(f"exit {r.code}, want {code}")
    for w in err:
        if w not in r.err:
            why.append(f"stderr lacks {w!r}")
    for w in out:
        if w not in r.out:
            why.append(f"stdout lacks {w!r}")
    for w in notin:
        if w in r.err:
            why.append(f"stderr has {w!r}")
    return why


def probes(L, inp, shared, repo, lib, tmp, skip_race):
    """The probe list: (Probe, ...) whose fn returns (Run, problems, note)."""
    U = os.path.join(shared, "data/mln/uwcse/tuffy-cse")
    uw = [os.path.join(U, "prog.mln"), "-e", os.path.join(U, "evidence.db"), "-q", "advisedBy"]
    S = os.path.join(repo, "examples/mln")
    smk = [os.path.join(S, "smokers.mln"), "-e", os.path.join(S, "smokers.db")]
    dyn = ["--dynamic", os.path.join(S, "social-dynamic.mln"), "-e", os.path.join(S, "social-dynamic.db"), "-q", "Cancer(A,t)"]
    refused = lambda *w: (lambda r: expect(r, 1, w))
    P = []

    def add(name, shown, former, argv, check, timeout=60, max_mb=1024, binary=True, **kw):
        def fn():
            r = run(([L] if binary else []) + argv, timeout=timeout, **kw)
            return r, check(r), ""
        P.append(Probe(name, shown, former, fn, max_mb))

    add("deep parentheses", "`infer deep.mln -q P` (300,000 nested parentheses, 600 KB)",
        "fatal error: stack overflow, exit 2, goroutine dump", ["infer", inp["deep"], "-q", "P"],
        refused("deep.mln:3:", "nested more than 1000 deep"))
    add("deep negation", "`infer bang.mln -q P` (1,000,000 `!`)",
        "fatal error: stack overflow, exit 2, goroutine dump", ["infer", inp["bang"], "-q", "P"],
        refused("bang.mln:3:", "nested more than 1000 deep"))
    add("huge CNF header, infer", "`infer big.cnf` (`p cnf 10000000 1` + one clause, 24 bytes)",
        "107 s and 14.6 GB", ["infer", inp["cnf1e7"]], refused("would need about", "--max-memory"))
    add("huge CNF header, infer, budget given", "`--max-memory 2GB infer big.cnf`",
        "(no flag capped memory for CNF input)", ["--max-memory", "2GB", "infer", inp["cnf1e7"]],
        refused("more than the limit of 1.9 GiB", "--max-memory"))
    add("huge CNF header, count", "`count big.cnf` (10^7 variables, 1 clause)",
        "(part of the 10^7-variable blow-up)", ["count", inp["cnf1e7"]],
        lambda r: expect(r, 0, out=("log10 3010299",)), max_mb=2048)
    add("CNF header at 2^28, count", "`count huge.cnf` (`p cnf 268435456 1`)",
        "passed 7.8 GB, killed (the failing FuzzRead input)", ["count", inp["cnf2e28"]],
        refused("268435456 variables", "--max-memory"))
    add("10 MB of NUL bytes", "`infer nul.mln -q P`", "2.2 GB and 23 s, then an error at line 1",
        ["infer", inp["nul"], "-q", "P"], refused("byte 1 is NUL"))
    add("--horizon 1e9", "`infer --dynamic social-dynamic.mln … --horizon 1000000000`",
        "passed 5.9 GB, killed", ["infer"] + dyn + ["--horizon", "1000000000"], refused("--horizon 1000000000", "raise --max-ground or --max-memory"))
    add("--horizon 1e6", "`infer --dynamic social-dynamic.mln … --horizon 1000000`",
        "refused only after 4.8 GB and 18.6 s", ["infer"] + dyn + ["--horizon", "1000000"], refused("--horizon 1000000", "lower --horizon"))
    add("--horizon written 1e9", "`infer --dynamic … --horizon 1e9`", "(as above)",
        ["infer"] + dyn + ["--horizon", "1e9"], refused("want a whole number"))
    add("/dev/zero as -e", "`infer smokers.mln -e /dev/zero -q Cancer`", "grew without bound",
        ["infer", smk[0], "-e", "/dev/zero", "-q", "Cancer"], refused("byte 1 is NUL"))
    add("/dev/zero as include", '`infer inczero.mln` (`#include "/dev/zero"`)', "grew without bound",
        ["infer", inp["inczero"], "-q", "P"], refused("inczero.mln:3:", "/dev/zero"))

    def endless():
        # An endless stream of valid text (yes 'Smokes(A)') as the evidence,
        # read from a pipe under a 1 GB budget (a text input may take 1/8).
        y = subprocess.Popen(["yes", "Smokes(Anna)"], stdout=subprocess.PIPE, start_new_session=True)
        try:
            r = run([L, "--max-memory", "1GB", "infer", smk[0], "-e", "/dev/stdin", "-q", "Cancer"], timeout=60, stdin=y.stdout)
        finally:
            y.kill()
            y.wait()
            y.stdout.close()
        return r, expect(r, 1, ("--max-memory",)), ""
    P.append(Probe("endless text input", "`yes 'Smokes(Anna)' | --max-memory 1GB infer smokers.mln -e /dev/stdin`",
                   "grew without bound", endless))
    add("empty model", "`infer empty.mln -e smokers.db -q Cancer`", "ten 'unknown predicate' errors in the .db",
        ["infer", inp["empty"], "-e", smk[2], "-q", "Cancer"], refused("the model is empty"))
    add("bad number", "`infer smokers.mln … --samples abc`", "Go's strconv.ParseInt text",
        ["infer"] + smk + ["-q", "Cancer", "--samples", "abc"], lambda r: expect(r, 1, ('want a whole number',), notin=("strconv",)))
    add("flag typo", "`infer … --methd bp`", "'unknown flag' pointing at `lifted --help`",
        ["infer"] + smk + ["-q", "Cancer", "--methd", "bp"], refused("did you mean --method?", "lifted infer --help"))
    add("Alchemy flag typo", "`infer … -maxStep 5`", "no 'did you mean -maxSteps'",
        ["infer"] + smk + ["-q", "Cancer", "-maxStep", "5"], refused("did you mean -maxSteps?"))
    add("flag the method ignores", "`infer … -maxSteps 1000 --method jtree`", "ignored silently",
        ["infer"] + smk + ["-q", "Cancer", "-maxSteps", "1000", "--method", "jtree"], refused("does not use it"))
    for flag, extra in (("--plot", ["x.png"]), ("--horizon", ["5"]), ("--smooth", [])):
        add(f"{flag} without --dynamic", f"`infer smokers.mln … {flag} {' '.join(extra)}`".replace(" `", "`"),
            "exit 0, no file, no warning", ["infer"] + smk + ["-q", "Cancer", flag] + extra,
            refused("applies to dynamic MLNs only"), cwd=tmp)
    add("--version", "`lifted --version`", "no --version", ["--version"],
        lambda r: expect(r, 0, out=("lifted ", "built with go")))
    add("NaN prior", "`learn -i smokers.mln -t smokers.db --prior-stddev NaN`", "exit 0, every weight 0",
        ["learn", "-i", smk[0], "-t", smk[2], "--prior-stddev", "NaN"], refused("want a finite number"))
    add("Inf prior", "`learn … --prior-mean Inf`", "exit 0, every weight 0",
        ["learn", "-i", smk[0], "-t", smk[2], "--prior-mean", "Inf"], refused("want a finite number"))
    add("NaN tolerance", "`infer … --tol NaN`", "(NaN/Inf in numeric flags)",
        ["infer"] + smk + ["-q", "Cancer", "--tol", "NaN"], refused("want a finite number"))

    def e308():
        r = run([L, "infer", inp["e308"], "--method", "lbp"], timeout=60)
        j = run([L, "infer", inp["e308"], "--method", "jtree"], timeout=60)
        why = expect(r, 0)
        a, b = r.out.split(), j.out.split()
        try:
            diff = max(abs(float(x) - float(y)) for x, y in zip(a[1:], b[1:]))
            if len(a) != len(b) or diff > 1e-9:
                why.append(f"lbp differs from jtree by {diff:g}")
        except ValueError:
            why.append(f"answers lbp {r.out!r}, jtree {j.out!r}")
        return r, why, "= jtree's marginals (a tree): " + " ".join(a[2:])
    P.append(Probe("1e308 table entries", "`infer e308.uai --method lbp` (a 3-variable chain, entries 1e308)",
                   "'all entries zero'", e308))
    add("wfomc, 2^24 elements", "`wfomc smokers.mln --domain person=16777216`", "258 s silent",
        ["wfomc", smk[0], "--domain", "person=16777216"], lambda r: expect(r, 0, out=("expected counts",)))
    add("wfomc, 2^24 elements, a sum too large", "`wfomc deskmate.mln --domain student=16777216`", "258 s silent",
        ["wfomc", os.path.join(S, "wfomc/deskmate.mln"), "--domain", "student=16777216"], refused("--max-terms"))
    add("wfomc, 2^24 named constants", "`wfomc named24.mln` (173 MB: `person = {P0, …, P16777215}`)",
        "(not in the issue's list; a text input up to 1/8 of the budget is read)", ["wfomc", inp["named24"]],
        lambda r: expect(r, None), timeout=300, max_mb=4096)
    for m, extra in (("lp", []), ("ilp", []), ("maxwalksat", ["--max-flips", "2000000000"])):
        add(f"--time-limit, map {m}", f"`map UW-CSE --method {m} {' '.join(extra)} --time-limit 2s`".replace("  ", " "),
            {"lp": "exit 1 'context deadline exceeded', nothing printed, 1.6-11 s late", "ilp": "as lp",
             "maxwalksat": "exit 130 as if interrupted"}[m],
            ["map"] + uw + ["--method", m, "--time-limit", "2s"] + extra,
            lambda r: expect(r, 0, ("time limit reached",), ("advisedBy(",)) + ([f"{r.wall:.1f} s for a 2 s limit"] if r.wall > 4 else []),
            max_mb=2048)
    add("--time-limit, a method that cannot stop early", "`infer smokers.mln … --method jtree --time-limit 1s`",
        "(ignored)", ["infer"] + smk + ["-q", "Cancer", "--method", "jtree", "--time-limit", "1s"], refused("cannot stop early"))

    # Output files.
    def keep_mode():
        d = tempfile.mkdtemp(dir=tmp)
        o = write(os.path.join(d, "out.txt"), "old\n")
        os.chmod(o, 0o600)
        r = run([L, "infer"] + smk + ["-q", "Cancer", "-o", o])
        m = stat.S_IMODE(os.stat(o).st_mode)
        why = expect(r, 0) + ([f"mode {m:o}"] if m != 0o600 else [])
        with open(o) as f:
            if "Cancer(" not in f.read():
                why.append("not written")
        return r, why, f"mode after: {m:o}"
    P.append(Probe("-o over a 0600 file", "`infer … -o out.txt` (out.txt mode 0600)", "became 0644", keep_mode))

    def not_writable():
        d = tempfile.mkdtemp(dir=tmp)
        os.chmod(d, 0o777)  # the directory is writable by all, the file is not
        o = write(os.path.join(d, "root.txt"), "root's\n")
        os.chmod(o, 0o644)
        src = os.path.join(d, "smokers.mln")
        shutil.copy(smk[0], src)
        db = os.path.join(d, "smokers.db")
        shutil.copy(smk[2], db)
        os.chmod(src, 0o644)
        os.chmod(db, 0o644)
        if os.geteuid() != 0:
            return Run(0, "", "", 0, 0, False), [], "skipped: needs root to run as nobody"
        import pwd
        nb = pwd.getpwnam("nobody")
        r = run(["setpriv", f"--reuid={nb.pw_uid}", f"--regid={nb.pw_gid}", "--clear-groups", L,
                 "infer", src, "-e", db, "-q", "Cancer", "-o", o])
        st = os.stat(o)
        with open(o) as f:
            same = f.read() == "root's\n"
        why = expect(r, 1, ("permission denied",))
        if not same or st.st_uid != 0:
            why.append("the file was replaced")
        left = [e for e in os.listdir(d) if e.endswith(".tmp")]
        if left:
            why.append(f"left {left}")
        return r, why, f"root's file unchanged: {same}, owner uid {st.st_uid}"
    P.append(Probe("-o over a file the user may not write", "as `nobody`: `infer … -o root.txt` (root's 0644 file, directory 0777)",
                   "replaced (as a shell `>` would refuse)", not_writable))

    def dangling():
        d = tempfile.mkdtemp(dir=tmp)
        link = os.path.join(d, "link.txt")
        os.symlink("target.txt", link)
        r = run([L, "infer"] + smk + ["-q", "Cancer", "-o", link])
        why = expect(r, 0)
        is_link = os.path.islink(link)
        made = os.path.isfile(os.path.join(d, "target.txt"))
        if not is_link or not made:
            why.append(f"link kept {is_link}, target written {made}")
        return r, why, f"link kept: {is_link}, target.txt written: {made}"
    P.append(Probe("-o a dangling symlink", "`infer … -o link.txt` (link.txt → target.txt, absent)",
                   "the link replaced by a regular file", dangling))

    def looping():
        d = tempfile.mkdtemp(dir=tmp)
        a, b = os.path.join(d, "a.txt"), os.path.join(d, "b.txt")
        os.symlink("b.txt", a)
        os.symlink("a.txt", b)
        r = run([L, "infer"] + smk + ["-q", "Cancer", "-o", a])
        why = expect(r, 1, ("symbolic links",))
        if not os.path.islink(a) or not os.path.islink(b):
            why.append("a link was replaced")
        return r, why, "both links kept: %s" % (os.path.islink(a) and os.path.islink(b))
    P.append(Probe("-o a looping symlink", "`infer … -o a.txt` (a.txt → b.txt → a.txt)",
                   "replaced by a regular file", looping))

    def sigterm_tmp():
        # SIGTERM sent the moment the hidden temporary file appears (the
        # answer, 12 MB, is being written).
        d = tempfile.mkdtemp(dir=tmp)
        o = os.path.join(d, "chain.out")
        t0 = time.monotonic()
        p = start([L, "infer", inp["chain"], "--method", "bp", "--max-iter", "1", "--allow-unconverged", "-o", o], measure=False)
        seen = None
        while time.monotonic() - t0 < 120:
            # The answer's temporary file once it holds bytes (the empty
            # one of the start-up writability check lives microseconds).
            tmps = [e for e in os.listdir(d) if e.endswith(".tmp") and _size(os.path.join(d, e)) > 0]
            if tmps:
                seen = tmps[0]
                os.kill(p.pid, signal.SIGTERM)
                break
            if os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                break  # ended without our seeing the file
            time.sleep(0.001)
        r = finish(p, t0, 180)
        left = [e for e in os.listdir(d) if e.endswith(".tmp")]
        why = [f"left {left}"] if left else []
        if seen is None:
            why.append("the temporary file was never seen")
        if r.code not in (0, 130):
            why.append(f"exit {r.code}")
        whole = os.path.exists(o)
        if whole:
            with open(o) as f:
                n = sum(1 for _ in f)
            if r.code != 0 or n != 2:  # "MAR" and one line of 300,000 marginals
                why.append(f"chain.out of {n} lines after exit {r.code}")
        return r, why, (f"SIGTERM while {seen} was being written; left: {left or 'nothing'}; "
                        f"chain.out {'complete' if whole else 'not written'}")
    P.append(Probe("SIGTERM while the output is written", "`infer chain.uai … -o chain.out`, SIGTERM once `.chain.out.PID.0.tmp` exists",
                   "not handled: a hidden .NAME.PID.0.tmp (up to 51 MB) left", sigterm_tmp, max_mb=2048))
    add("world assumption said", "`infer smokers.mln -e smokers.db -q Cancer`", "Smokes closed-world silently",
        ["infer"] + smk + ["-q", "Cancer"], lambda r: expect(r, 0, ("closed world: Smokes, Friends", "Alchemy's rule")))

    if not skip_race:
        def race():
            env = dict(os.environ, GOFLAGS=os.environ.get("GOFLAGS", ""))
            t0 = time.monotonic()
            p = subprocess.run(["go", "test", "-race", "-count=1", "-run", "^TestConcurrentRun$", "./engine/"],
                               cwd=repo, capture_output=True, text=True, timeout=900, env=env)
            r = Run(p.returncode, p.stdout, p.stderr, time.monotonic() - t0, 0, False)
            why = [] if p.returncode == 0 and "DATA RACE" not in p.stdout + p.stderr else ["race or failure: " + (p.stdout + p.stderr)[-300:]]
            r.err = (p.stdout.strip().splitlines() or [""])[-1]
            return r, why, "includes compiling with -race; peak RSS not measured (go test)"
        P.append(Probe("16 goroutines on one engine.Model", "`go test -race -run TestConcurrentRun ./engine/`",
                       "3 race reports (mln.DB.Lookup's shared buffer)", race))

    if lib:
        env = dict(os.environ, PYTHONPATH=os.path.join(repo, "python"), LIFTED_LIB=lib, LIFTED_BIN=L)
        for key in ("deep", "bang"):
            script = ("import sys, lifted\ntry:\n    lifted.load(sys.argv[1])\n    print('loaded')\n"
                      "except lifted.LiftedError as e:\n    print('LiftedError:', e)\n")
            add(f"Python load, {'parentheses' if key == 'deep' else 'negations'}",
                f"`python3 -c 'lifted.load(\"{os.path.basename(inp[key])}\")'` (in-process)",
                "the interpreter aborted, exit 134", [sys.executable, "-c", script, inp[key]],
                lambda r: expect(r, 0, out=("LiftedError:", "nested more than 1000 deep")), binary=False, env=env)
    return P


def _size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


# ---------------------------------------------------------------- signals


def signal_case(L, name, argv, trigger, sig=signal.SIGINT, timeout=120, cwd=None):
    """Starts argv, sends sig once trigger holds (a number: seconds after the
    start; a string: a regular expression on stderr), and measures the time
    from the signal to the exit."""
    t0 = time.monotonic()
    p = start([L] + argv, stderr_pipe=True, cwd=cwd, measure=False)
    err = bytearray()
    sent = None
    done = threading.Event()

    def reader():
        while True:
            b = p.stderr.read1(4096) if hasattr(p.stderr, "read1") else p.stderr.read(4096)
            if not b:
                break
            err.extend(b)
        done.set()

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    while p.poll() is None and time.monotonic() - t0 < timeout:
        el = time.monotonic() - t0
        if isinstance(trigger, (int, float)) and el >= trigger or isinstance(trigger, str) and re.search(trigger, err.decode("utf-8", "replace")):
            sent = time.monotonic()
            os.kill(p.pid, sig)
            break
        time.sleep(0.002)
    if sent is None and p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)  # the trigger never came
    _, status, ru = os.wait4(p.pid, 0) if p.returncode is None else (p.pid, 0, None)
    end = time.monotonic()
    code = os.waitstatus_to_exitcode(status) if ru is not None else p.returncode
    done.wait(5)
    p._probe_out.close()
    text = err.decode("utf-8", "replace")
    lines = [l for l in text.splitlines() if l.strip() and not PROGRESS.match(l)]
    msg = next((l for l in lines if re.search(r"interrupted|terminated|stopped", l)), lines[-1] if lines else "")
    last_progress = [l for l in text.splitlines() if PROGRESS.match(l)]
    return {
        "name": name, "argv": argv, "sig": sig, "code": code,
        "at": None if sent is None else sent - t0,
        "took": None if sent is None else end - sent,
        "msg": msg.strip(), "backstop": "had not stopped by itself" in text,
        "stage": last_progress[-1].split("] ", 1)[1] if last_progress else "(no progress line yet)",
        "rss": ru.ru_maxrss if ru is not None else 0,
    }


def signal_cases(L, inp, shared, repo):
    U = os.path.join(shared, "data/mln/uwcse/tuffy-cse")
    uw = [os.path.join(U, "prog.mln"), "-e", os.path.join(U, "evidence.db"), "-q", "advisedBy"]
    S = os.path.join(repo, "examples/mln")
    m200, t200 = inp["friends200"]
    m600, t600 = inp["friends600"]
    m60, t60 = inp["friends60"]
    hard = os.path.join(shared, "data/cnf/ais12.cnf")
    return [
        ("UW-CSE reading and grounding: infer --method gibbs, at 0.1 s", ["infer"] + uw + ["--method", "gibbs"], 0.1),
        ("UW-CSE sampler set-up: infer --method gibbs, at 0.6 s", ["infer"] + uw + ["--method", "gibbs"], 0.6),
        ("UW-CSE sampler set-up: infer --method gibbs --allow-partial, at 0.6 s", ["infer"] + uw + ["--method", "gibbs", "--allow-partial"], 0.6),
        ("grounding (friends 200, 8e6 groundings)", ["infer", m200, "-q", "Friends", "--construction", "ground", "--method", "bp", "--max-ground", "100000000"], 1.5),
        ("infer --method gibbs (UW-CSE)", ["infer"] + uw + ["--method", "gibbs", "--samples", "100000000"], r"\] sampling:"),
        ("infer --method lbp (UW-CSE)", ["infer"] + uw + ["--method", "lbp", "--tol", "0", "--max-iter", "100000000"], 1.5),
        ("infer (auto, UW-CSE), in its sampler", ["infer"] + uw, r"\] sampling:"),
        ("infer --allow-partial (auto, UW-CSE), in its sampler", ["infer"] + uw + ["--allow-partial"], r"\] sampling:"),
        ("map --method lp (UW-CSE)", ["map"] + uw + ["--method", "lp"], 1.5),
        ("map --method ilp (UW-CSE)", ["map"] + uw + ["--method", "ilp"], 1.5),
        ("map --method maxwalksat (UW-CSE)", ["map"] + uw + ["--method", "maxwalksat", "--max-flips", "2000000000"], 1.5),
        ("map (map-auto, UW-CSE)", ["map"] + uw, 1.5),
        ("wfomc deskmate.mln --domain student=2000", ["wfomc", os.path.join(S, "wfomc/deskmate.mln"), "--domain", "student=2000"], 1.5),
        ("count --method exact ais12.cnf", ["count", "--method", "exact", hard], 1.5),
        ("learn --method pll (friends 200)", ["learn", "--method", "pll", "-i", m200, "-t", t200], 1.5),
        ("learn --method dn (friends 60), in Newton", ["learn", "--method", "dn", "-i", m60, "-t", t60], r"\] dn:"),
        ("learn --method sgd (friends 600)", ["learn", "--method", "sgd", "--ne", "Smokes", "-i", m600, "-t", t600], 1.5),
        ("SIGTERM: infer --method gibbs (UW-CSE)", ["infer"] + uw + ["--method", "gibbs", "--samples", "100000000"], r"\] sampling:", signal.SIGTERM),
        ("SIGTERM: learn --method pll (friends 200)", ["learn", "--method", "pll", "-i", m200, "-t", t200], 1.5, signal.SIGTERM),
    ]


PY_SIGINT = r"""
import os, signal, sys, threading, time
import lifted
m = lifted.load(sys.argv[1], sys.argv[2])
sent = []
def fire():
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(1.5, fire).start()
try:
    m.infer(["advisedBy"], "gibbs", samples=10**8, seed=1)
    print("finished")
except KeyboardInterrupt:
    print("KeyboardInterrupt after %.3f s" % (time.monotonic() - sent[0]))
r = m.infer(["advisedBy"], "gibbs", samples=50, seed=1, allow_unconverged=True)
print("then answered", len(r["marginals"]), "marginals")
m.close()
"""


def python_sigint(repo, lib, shared):
    U = os.path.join(shared, "data/mln/uwcse/tuffy-cse")
    env = dict(os.environ, PYTHONPATH=os.path.join(repo, "python"), LIFTED_LIB=lib)
    r = run([sys.executable, "-c", PY_SIGINT, os.path.join(U, "prog.mln"), os.path.join(U, "evidence.db")], timeout=180, env=env)
    return r


# ---------------------------------------------------------------- output


def cell(s, n=170):
    s = " ".join(str(s).split())
    if len(s) > n:
        s = s[: n - 1] + "…"
    return s.replace("|", "\\|")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lifted", help="the lifted binary")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--repo", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--shared", default=None, help="the shared data (default: REPO/../shared)")
    ap.add_argument("--lib", default=os.environ.get("LIFTED_LIB"), help="liblifted.so for the Python probes")
    ap.add_argument("--skip-race", action="store_true", help="skip the go test -race probe")
    ap.add_argument("--only", default="", help="run the probes and signal cases whose name matches this regular expression")
    ap.add_argument("--no-signals", action="store_true", help="without the signal table")
    ap.add_argument("--no-probes", action="store_true", help="the signal table only")
    a = ap.parse_args()
    L = os.path.abspath(a.lifted)
    repo = os.path.abspath(a.repo)
    shared = os.path.abspath(a.shared or os.path.join(repo, "..", "shared"))
    lib = os.path.abspath(a.lib) if a.lib and os.path.exists(a.lib) else None
    if shutil.which("prlimit") is None:
        sys.exit("probe: prlimit not found (util-linux)")
    tmp = tempfile.mkdtemp(prefix="lifted-probe-")
    os.chmod(tmp, 0o755)  # the nobody probe reads the binary's inputs there
    only = re.compile(a.only) if a.only else None

    def short(text):
        """text with the temporary, shared and repository paths shortened."""
        return text.replace(tmp, "$T").replace(shared + "/", "../shared/").replace(repo + "/", "")
    load0 = os.getloadavg()
    t_start = time.time()
    try:
        print("probe: generating inputs in", tmp, file=sys.stderr)
        inp = make_inputs(tmp, big=not a.no_probes)
        rows = []
        for pr in [] if a.no_probes else probes(L, inp, shared, repo, lib, tmp, a.skip_race):
            if only and not only.search(pr.name):
                continue
            print("probe:", pr.name, file=sys.stderr, flush=True)
            r, why, note = pr.fn()
            v = verdict(r, pr.max_mb, why)
            msg = r.message() if not pr.name.startswith("Python") else (r.out.strip().splitlines() or [""])[0]
            if r.crashed() or r.timed_out:
                msg = (r.err.strip().splitlines() or [""])[0]
            rows.append((pr, r, v, short(msg), short(note)))
        sig_rows = []
        if not a.no_signals:
            for c in signal_cases(L, inp, shared, repo):
                name, argv, trig = c[0], c[1], c[2]
                sig = c[3] if len(c) > 3 else signal.SIGINT
                if only and not only.search(name):
                    continue
                print("probe: signal:", name, file=sys.stderr, flush=True)
                sig_rows.append(signal_case(L, name, argv, trig, sig, cwd=tmp))
        py_sig = None
        if lib and not a.no_signals and (not only or only.search("python")):
            print("probe: signal: python", file=sys.stderr, flush=True)
            py_sig = python_sigint(repo, lib, shared)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()

    print(f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(t_start))}, {time.time() - t_start:.0f} s; "
          f"load average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end ({os.cpu_count()} cores).")
    print(f"Binary: `{L}`; every child under `prlimit --as={AS_CAP}` and a wall timeout; inputs generated in $T.\n")
    if rows:
        print("| probe | input / command | former behaviour (issue 39) | now: exit, message (stderr's first line; for an answer its summary) | peak RSS | wall s | verdict |")
        print("|---|---|---|---|---|---|---|")
    for pr, r, v, msg, note in rows:
        ex = "killed (timeout)" if r.timed_out else ("signal %d" % -r.code if r.code < 0 else str(r.code))
        m = cell(msg) + (("; " + cell(note, 160)) if note else "")
        rss = f"{r.rss_kb / MB:,.0f} MB" if r.rss_kb else "–"
        print(f"| {cell(pr.name)} | {cell(pr.shown)} | {cell(pr.former)} | {ex}: {m} | {rss} | {r.wall:.2f} | {v} |")
    if sig_rows or py_sig:
        print("\n| command | signal sent | exit | signal → exit | stopped by itself | message | stage at the signal (last progress line) |")
        print("|---|---|---|---|---|---|---|")
        for s in sig_rows:
            sig = "SIGINT" if s["sig"] == signal.SIGINT else "SIGTERM"
            if s["at"] is None:
                print(f"| {cell(s['name'])} | not sent: ended first | {s['code']} | – | – | {cell(short(s['msg']))} | |")
                continue
            ok = s["code"] in (130, 0) and s["took"] <= 0.5
            print(f"| {cell(s['name'])} | {sig} at {s['at']:.2f} s | {s['code']} | {s['took']:.3f} s{'' if ok else ' **(want 130 within 0.5 s)**'} | "
                  f"{'no: main ended it' if s['backstop'] else 'yes'} | {cell(short(s['msg']), 140)} | {cell(short(s['stage']), 90)} |")
        if py_sig:
            out = " ".join((py_sig.out + " " + py_sig.first()).split())
            m = re.search(r"after ([0-9.]+) s", out)
            took = m.group(1) + " s" if m else "–"
            print(f"| Python in-process: `m.infer(['advisedBy'], 'gibbs', samples=10**8)` on UW-CSE | SIGINT at 1.5 s (os.kill, own process) | "
                  f"{py_sig.code} (interpreter) | {took} | – | {cell(out)} | |")


if __name__ == "__main__":
    main()
