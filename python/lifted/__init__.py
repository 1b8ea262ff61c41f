"""Call the ``lifted`` command from Python.

Lifted probabilistic inference and learning on Markov logic networks and
factor graphs. This package is pure Python and has no dependencies: each
function runs the ``lifted`` binary with JSON output and returns what it
prints, parsed into dicts, lists, floats and strings.

    >>> import lifted
    >>> r = lifted.infer("smokers.mln", "smokers.db", "Smokes,Cancer")
    >>> r["marginals"]["Cancer(Anna)"]
    0.8175744761936437

Models, evidence and training data may be given as file paths or as text
(see ``infer``). Errors of the command are raised as ``LiftedError`` (a
``UsageError`` for a wrong call), whose ``file``, ``line`` and ``column``
say where in which input the problem is.

The binary is ``$LIFTED_BIN`` if set, else ``lifted`` on the PATH; build it
with ``go install ./cmd/lifted`` in the lifted repository.

In-process (native) path: ``lifted.load`` reads and parses a model once into
the lifted library, built as a C shared library (``liblifted.so``) and called
with ctypes, and its methods query it many times without re-parsing:

    >>> m = lifted.load("smokers.mln", evidence="smokers.db")
    >>> m.infer(query="Smokes,Cancer")["marginals"]["Cancer(Anna)"]
    0.8175744761936437
    >>> m.map(query="Cancer")["assignment"]["Cancer(Anna)"]
    1

``infer``, ``map`` and ``compress`` take ``native=True`` to run in-process
(load, query, free) instead of through the binary; ``lifted.NATIVE = True``
or ``LIFTED_NATIVE=1`` in the environment makes that the default. Both paths
return the same dicts: the same JSON document, written by the same Go code.
The library is ``$LIFTED_LIB`` if set, else ``liblifted.so`` next to this
file; ``python3 -m lifted.build_native`` builds it there (Go and a C
compiler needed).
"""

import json as _json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

__version__ = "0.1.0"

# map (lifted.map) is left out of __all__: a star import would hide the builtin.
__all__ = [
    "infer", "compress", "wfomc", "learn", "loglik", "count", "run", "load", "Model",
    "find_binary", "find_library", "LiftedError", "UsageError", "BinaryNotFoundError",
    "LibraryNotFoundError", "NATIVE",
]

# NATIVE is the default of the native= argument of infer, map and compress:
# True runs them in-process through the shared library (lifted.load), False
# through the binary. Set from $LIFTED_NATIVE ("1", "true", "yes": True).
NATIVE = os.environ.get("LIFTED_NATIVE", "").strip().lower() in ("1", "true", "yes", "on")


class LiftedError(Exception):
    """The lifted command failed.

    ``message`` is its error message (without the ``lifted:`` prefix), as in
    ``model.mln:2:11: unexpected "^", expected a formula``; ``file``,
    ``line`` and ``column`` are the position it names (``None`` where it
    names none; ``column`` may be ``None`` alone). ``stderr`` is everything
    the command wrote on stderr, ``returncode`` its exit status and
    ``command`` the argument list it ran with. Text given as a string is
    named after the temporary file it was written to: ``model.mln``,
    ``evidence.db``, ``evidence-2.db``, ``train.db``, …
    """

    def __init__(self, message, stderr="", returncode=None, command=None):
        super().__init__(message)
        self.message = message
        self.stderr = stderr
        self.returncode = returncode
        self.command = command
        self.file, self.line, self.column = _position(message)
        self.messages = []  # native path: the run's messages ({"level", "text"})


class UsageError(LiftedError):
    """The command was called wrongly: an unknown flag, a bad flag value,
    a missing query, an unknown predicate in the query, …"""


class BinaryNotFoundError(LiftedError):
    """No ``lifted`` binary: neither ``$LIFTED_BIN`` nor ``lifted`` on the PATH."""


class LibraryNotFoundError(LiftedError):
    """No lifted shared library for the native path: neither ``$LIFTED_LIB``
    nor ``liblifted.so`` next to the package (or it cannot be loaded). The
    message says how to build it."""


# "file:line:col: msg" at the start, or "(file:line:col)" / "file:line:col"
# inside the message (contradictory evidence names the formula's position).
_POS_START = re.compile(r"^([^\s:][^:\n]*?):(\d+)(?::(\d+))?: ")
_POS_INSIDE = re.compile(r"([^\s():\"']*[A-Za-z_][^\s():\"']*):(\d+):(\d+)")


def _position(message):
    m = _POS_START.match(message) or _POS_INSIDE.search(message)
    if not m:
        return None, None, None
    return m.group(1), int(m.group(2)), int(m.group(3)) if m.group(3) else None


def find_binary():
    """The path of the lifted binary: ``$LIFTED_BIN``, else ``lifted`` on the PATH."""
    env = os.environ.get("LIFTED_BIN")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise BinaryNotFoundError(
            f"LIFTED_BIN={env} is not an executable file; build the binary with "
            "'go build -o BIN ./cmd/lifted' in the lifted repository")
    path = shutil.which("lifted")
    if path:
        return path
    raise BinaryNotFoundError(
        "the lifted binary was not found: set LIFTED_BIN to its path, or put it on the PATH "
        "with 'go install ./cmd/lifted' in the lifted repository (it installs into "
        "$(go env GOPATH)/bin)")


# --- running the command ---------------------------------------------------

# The command's last line after a usage error: "Run 'lifted infer --help'
# for usage." (the subcommand's help, or the root's).
_USAGE_HINT = re.compile(r"^Run 'lifted( [a-z-]+)* --help' for usage\.$")


def run(args, quiet=True):
    """Runs ``lifted ARGS…`` and returns its standard output as text.

    The low-level call under the other functions; raises ``LiftedError`` or
    ``UsageError`` when the command fails. With ``quiet=False`` what it
    writes on stderr (progress, warnings, summaries) is copied to
    ``sys.stderr`` as it comes; otherwise it is kept only for errors.
    """
    cmd = [find_binary()] + [str(a) for a in args]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8",
                            errors="replace")
    err_lines = []

    def read_stderr():
        for line in proc.stderr:
            err_lines.append(line)
            if not quiet:
                sys.stderr.write(line)
                sys.stderr.flush()

    t = threading.Thread(target=read_stderr, daemon=True)
    t.start()
    try:
        out = proc.stdout.read()
        proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        t.join()
        proc.stdout.close()
        proc.stderr.close()
    stderr = "".join(err_lines)
    if proc.returncode != 0:
        raise _error(stderr, proc.returncode, cmd)
    return out


def _error(stderr, returncode, cmd):
    lines = [ln.rstrip("\r") for ln in stderr.splitlines() if ln.strip()]
    usage = any(_USAGE_HINT.match(ln) for ln in lines)
    lines = [ln for ln in lines if not _USAGE_HINT.match(ln)]
    # The error is the command's last line; earlier ones are progress or warnings.
    msg = lines[-1] if lines else f"lifted exited with status {returncode} and no message"
    if msg.startswith("lifted: "):
        msg = msg[len("lifted: "):]
    cls = UsageError if usage else LiftedError
    return cls(msg, stderr=stderr, returncode=returncode, command=cmd)


def _run_json(args, quiet):
    out = run(args + (["--quiet"] if quiet else []), quiet=quiet)
    try:
        return _json.loads(out)
    except ValueError as e:
        raise LiftedError(f"cannot parse the JSON output of lifted: {e}",
                          command=args) from None


class _Inputs:
    """Turns paths or text into file names for the command.

    Text is written into a temporary directory; error messages then name the
    file by its base name (model.mln, evidence.db, …) instead of the
    temporary path.
    """

    def __init__(self):
        self.dir = None
        self.used = set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[1] is not None and isinstance(exc[1], LiftedError):
            self.rename(exc[1])
        self.close()

    def rename(self, e):
        """Names the temporary files in e by their base names."""
        if not self.dir:
            return
        prefix = self.dir + os.sep
        e.message = e.message.replace(prefix, "")
        e.args = (e.message,) + e.args[1:]
        e.stderr = e.stderr.replace(prefix, "")
        if e.file and e.file.startswith(prefix):
            e.file = e.file[len(prefix):]
        else:
            e.file, e.line, e.column = _position(e.message)

    def close(self):
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def file(self, value, stem, ext):
        """A path for value: value itself if it is a path, else a new file holding it."""
        if isinstance(value, os.PathLike):
            return _safe_path(os.fspath(value))
        if not isinstance(value, str):
            raise TypeError(f"want a path or text, got {type(value).__name__}")
        if not _is_text(value):
            return _safe_path(value)
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="lifted-")
        name, i = stem + ext, 1
        while name in self.used:
            i += 1
            name = f"{stem}-{i}{ext}"
        self.used.add(name)
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(value)
        return path


def _is_text(s):
    """Whether the string s is file content rather than a path.

    A string naming an existing file is a path; one with a newline or a
    parenthesis, or one of digits and blanks only (UAI evidence), or an empty
    one, is text; any other is a path.
    """
    if s and os.path.isfile(s):
        return False
    return "\n" in s or "(" in s or re.fullmatch(r"[\d\s]*", s) is not None


def _safe_path(p):
    # A file name starting with '-' would be read as a flag.
    return "." + os.sep + p if p.startswith("-") else p


def _items(value):
    """None → [], a string or path → [it], an iterable → list."""
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [value]
    return list(value)


def _flags(options):
    """Keyword options as flags: max_iter=200 → --max-iter=200.

    True gives the bare flag, False --flag=false, None nothing; a list or
    tuple repeats the flag; a dict gives KEY=VALUE items (--domain).
    """
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if flag in ("--output", "--output-format", "--quiet", "--result"):
            raise TypeError(f"option {key!r} is set by the lifted package itself")
        if value is None:
            continue
        if isinstance(value, dict):
            value = [f"{k}={v}" for k, v in value.items()]
        if isinstance(value, (list, tuple)):
            args += [f"{flag}={_flag_value(v)}" for v in value]
        elif value is True:
            args.append(flag)
        else:
            args.append(f"{flag}={_flag_value(value)}")
    return args


def _flag_value(v):
    if v is False:
        return "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _model_ext(model, fmt, default=".mln"):
    """The file extension for model text: fmt's, else detected from the text."""
    if fmt:
        return "." + fmt
    if re.search(r"^\s*p\s+cnf\b", model, re.M):
        return ".cnf"
    for line in model.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s in ("MARKOV", "BAYES"):
            return ".uai"
        if re.fullmatch(r"\d+", s):
            return ".fg"
        break
    return default


def _evidence_text(evidence):
    """A dict {variable: value} as UAI evidence text."""
    items = sorted(evidence.items())
    return " ".join([str(len(items))] + [f"{int(k)} {int(v)}" for k, v in items]) + "\n"


# --- the subcommands -------------------------------------------------------

def infer(model, evidence=None, query=None, method=None, *, format=None,
          max_product=False, quiet=True, native=None, **options):
    """Marginals (or a MAP assignment) by lifted or ground BP: ``lifted infer``.

    model: a Markov logic network (``.mln``) or a factor graph (``.uai``,
    ``.fg``, ``.cnf``), as a path or as text. A string is a path if it names
    an existing file, or has no newline and no parenthesis; otherwise it is
    the file's content (add a newline to force text). ``format`` ("mln",
    "uai", "fg", "cnf") says how to read text that is not an MLN (detected
    otherwise: MARKOV/BAYES → uai, "p cnf" → cnf, a leading count → fg).

    evidence: for an MLN, Alchemy ``.db`` evidence: a path or text, or a
    list of them (read in order into one database; ``["Smokes(Anna)",
    "!Smokes(Bob)"]`` works). For a factor graph, a ``.evid`` path or text,
    or a dict {variable index: value}.

    query: MLN query predicates or atoms: ``"Smokes,Cancer"`` or
    ``["Smokes", "Friends(Anna,y)"]``.

    method: "auto" (the default: exact where cheap, else lifted BP), "lbp"
    (lifted BP), "bp" (ground BP), or any other method of ``lifted infer
    --help``. ``max_product=True`` asks for a MAP assignment (see also
    ``map``).

    native: True runs in-process through the shared library (load, query,
    free: see ``load``), False through the binary; None (the default) is
    ``lifted.NATIVE``. Both return the same dict.

    Other keyword options are the command's flags: ``max_iter=200``,
    ``damping=0.5``, ``schedule="seq"``, ``cw=["Friends"]``,
    ``default_weight=1.0``, ``merge_duplicates=True``, ``max_memory="4GB"``
    (the memory budget, ``--max-memory``, on both paths), …

    Returns the command's JSON output as a dict. For an MLN:
    ``{"marginals": {atom: P(true)}, "log_z": float, "stats": {...}}``
    (``"assignment": {atom: 0 or 1}`` instead of marginals under
    max_product); for a factor graph ``"marginals"`` is a list with each
    variable's distribution, ``"assignment"`` a list of states.
    """
    if _use_native(native):
        return _native_once("infer", model, evidence, format, quiet, options.get("dynamic", False),
                            query=query, method=method, max_product=max_product, **options)
    with _Inputs() as inp:
        args = ["infer"] + _model_args(inp, model, evidence, query, format)
        if method is not None:
            args.append(f"--method={method}")
        if max_product:
            args.append("--max-product")
        args += _flags(options) + ["--output-format=json"]
        return _run_json(args, quiet)


def map(model, evidence=None, query=None, method=None, *, format=None, quiet=True,
        native=None, **options):
    """A MAP assignment, the most probable world given the evidence
    (``lifted map``): anytime MAP with a bound by default (``method``
    "map-auto": MaxWalkSAT per component, then an LP bound and exact
    components; also "lp", "ilp", "maxwalksat", "bp", "lbp"). Arguments as
    for ``infer`` (flags: ``relaxation="local"``, ``symmetry="none"``,
    ``tries=5``, ``seed=1``, …). Returns the result dict with
    ``"assignment"`` ({atom: 0 or 1} for an MLN, a list of states for a
    factor graph), ``"objective"`` and, for map-auto, lp and ilp,
    ``"bound"`` and ``"gap"``. Named after the command; not in ``__all__``, so
    ``from lifted import *`` does not hide the builtin ``map``.
    """
    if _use_native(native):
        return _native_once("map", model, evidence, format, quiet, False,
                            query=query, method=method, **options)
    with _Inputs() as inp:
        args = ["map"] + _model_args(inp, model, evidence, query, format)
        if method is not None:
            args.append(f"--method={method}")
        args += _flags(options) + ["--output-format=json"]
        return _run_json(args, quiet)


def compress(model, evidence=None, query=None, *, format=None, quiet=True, native=None, **options):
    """Colour passing only (``lifted compress``): the sizes of the ground and
    the compressed graph, as a dict (the ``stats`` of ``infer``). Arguments
    as for ``infer``."""
    if _use_native(native):
        return _native_once("compress", model, evidence, format, quiet, False, query=query, **options)
    with _Inputs() as inp:
        args = ["compress"] + _model_args(inp, model, evidence, query, format) + _flags(options)
        return _run_json(args, quiet)


def _model_files(inp, model, evidence, fmt):
    """The model's path, the --format to pass (or None) and the evidence paths."""
    if isinstance(model, str) and _is_text(model):
        ext = _model_ext(model, fmt)
    else:
        ext = os.path.splitext(os.fspath(model))[1] or ".mln"
    path = inp.file(model, "model", ext)
    flag = None
    if fmt and not (isinstance(model, str) and _is_text(model)) and fmt != "mln":
        flag = fmt
    fg = fmt in ("uai", "fg", "cnf") or (not fmt and ext in (".uai", ".fg", ".cnf"))
    if isinstance(evidence, dict):
        evidence = _evidence_text(evidence)
    ev = []
    for e in _items(evidence):
        if isinstance(e, dict):
            e = _evidence_text(e)
        ev.append(inp.file(e, "evidence", ".evid" if fg else ".db"))
    return path, flag, ev


def _model_args(inp, model, evidence, query, fmt):
    path, flag, ev = _model_files(inp, model, evidence, fmt)
    args = [path]
    if flag:
        args.append(f"--format={flag}")
    args += ["--evidence=" + e for e in ev]
    for q in _items(query):
        args.append(f"--query={q}")
    return args


# --- the native path: the library in-process --------------------------------

def find_library():
    """The path of the shared library for the native path: ``$LIFTED_LIB``,
    else ``liblifted.so`` next to the package; raises
    ``LibraryNotFoundError`` saying how to build it."""
    from . import _native as nat
    return nat.find_library()


def _use_native(flag):
    return NATIVE if flag is None else bool(flag)


def _native_once(_mode, _model, _evidence, _fmt, _quiet, _dynamic, **kw):
    """Load, one query, free: the module's functions with native=True."""
    mode, quiet = _mode, _quiet
    start = time.monotonic()
    m = load(_model, _evidence, format=_fmt, dynamic=bool(_dynamic), quiet=quiet,
             max_memory=kw.get("max_memory"))
    read = time.monotonic() - start
    try:
        r = getattr(m, mode)(quiet=quiet, **kw)
    finally:
        m.close()
    # The whole run, as the command reports it (engine.Run): reading the
    # model and its evidence is the first stage and counts in the total.
    stats = r.get("stats") if isinstance(r, dict) else None
    if isinstance(stats, dict):
        if isinstance(stats.get("total_seconds"), (int, float)):
            stats["total_seconds"] += read
        if isinstance(stats.get("stages"), list):
            stats["stages"].insert(0, {"stage": "read", "seconds": read})
    return r


def load(model, evidence=None, *, format=None, dynamic=False, quiet=True, max_memory=None):
    """Reads and parses a model once, in-process, for many queries: a ``Model``.

    model, evidence and format as for ``infer`` (paths or text; text is kept
    in a temporary directory until the model is closed). ``dynamic=True``
    loads a dynamic MLN, whose evidence (files, or directories of per-step
    .db files) is read per time step by ``infer(dynamic=True, ...)``.

    Uses the shared library (``find_library``); raises
    ``LibraryNotFoundError`` without one, ``LiftedError`` with ``file``,
    ``line`` and ``column`` for a model or evidence that does not parse.
    With ``quiet=False`` the parser's warnings are printed on ``sys.stderr``.

    ``max_memory`` ("4GB", "512MB", a number of bytes) is the command's
    ``--max-memory`` for reading: an input longer than an eighth of it, or a
    declared size (a DIMACS header) whose estimate exceeds it, is refused
    with the size and the flag. The budget is the process's, so a call with
    ``max_memory`` runs alone: the library's calls in progress finish first
    and others wait for it. ``Model.infer``, ``map`` and ``compress`` take it
    too, for their query (the grounding and the factor graph).
    """
    from . import _native as nat
    inp = _Inputs()
    try:
        path, flag, ev = _model_files(inp, model, evidence, format)
        req = {"model": path, "format": flag or "", "evidence": ev, "dynamic": bool(dynamic)}
        if max_memory is not None:
            req["max_memory"] = str(max_memory)
        handle, doc = nat.call_load(req)
    except LiftedError as e:
        inp.rename(e)
        inp.close()
        raise
    except BaseException:
        inp.close()
        raise
    m = Model(handle, doc, inp, path, bool(dynamic))
    if not quiet:
        for w in m.warnings:
            sys.stderr.write("lifted: warning: " + w + "\n")
    return m


# The keyword options that are not method properties, with their keys in
# the library's run request (python/native/api.go's runRequest).
_RUN_OPTIONS = {
    "seed": "seed", "workers": "workers", "color_mode": "color_mode",
    "allow_unconverged": "allow_unconverged", "require_converged": "require_converged", "cw": "cw", "ow": "ow",
    "default_weight": "default_weight", "max_ground": "max_ground",
    "alchemy_cnf": "alchemy_cnf", "merge_duplicates": "merge_duplicates",
    "construction": "construction", "query_file": "query_files", "tolerance": "tolerance",
    "max_memory": "max_memory",
}
_DYNAMIC_OPTIONS = ("horizon", "protocol", "filter", "smooth")
_LIST_OPTIONS = ("cw", "ow", "query_file")


class Model:
    """A model read and parsed once by the lifted library (``lifted.load``),
    to be queried many times in-process.

    ``infer``, ``map`` and ``compress`` take the arguments of the module's
    functions of the same names, less the model and evidence, and return the
    same dicts. ``path`` is the model's file, ``format`` its format ("mln",
    "uai", "fg", "cnf"), ``warnings`` the parser's warnings and ``messages``
    the last query's lines for the user (``{"level": "info" | "warning" |
    "alert", "text"}``: which method answered and why, NOT CONVERGED
    alerts), which ``quiet=False`` also prints on ``sys.stderr``. ``close()``
    (or a ``with`` block, or garbage collection) frees it in the library.

    Thread-safe: queries on one model run one at a time (the library locks
    it); queries on different models run in parallel, outside the GIL.
    """

    def __init__(self, handle, doc, inputs, path, dynamic):
        self._handle = handle
        self._inputs = inputs
        self._lock = threading.Lock()
        self.path = path
        self.format = doc.get("format")
        self.warnings = list(doc.get("warnings") or [])
        self.dynamic = dynamic
        self.messages = []

    def __repr__(self):
        state = "closed" if self.closed else f"handle {self._handle}"
        return f"<lifted.Model {self.format} {self.path!r} ({state})>"

    @property
    def closed(self):
        return not self._handle

    def close(self):
        """Frees the model in the library (and its temporary files). Idempotent."""
        from . import _native as nat
        with self._lock:
            h, self._handle = self._handle, 0
        if h:
            nat.call_free(h)
        if self._inputs is not None:
            self._inputs.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def infer(self, query=None, method=None, *, max_product=False, quiet=True, **options):
        """Marginals (or, with ``max_product=True``, a MAP assignment): as
        ``lifted.infer``. ``dynamic=True`` with ``horizon``, ``protocol``,
        ``filter``, ``smooth`` runs a dynamic MLN (load it with
        ``dynamic=True``)."""
        return self._run("infer", query, method, max_product, quiet, options)

    def map(self, query=None, method=None, *, quiet=True, **options):
        """A MAP assignment: as ``lifted.map`` (method map-auto by default)."""
        return self._run("map", query, method, False, quiet, options)

    def compress(self, query=None, *, quiet=True, **options):
        """Colour passing only: as ``lifted.compress``."""
        return self._run("compress", query, None, False, quiet, options)

    def _run(self, mode, query, method, max_product, quiet, options):
        from . import _native as nat
        req = {"mode": mode, "query": [str(q) for q in _items(query)]}
        if method is not None:
            req["method"] = str(method)
        if max_product:
            req["max_product"] = True
        props = {}
        dyn = None
        for key, value in options.items():
            flag = "--" + key.replace("_", "-")
            if flag in ("--output", "--output-format", "--quiet", "--result"):
                raise TypeError(f"option {key!r} is set by the lifted package itself")
            if value is None:
                continue
            if key in ("plot", "plot_atom"):
                raise UsageError(f"{flag} is not available in-process; use native=False")
            if key == "dynamic":
                if value:
                    dyn = dyn or {}
            elif key in _DYNAMIC_OPTIONS:
                dyn = dyn or {}
                dyn[key] = value
            elif key == "prop":
                items = [f"{k}={v}" for k, v in value.items()] if isinstance(value, dict) else _items(value)
                for kv in items:
                    k, sep, v = str(kv).partition("=")
                    if not sep or not k:
                        raise UsageError(f"--prop {kv!r}: want NAME=VALUE")
                    props[k] = v
            elif key in _RUN_OPTIONS:
                if key in _LIST_OPTIONS:
                    value = [str(v) for v in _items(value)]
                elif key in ("default_weight", "tolerance"):
                    value = float(value)
                elif key == "max_memory":
                    value = str(value)
                req[_RUN_OPTIONS[key]] = value
            else:
                if isinstance(value, (list, tuple, dict)):
                    raise UsageError(f"{flag} takes one value")
                props[key.replace("_", "-")] = _flag_value(value)
        if props:
            req["properties"] = props
        if dyn is not None:
            if not self.dynamic:
                raise UsageError("dynamic=True needs a model loaded with lifted.load(..., dynamic=True)")
            req["dynamic"] = dyn
        with self._lock:
            if not self._handle:
                raise LiftedError("the model is closed")
            h = self._handle
        try:
            out, messages = nat.call_run(h, req)
        except LiftedError as e:
            if self._inputs is not None:
                self._inputs.rename(e)
            self.messages = e.messages
            _report(e.messages, quiet)
            raise
        self.messages = messages
        _report(messages, quiet)
        try:
            return _json.loads(out)
        except ValueError as e:
            raise LiftedError(f"cannot parse the JSON of the lifted library: {e}") from None


def _report(messages, quiet):
    """With quiet=False prints a run's messages on sys.stderr as the command
    writes them on its stderr (the subprocess path copies those lines; with
    quiet=True it keeps them to itself, and so does this)."""
    if quiet:
        return
    for m in messages:
        if m.get("level") == "info":
            sys.stderr.write("lifted: " + m.get("text", "") + "\n")
        else:
            sys.stderr.write("lifted: warning: " + m.get("text", "") + "\n")


def wfomc(mln, evidence=None, query=None, *, domain=None, count=None, quiet=True, **options):
    """Exact log Z, expected formula counts and query probabilities by
    weighted first-order model counting (``lifted wfomc``), without grounding.

    mln and evidence as for ``infer``; query: ground atoms or formulas
    (``["Smokes(Anna)", "Friends(Anna,Bob)"]``; a single string is one
    query); domain: ``{"person": 1000}`` (or ``"person=1000"``); count:
    ``{"Smokes": 3}`` fixes how many anonymous elements satisfy a unary
    predicate. Other flags as keyword options (``allow_ground=True``,
    ``default_weight=1.0``).

    Returns the result dict (engine/result.schema.json): ``log_z``,
    ``marginals`` ({query: probability}) and ``stats`` with
    ``expected_counts`` (per formula), ``digits_lost`` and ``seconds``.
    """
    with _Inputs() as inp:
        args = ["wfomc", inp.file(mln, "model", ".mln")]
        for e in _items(evidence):
            args.append("--evidence=" + inp.file(e, "evidence", ".db"))
        for q in _items(query):
            args.append(f"--query={q}")
        if isinstance(domain, str):
            domain = [domain]
        if isinstance(count, str):
            count = [count]
        args += _flags({"domain": domain, "count": count})
        args += _flags(options) + ["--output-format=json"]
        return _run_json(args, quiet)


def loglik(mln, databases, *, quiet=True, **options):
    """Exact test-set log-likelihood of each database under the MLN
    (``lifted loglik``), by weighted first-order model counting.

    databases: a path or text, or a list of them (each its own database,
    on its own domain). Returns ``{"databases": [{"db", "log_likelihood",
    "log_z", "counts"}, ...], "log_likelihood": total, "seconds": float}``;
    a database that violates a hard formula has ``log_likelihood`` None
    (−∞) and says which formula under ``"violated"``.
    """
    with _Inputs() as inp:
        args = ["loglik", inp.file(mln, "model", ".mln")]
        args += [inp.file(d, "test", ".db") for d in _items(databases)]
        args += _flags(options) + ["--output-format=json"]
        return _run_json(args, quiet)


def count(model, method=None, *, format=None, quiet=True, **options):
    """Model counting (``lifted count``) of a DIMACS CNF or a 0/1 UAI model,
    as a path or text: method "exact", "bpcount" or "lbpcount" (the
    default). Flags as keyword options (``trials=7``, ``seed=3``,
    ``timeout="30s"``, ``per_step=True``). Returns the result dict
    (engine/result.schema.json): ``log_z`` (the natural log of the count, or
    of its lower bound; ``log_z_kind`` says which) and ``stats``: for exact,
    ``count`` (a decimal string; ``int()`` it) and ``count_log10``; for the
    bounds, ``lower_bound_log10``, ``confidence``, ``estimates_log10``,
    message and edge counts, ….
    """
    with _Inputs() as inp:
        if isinstance(model, str) and _is_text(model):
            ext = _model_ext(model, format, default=".cnf")
        else:
            ext = os.path.splitext(os.fspath(model))[1] or ".cnf"
        args = ["count", inp.file(model, "model", ext)]
        if format and not (isinstance(model, str) and _is_text(model)):
            args.append(f"--format={format}")
        if method is not None:
            args.append(f"--method={method}")
        args += _flags(options) + ["--output-format=json"]
        return _run_json(args, quiet)


_WEIGHT = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_WEIGHTED = re.compile(r"^(@?)(" + _WEIGHT + r")\s+(\S.*)$")


def learn(mln, train, method=None, *, ne=None, quiet=True, **options):
    """Learns the formula weights of an MLN from training databases
    (``lifted learn``).

    mln: the MLN (path or text) whose weights to learn; train: a database
    or a list of them (paths or text), each its own example on its own
    domain. method: "lwl" (exact lifted likelihood, the default), "pll"
    (pseudo-likelihood), or "smd", "sgd", "scg", "lbfgs-bp" (which need
    ``ne``, the non-evidence predicates, e.g. ``ne=["Smokes", "Cancer"]``).
    Flags as keyword options (``prior_stddev=10``, ``max_iter=100``,
    ``seed=2``, ``passes=3``, …).

    Returns ``{"mln": the learned MLN text (what ``lifted learn`` writes),
    "formulas": [{"formula": text, "weight": float or None, "hard": bool,
    "fixed": bool}, ...], "weights": [...]}``, one entry per formula in the
    model's order; a hard formula has weight None, a fixed one (``@w``) its
    unchanged weight.
    """
    with _Inputs() as inp:
        args = ["learn", "--input=" + inp.file(mln, "model", ".mln")]
        for t in _items(train):
            args.append("--train=" + inp.file(t, "train", ".db"))
        if method is not None:
            args.append(f"--method={method}")
        if ne is not None:
            args += _flags({"ne": _items(ne)})
        args += _flags(options)
        text = run(args + (["--quiet"] if quiet else []), quiet=quiet)
    formulas = parse_learned(text)
    return {"mln": text, "formulas": formulas, "weights": [f["weight"] for f in formulas]}


def parse_learned(text):
    """The formulas of a learned MLN as ``lifted learn`` writes it.

    Its formulas are the lines after the last blank line (header comment,
    blank, declarations, blank, formulas): ``W formula``, ``@W formula``
    (fixed weight) or ``formula.`` (hard).
    """
    lines = text.splitlines()
    last_blank = max((i for i, ln in enumerate(lines) if not ln.strip()), default=-1)
    out = []
    for ln in lines[last_blank + 1:]:
        s = ln.strip()
        if not s or s.startswith("//"):
            continue
        m = _WEIGHTED.match(s)
        if m:
            out.append({"formula": m.group(3), "weight": float(m.group(2)),
                        "hard": False, "fixed": m.group(1) == "@"})
        elif s.endswith("."):
            out.append({"formula": s[:-1], "weight": None, "hard": True, "fixed": False})
        else:
            raise LiftedError(f"cannot read the learned formula {s!r}")
    return out
