"""Locating the compiled adapter libraries (libturbofno_ort.so, libturbofno_trt.so).

Search order: $TURBOFNO_LIB_DIR (a dev build folder; the file may also sit in its ort_op/ or
trt_plugin/ subfolder) and nothing else when it is set; otherwise turbofno/lib/ inside this package,
then turbofno/lib/ of another copy on sys.path (a source checkout on PYTHONPATH shadowing the
installed package, which holds the compiled libraries).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

_FILE_NAMES = {"ort": "libturbofno_ort", "trt": "libturbofno_trt"}
_SUBDIRS = {"ort": "ort_op", "trt": "trt_plugin"}  # where a CMake build tree keeps them


def _suffix() -> str:
    if sys.platform == "win32":
        return ".dll"
    return ".dylib" if sys.platform == "darwin" else ".so"


def package_lib_dir() -> Path:
    return Path(__file__).resolve().parent / "lib"


def candidate_paths(kind: str) -> list[Path]:
    if kind not in _FILE_NAMES:
        raise ValueError(f"unknown library kind {kind!r}; expected one of {sorted(_FILE_NAMES)}")
    name = _FILE_NAMES[kind] + _suffix()
    env = os.environ.get("TURBOFNO_LIB_DIR")
    if env:
        base = Path(env)
        return [base / name, base / _SUBDIRS[kind] / name]
    paths = [package_lib_dir() / name]
    for entry in sys.path:
        p = Path(entry or ".").resolve() / "turbofno" / "lib" / name
        if p not in paths:
            paths.append(p)
    return paths


def get_library_path(kind: str = "ort") -> str:
    """Absolute path of the TurboFNO library of `kind` ("ort" or "trt"); FileNotFoundError if absent."""
    paths = candidate_paths(kind)
    for p in paths:
        if p.is_file():
            return str(p.resolve())
    where = ", ".join(str(p) for p in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    hint = ("unset TURBOFNO_LIB_DIR or point it at a build folder that has it"
            if os.environ.get("TURBOFNO_LIB_DIR") else
            "reinstall with `pip install .`" + (" on a machine with CUDA (nvcc)" if kind == "trt" else ""))
    raise FileNotFoundError(f"TurboFNO {kind} library not found (looked for {where}); {hint}")
