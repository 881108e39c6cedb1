#!/usr/bin/env python3
"""Fetch the ONNX Runtime 1.29.0 C/C++ API headers (the only ORT files TurboFNO builds against).

They come from an npm package that bundles ORT 1.29.0 prebuilt frameworks; only the header folder is
extracted. The tarball's sha512 is checked against the npm `dist.integrity` pinned below: a mismatch
aborts. Usage: fetch_ort_headers.py DEST_INCLUDE_DIR [--tarball LOCAL.tgz]
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import io
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request

URL = "https://registry.npmjs.org/com.github.asus4.onnxruntime/-/com.github.asus4.onnxruntime-0.4.9.tgz"
INTEGRITY = "sha512-BkzxduSZ9IkeDP6Q8lz2TFU2ie7hSSvS7ZIfzMooExoq0CNzJnuuGaUJ7IsojBgqO4ouD1jXah8OYyJbCN29Fg=="
HEADER_DIR = "package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers/"
REQUIRED = ("onnxruntime_c_api.h", "onnxruntime_cxx_api.h")


def verify(data: bytes) -> None:
    algo, _, expected = INTEGRITY.partition("-")
    actual = base64.b64encode(hashlib.new(algo, data).digest()).decode()
    if actual != expected:
        raise SystemExit(f"fetch_ort_headers: integrity mismatch for {URL}\n  expected {INTEGRITY}\n  got      {algo}-{actual}")


def extract(data: bytes, dest: str) -> list[str]:
    names = []
    parent = os.path.dirname(os.path.abspath(dest))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".ort-headers-", dir=parent)  # fill, then rename: no half-written cache
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile() or not member.name.startswith(HEADER_DIR):
                    continue
                name = member.name[len(HEADER_DIR):]
                if not name or "/" in name or name.startswith("."):
                    continue  # flat header folder only; never write outside it
                with tar.extractfile(member) as src, open(os.path.join(tmp, name), "wb") as dst:
                    dst.write(src.read())
                names.append(name)
        missing = [h for h in REQUIRED if h not in names]
        if missing:
            raise SystemExit(f"fetch_ort_headers: {missing} not found under {HEADER_DIR} in the tarball")
        if os.path.isdir(dest):  # a previous partial or stale copy
            shutil.rmtree(dest)
        os.chmod(tmp, 0o755)  # mkdtemp makes it private
        os.replace(tmp, dest)
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp)
    return sorted(names)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest", help="include directory to create (e.g. ~/.cache/turbofno/ort-1.29.0/include)")
    ap.add_argument("--tarball", help="use this local copy of the npm tarball instead of downloading")
    args = ap.parse_args()
    if args.tarball:
        with open(args.tarball, "rb") as f:
            data = f.read()
    else:
        print(f"fetch_ort_headers: downloading {URL}", file=sys.stderr)
        with urllib.request.urlopen(URL, timeout=300) as r:
            data = r.read()
    verify(data)
    names = extract(data, args.dest)
    print(f"fetch_ort_headers: {len(names)} headers verified and extracted to {args.dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
