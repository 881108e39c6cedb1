"""Helpers for the TensorRT plugin tests: finding the C++ harness, and converting an ONNX node's
attributes into plugin fields exactly as TensorRT's ONNX parser (onnx-tensorrt's fallback plugin
importer) does it for our creator:

- the node's op_type names the plugin; `plugin_version` (default "1") and `plugin_namespace`
  (default "") select the creator; the ONNX domain is ignored;
- only attributes named in the creator's getFieldNames() become fields; others (plugin_version,
  plugin_namespace, anything unknown) are dropped;
- for a kINT32 field: an INTS attribute becomes an int32 array and an INT attribute one int32, each
  value narrowed with a C++ static_cast (modulo 2^32);
- an absent attribute gives no field at all.
Other attribute types for our fields (FLOAT, STRING, ...) are outside the contract (docs/op.md says
INT / INTS); this emulation refuses them rather than guess what the parser does.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# What libturbofno_trt's creators advertise (checked against the harness output by the tests).
CREATOR_FIELDS = {"modes_low": "INT32", "modes_high": "INT32", "norm": "INT32", "separable": "INT32",
                  "output_size": "INT32", "activation": "INT32"}
# The PointwiseMLP creator's fields (both optional: hidden_activation 1 = gelu, activation 0 = identity).
MLP_CREATOR_FIELDS = {"hidden_activation": "INT32", "activation": "INT32"}
# PointwiseMLP's inputs in ONNX order (turbofno._op.MLP_INPUTS); TensorRT passes them positionally
# (trt_plugin/README.md).
from turbofno._op import MLP_INPUTS  # noqa: E402


def trt_library_or_skip() -> str:
    """libturbofno_trt.so; skips when this build has no CUDA (then no plugin is built), else a
    missing library is an error."""
    import pytest

    import turbofno
    from turbofno._info import build_info

    try:
        return turbofno.get_library_path("trt")
    except FileNotFoundError:
        try:
            info = build_info(turbofno.get_library_path("ort")) or {}
        except FileNotFoundError:
            info = {}
        if info.get("cuda_kernels") is False:
            pytest.skip("this build has no CUDA kernels, so no TensorRT plugin library")
        raise


def find_harness() -> str | None:
    """The trt_harness binary: $TURBOFNO_TRT_HARNESS, else a build folder of this checkout."""
    env = os.environ.get("TURBOFNO_TRT_HARNESS")
    if env:
        return env if os.access(env, os.X_OK) else None
    candidates = []
    if os.environ.get("TURBOFNO_LIB_DIR"):
        candidates.append(Path(os.environ["TURBOFNO_LIB_DIR"]) / "tests/cpp/trt_harness")
    candidates += [ROOT / "build/ci/tests/cpp/trt_harness", ROOT / "build-trt/tests/cpp/trt_harness"]
    candidates += sorted(ROOT.glob("build*/tests/cpp/trt_harness"))
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return shutil.which("trt_harness")


def narrow_int32(v: int) -> int:
    """C++ static_cast<int32_t>(int64_t): modulo 2^32 (what the parser does to INT/INTS values)."""
    return int(np.array([v], dtype=np.int64).astype(np.int32)[0])


def parser_fields(node, creator_fields=CREATOR_FIELDS) -> list[tuple[str, str, list[int]]]:
    """(name, type, values) per field, in the creator's field order, as the ONNX parser builds them."""
    from onnx import AttributeProto

    attrs = {a.name: a for a in node.attribute}
    out = []
    for name, ftype in creator_fields.items():
        a = attrs.get(name)
        if a is None:
            continue
        assert ftype == "INT32", "our creator only declares kINT32 fields"
        if a.type == AttributeProto.INTS:
            values = [narrow_int32(v) for v in a.ints]
        elif a.type == AttributeProto.INT:
            values = [narrow_int32(a.i)]
        else:
            raise ValueError(f"attribute {name!r} has ONNX type {a.type}; the contract requires INT/INTS")
        out.append((name, ftype, values))
    return out


def plugin_key(node) -> tuple[str, str, str]:
    """(plugin name, version, namespace) the parser looks up for this node."""
    attrs = {a.name: a for a in node.attribute}
    version = attrs["plugin_version"].s.decode() if "plugin_version" in attrs else "1"
    namespace = attrs["plugin_namespace"].s.decode() if "plugin_namespace" in attrs else ""
    return node.op_type, version, namespace


def write_case(path: Path, name: str, fields, shapes: dict, data_dir: Path | None = None,
               expect_error: str | None = None, dtype: str = "float32", op: str | None = None) -> None:
    """A harness case file (format: tests/cpp/trt_harness_main.cpp). For op="PointwiseMLP" the shapes
    are the inputs in TensorRT's positional order (dict order)."""
    lines = [f"name {name}", f"dtype {dtype}"]
    if op is not None:
        lines.append(f"op {op}")
    lines += [f"field {n} {t} {len(v)} " + " ".join(map(str, v)) for n, t, v in fields]
    lines += [f"shape {k} " + " ".join(map(str, dims)) for k, dims in shapes.items()]
    if data_dir is not None:
        lines.append(f"data {data_dir}")
    if expect_error:
        lines.append(f"expect_error {expect_error}")
    path.write_text("\n".join(lines) + "\n")
