"""Helpers for the ORT tests: sessions from in-memory models, the error metric."""
from __future__ import annotations

import numpy as np


def _max_ir_version(ort) -> int:
    major, minor = (int(v) for v in ort.__version__.split(".")[:2])
    return 10 if (major, minor) >= (1, 18) else 9  # IR 10 arrived with onnxruntime 1.18


def session(model, lib_path: str, providers=("CPUExecutionProvider",), threads: int = 1):
    import onnxruntime as ort

    if model.ir_version > _max_ir_version(ort):  # lets the suite run on older runtimes (>= 1.17)
        model = type(model).FromString(model.SerializeToString())
        model.ir_version = _max_ir_version(ort)
    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib_path)
    opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), opts, providers=list(providers))


def run_model(model, lib_path: str, feeds: dict, providers=("CPUExecutionProvider",)) -> np.ndarray:
    return session(model, lib_path, providers).run(None, feeds)[0]


def rel_l2(got, ref) -> float:
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, f"shape {got.shape} != reference {ref.shape}"
    return float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-300))
