"""make_session: ORT's CUDA EP gets use_tf32=0 (fp32-exact) unless allow_tf32=True (issue 10)."""
from __future__ import annotations

import numpy as np
import pytest

from turbofno.session import fp32_exact_providers


def test_cuda_provider_gets_tf32_off_by_default():
    got = fp32_exact_providers(["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert got == [("CUDAExecutionProvider", {"use_tf32": "0"}), "CPUExecutionProvider"]


def test_allow_tf32_and_explicit_options_are_kept():
    assert fp32_exact_providers(["CUDAExecutionProvider"], allow_tf32=True) == [("CUDAExecutionProvider", {"use_tf32": "1"})]
    given = [("CUDAExecutionProvider", {"device_id": 1, "use_tf32": "1"}), ("CPUExecutionProvider", {})]
    assert fp32_exact_providers(given) == given  # an explicit choice wins
    with_opts = fp32_exact_providers([("CUDAExecutionProvider", {"enable_cuda_graph": "1"})])
    assert with_opts == [("CUDAExecutionProvider", {"enable_cuda_graph": "1", "use_tf32": "0"})]


def test_cpu_only_unchanged(ort_lib):
    pytest.importorskip("onnxruntime")
    from turbofno import make_session
    from turbofno.reference import make_model, random_case

    x, w, b = random_case(np.random.default_rng(0), (8,), [3], [0])
    sess = make_session(make_model(w, b, modes_low=[3], modes_high=[0]).SerializeToString(),
                        providers=["CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]


@pytest.mark.requires_cuda
def test_cuda_session_runs_without_tf32(ort_lib):
    import onnxruntime as ort

    from turbofno import make_session
    from turbofno.reference import make_model, random_case

    if hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
    x, w, b = random_case(np.random.default_rng(0), (8,), [3], [0])
    model = make_model(w, b, modes_low=[3], modes_high=[0]).SerializeToString()
    sess = make_session(model, providers=["CUDAExecutionProvider"])
    assert sess.get_provider_options()["CUDAExecutionProvider"]["use_tf32"] == "0"
    fast = make_session(model, providers=["CUDAExecutionProvider"], allow_tf32=True)
    assert fast.get_provider_options()["CUDAExecutionProvider"]["use_tf32"] == "1"
