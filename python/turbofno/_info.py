"""`turbofno info`: versions, library paths and what the installed build contains."""
from __future__ import annotations

import importlib.metadata
import json
import os
import sys
from pathlib import Path

from turbofno import __version__
from turbofno._library import get_library_path


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def build_info(lib_path: str) -> dict | None:
    """The turbofno_build_info.json written by CMake next to libturbofno_ort.so (None if absent)."""
    p = Path(lib_path).parent / "turbofno_build_info.json"
    if not p.is_file():
        return None
    with open(p) as f:
        return json.load(f)


def collect() -> dict:
    info: dict = {"turbofno": __version__, "python": sys.version.split()[0]}
    for pkg in ("numpy", "onnxruntime", "onnxruntime-gpu", "onnx", "torch", "tensorrt"):
        info[pkg] = _package_version(pkg)
    if os.environ.get("TURBOFNO_LIB_DIR"):
        info["TURBOFNO_LIB_DIR"] = os.environ["TURBOFNO_LIB_DIR"]
    for kind in ("ort", "trt"):
        try:
            info[f"{kind}_library"] = get_library_path(kind)
        except FileNotFoundError as err:
            info[f"{kind}_library"] = f"missing ({err})"
    if not info["ort_library"].startswith("missing"):
        info["build"] = build_info(info["ort_library"])
    return info


def run(args) -> int:
    info = collect()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    width = max(len(k) for k in info)
    for key, value in info.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        print(f"{key:<{width}}  {value}")
    return 0 if not info["ort_library"].startswith("missing") else 1


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("info", help="show versions, library paths and build options")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)
