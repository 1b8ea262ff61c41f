"""A PEP 517 build backend for the lifted Python package, in the tree.

It needs nothing but the standard library, so ``pip install ./python``
works with no package index reachable: pip's isolated build environment
has nothing to install (``requires = []``). It builds a pure-Python wheel
(the files of ``lifted/``), an editable wheel (PEP 660: a ``.pth`` file
naming this directory) and an sdist.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "lifted"
SUMMARY = ("Lifted probabilistic inference and learning on Markov logic networks: "
           "runs the lifted command with JSON output")
REQUIRES_PYTHON = ">=3.8"
TAG = "py3-none-any"


def _version():
    with open(os.path.join(ROOT, NAME, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not m:
        raise RuntimeError("no __version__ in lifted/__init__.py")
    return m.group(1)


def _metadata():
    readme = ""
    if os.path.isfile(os.path.join(ROOT, "README.md")):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {_version()}\n"
        f"Summary: {SUMMARY}\n"
        f"Requires-Python: {REQUIRES_PYTHON}\n"
        "License: see the lifted repository\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def _package_files():
    """Paths, relative to ROOT, of the package's files (no caches)."""
    out = []
    for d, dirs, files in os.walk(os.path.join(ROOT, NAME)):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            # The shared library (python -m lifted.build_native) stays out:
            # the wheel is pure Python.
            if not f.endswith((".pyc", ".pyo", ".so", ".dylib", ".dll", ".h")):
                out.append(os.path.relpath(os.path.join(d, f), ROOT))
    return out


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}\n"


def _write_wheel(wheel_directory, entries):
    """Writes a wheel holding entries (arcname, bytes) plus the dist-info."""
    info = _dist_info()
    entries = list(entries) + [
        (f"{info}/METADATA", _metadata().encode()),
        (f"{info}/WHEEL", (
            "Wheel-Version: 1.0\n"
            "Generator: lifted_build\n"
            "Root-Is-Purelib: true\n"
            f"Tag: {TAG}\n").encode()),
    ]
    record = "".join(_record_line(a, d) for a, d in entries) + f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode()))
    name = f"{NAME}-{_version()}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in entries:
            zi = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return name


def _read(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


# PEP 517 hooks.

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory,
                        [(rel.replace(os.sep, "/"), _read(rel)) for rel in _package_files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file puts this directory on sys.path: edits take effect at once.
    return _write_wheel(wheel_directory, [(f"_{NAME}_editable.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    name = base + ".tar.gz"
    files = ["pyproject.toml", "README.md", os.path.join("_build", "lifted_build.py")]
    files += _package_files()
    tests = os.path.join(ROOT, "tests")
    if os.path.isdir(tests):
        files += [os.path.join("tests", f) for f in sorted(os.listdir(tests)) if f.endswith(".py")]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        def add(arcname, data):
            ti = tarfile.TarInfo(f"{base}/{arcname}")
            ti.size, ti.mtime, ti.mode = len(data), int(time.time()), 0o644
            t.addfile(ti, io.BytesIO(data))
        for rel in files:
            add(rel.replace(os.sep, "/"), _read(rel))
        add("PKG-INFO", _metadata().encode())
    return name
