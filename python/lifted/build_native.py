"""Builds the lifted shared library for the native path (``lifted.load``).

    python3 -m lifted.build_native [--repo DIR] [--output PATH]

Runs ``go build -buildmode=c-shared -o PATH ./python/native`` in the lifted
repository: DIR, else the repository this package sits in (python/lifted),
else the current directory or one above it. PATH is by default
``liblifted.so`` next to the package, where ``lifted`` looks for it; for
another PATH set ``LIFTED_LIB=PATH``. Needs Go and a C compiler (cgo: gcc or
clang; on Debian ``apt-get install gcc``).
"""

import argparse
import os
import shutil
import subprocess
import sys

from . import _native

MODULE = "module github.com/lifted-dev/lifted"


def is_repo(d):
    try:
        with open(os.path.join(d, "go.mod"), encoding="utf-8") as f:
            first = f.readline().strip()
    except OSError:
        return False
    return first == MODULE and os.path.isdir(os.path.join(d, "python", "native"))


def find_repo(start=None):
    """The lifted repository: start, the one holding this package, or the
    current directory or one above it; None if none is found."""
    if start:
        return os.path.abspath(start) if is_repo(start) else None
    candidates = [os.path.dirname(os.path.dirname(_native.PACKAGE_DIR))]
    d = os.getcwd()
    while True:
        candidates.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for c in candidates:
        if is_repo(c):
            return c
    return None


def build(repo=None, output=None, go="go", verbose=True):
    """Builds the library; returns its path. Raises RuntimeError saying what is missing."""
    root = find_repo(repo)
    if root is None:
        raise RuntimeError(
            "not in the lifted repository (no go.mod of " + MODULE.split()[1] + " with python/native): "
            "run this from a checkout, or pass --repo DIR")
    if shutil.which(go) is None:
        raise RuntimeError(f"{go!r} not found: install Go (https://go.dev/dl/) or pass --go PATH")
    out = os.path.abspath(output or os.path.join(_native.PACKAGE_DIR, _native.LIB_NAME))
    env = dict(os.environ, CGO_ENABLED="1")
    cmd = [go, "build", "-buildmode=c-shared", "-o", out, "./python/native"]
    if verbose:
        print("+ (cd %s && %s)" % (root, " ".join(cmd)), file=sys.stderr)
    if not verbose:
        p = subprocess.run(cmd, cwd=root, env=env)
        returncode = p.returncode
    else:
        returncode = _build_with_progress(cmd, root, env, go)
    if returncode != 0:
        raise RuntimeError("go build failed (cgo needs a C compiler: gcc or clang)")
    header = os.path.splitext(out)[0] + ".h"
    if os.path.isfile(header):
        os.remove(header)  # the C header; Python does not need it
    return out


def _build_with_progress(cmd, root, env, go):
    """Runs go build -v, reporting on stderr how many of the packages it
    compiled so far (at most once a second), with the elapsed time and the
    time left at the rate so far; go's own messages pass through. Returns
    the exit status."""
    import time

    start = time.monotonic()
    print("lifted.build_native: listing the packages (a first build downloads the Go modules)...", file=sys.stderr, flush=True)
    lst = subprocess.run([go, "list", "-deps", "./python/native"], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pkgs = set(lst.stdout.split()) if lst.returncode == 0 else set()
    total = len(pkgs)
    p = subprocess.Popen(cmd[:2] + ["-v"] + cmd[2:], cwd=root, env=env, stderr=subprocess.PIPE, text=True)
    done, last = 0, 0.0
    for line in p.stderr:
        name = line.strip()
        if name in pkgs:
            done += 1
            now = time.monotonic()
            if now - last >= 1.0:
                last = now
                ran = now - start
                left = ""
                if 0 < done < total:
                    left = ", about %.0f s left" % (ran * (total - done) / done)
                print("lifted.build_native: [%.0f s] compiled %d of at most %d packages%s (cached ones are skipped)"
                      % (ran, done, total, left), file=sys.stderr, flush=True)
        else:
            sys.stderr.write(line)
    p.wait()
    if p.returncode == 0:
        print("lifted.build_native: built in %.0f s" % (time.monotonic() - start), file=sys.stderr, flush=True)
    return p.returncode


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m lifted.build_native", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", help="the lifted repository (default: found from here)")
    ap.add_argument("--output", help="where to write the library (default: next to the package)")
    ap.add_argument("--go", default="go", help="the go command (default: go)")
    args = ap.parse_args(argv)
    try:
        out = build(args.repo, args.output, args.go)
    except RuntimeError as e:
        print("lifted.build_native: " + str(e), file=sys.stderr)
        return 1
    default = os.path.join(_native.PACKAGE_DIR, _native.LIB_NAME)
    print(out)
    if os.path.abspath(out) != os.path.abspath(default):
        print(f"set LIFTED_LIB={out} for lifted to find it", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
