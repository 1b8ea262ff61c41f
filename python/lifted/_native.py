"""The in-process path: the lifted library as a C shared library
(``liblifted.so``, built from ``python/native`` with ``go build
-buildmode=c-shared``), called with ctypes.

``lifted.load`` reads and parses a model once; its ``infer``, ``map`` and
``compress`` methods query it without re-parsing and return the same dicts
as the subprocess path (the same JSON document, written by the same Go
writer). Internal: use ``lifted.load`` and ``native=True``.
"""

import ctypes
import itertools
import json as _json
import os
import sys
import threading

_LIB_NAMES = {"darwin": "liblifted.dylib", "win32": "lifted.dll"}
LIB_NAME = _LIB_NAMES.get(sys.platform, "liblifted.so")
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_lib = None
_lib_path = None
_lib_lock = threading.Lock()


def build_hint():
    return ("build it with 'python3 -m lifted.build_native' (needs Go and a C compiler; run it "
            "from the lifted repository, or pass --repo), or with 'go build -buildmode=c-shared "
            f"-o {os.path.join(PACKAGE_DIR, LIB_NAME)} ./python/native' in the repository, or "
            "set LIFTED_LIB to the path of a liblifted.so you built")


def find_library():
    """The path of the shared library: ``$LIFTED_LIB``, else ``liblifted.so``
    next to the package. Raises ``LibraryNotFoundError`` saying how to build it."""
    from . import LibraryNotFoundError
    env = os.environ.get("LIFTED_LIB")
    if env:
        if os.path.isfile(env):
            return env
        raise LibraryNotFoundError(f"LIFTED_LIB={env} is not a file; " + build_hint())
    path = os.path.join(PACKAGE_DIR, LIB_NAME)
    if os.path.isfile(path):
        return path
    raise LibraryNotFoundError(
        f"the lifted shared library was not found (no $LIFTED_LIB, no {path}): " + build_hint())


def library():
    """The loaded library (loaded once per process: Go's runtime cannot be unloaded)."""
    global _lib, _lib_path
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = find_library()
        from . import LibraryNotFoundError
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
        except OSError as e:
            raise LibraryNotFoundError(f"cannot load {path}: {e}; " + build_hint()) from None
        lib.lifted_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong)]
        lib.lifted_load.restype = ctypes.c_void_p
        lib.lifted_run.argtypes = [ctypes.c_longlong, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.lifted_run.restype = ctypes.c_void_p
        lib.lifted_interrupt.argtypes = [ctypes.c_longlong]
        lib.lifted_interrupt.restype = ctypes.c_int
        if hasattr(lib, "lifted_interrupt_load"):  # a library built before it lacks it
            lib.lifted_interrupt_load.argtypes = [ctypes.c_longlong]
            lib.lifted_interrupt_load.restype = ctypes.c_int
        lib.lifted_free.argtypes = [ctypes.c_longlong]
        lib.lifted_free.restype = ctypes.c_int
        lib.lifted_handles.argtypes = []
        lib.lifted_handles.restype = ctypes.c_int
        lib.lifted_free_string.argtypes = [ctypes.c_void_p]
        lib.lifted_free_string.restype = None
        lib.lifted_version.argtypes = []
        lib.lifted_version.restype = ctypes.c_void_p
        _lib, _lib_path = lib, path
        return lib


def _take(lib, ptr):
    """The text of a returned C string, which is then freed."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", errors="replace")
    finally:
        lib.lifted_free_string(ptr)


def live_models():
    """The number of models the library holds (loaded and not yet freed)."""
    return library().lifted_handles()


def version():
    lib = library()
    return _json.loads(_take(lib, lib.lifted_version()))


# Tokens name the loads in flight for lifted_interrupt_load.
_load_tokens = itertools.count(1)


def call_load(request):
    """lifted_load: (handle, response dict); raises on an error document,
    KeyboardInterrupt on Ctrl-C (the load is stopped first)."""
    lib = library()
    h = ctypes.c_longlong(0)
    cancel = None
    if hasattr(lib, "lifted_interrupt_load"):
        token = next(_load_tokens)
        request = dict(request, token=token)
        cancel = lambda: lib.lifted_interrupt_load(token)  # noqa: E731

    def discard(ptr):  # a load that finished after all: forget its model
        lib.lifted_free_string(ptr)
        if h.value:
            lib.lifted_free(h.value)

    body = _json.dumps(request).encode("utf-8")
    out = _take(lib, _interruptible(cancel, lambda: lib.lifted_load(body, ctypes.byref(h)), discard))
    doc = _json.loads(out)
    if "error" in doc:
        if doc["error"].get("kind") == "interrupted":
            raise KeyboardInterrupt(doc["error"]["message"])
        raise _error(doc["error"])
    return h.value, doc


# How often the main thread looks for Ctrl-C while a native call runs, and
# how often it repeats lifted_interrupt until the call has returned.
_POLL_SECONDS = 0.05


def _interruptible(cancel, fn, discard):
    """fn() (a ctypes call, which releases the GIL) run so that Ctrl-C stops
    it as it stops the command: on the main thread the call runs in a helper
    thread while this one waits; KeyboardInterrupt (Ctrl-C, or SIGINT)
    cancels the call with cancel() (lifted_interrupt of its model, or
    lifted_interrupt_load of its token; None: nothing stops it, so it is
    left to finish in the background), waits for the call to return (about
    0.5 s) and is raised again. A second Ctrl-C while
    waiting raises at once, leaving the call to finish in the background.
    Elsewhere (a thread of the user's, where Python delivers no
    KeyboardInterrupt) fn is called directly. discard(result) releases what
    a call that returned after all brought back."""
    if threading.current_thread() is not threading.main_thread():
        return fn()
    box = {}
    # An Event, not Thread.join: a join interrupted by KeyboardInterrupt can
    # leave is_alive() false while the thread still runs (CPython 3.11).
    done = threading.Event()

    def work():
        try:
            box["out"] = fn()
        except BaseException as e:  # pragma: no cover (ctypes calls do not raise)
            box["err"] = e
        finally:
            done.set()

    threading.Thread(target=work, name="lifted-native-call", daemon=True).start()
    try:
        while not done.wait(_POLL_SECONDS):
            pass
    except KeyboardInterrupt:
        while cancel is not None and not done.is_set():
            cancel()
            done.wait(_POLL_SECONDS)
        if box.get("out"):
            discard(box["out"])
        raise
    if "err" in box:
        raise box["err"]
    return box["out"]


def call_run(handle, request):
    """lifted_run: (result text, messages list); raises on an error document,
    KeyboardInterrupt on Ctrl-C (the run is cancelled first)."""
    lib = library()
    msgs = ctypes.c_void_p(None)
    body = _json.dumps(request).encode("utf-8")

    def discard(ptr):
        lib.lifted_free_string(ptr)
        _take(lib, msgs.value)

    out = _take(lib, _interruptible(lambda: lib.lifted_interrupt(handle),
                                    lambda: lib.lifted_run(handle, body, ctypes.byref(msgs)), discard))
    messages = _take(lib, msgs.value)
    messages = _json.loads(messages) if messages else []
    if out.startswith('{"error":'):
        e = _json.loads(out)["error"]
        if e.get("kind") == "interrupted":
            raise KeyboardInterrupt(e["message"])
        raise _error(e, messages)
    return out, messages


def call_free(handle):
    if _lib is not None and handle:
        return _lib.lifted_free(handle) == 1
    return False


def _error(e, messages=()):
    from . import LiftedError, UsageError, _position
    cls = UsageError if e.get("kind") == "usage" else LiftedError
    err = cls(e["message"], returncode=3 if e.get("kind") == "not_converged" else 1)
    if e.get("file"):
        err.file, err.line, err.column = e["file"], e.get("line") or None, e.get("column") or None
    else:
        err.file, err.line, err.column = _position(e["message"])
    err.messages = list(messages)
    return err
