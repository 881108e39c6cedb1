"""SpectralConv through ONNX Runtime's CUDAExecutionProvider vs the float64 reference (docs/op.md).

Marked requires_cuda: skipped with the reason where onnxruntime has no CUDA EP, no GPU is visible or
the library was built without CUDA ops. The node must run on the CUDA EP (CPU fallback disabled).
Covers fp32 / fp16, d = 1, 2, 3, odd and non-power-of-two sizes, dense / separable, IOBinding with
device tensors, dynamic batch, a CUDA-graph-captured session replayed on new data, and bad input.
"""
from __future__ import annotations

import numpy as np

import seeding
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ortutil import rel_l2  # noqa: E402
from turbofno.reference import make_model, random_case, spectral_conv  # noqa: E402

pytestmark = pytest.mark.requires_cuda

TOL = {np.float32: 1e-5, np.float16: 1e-2}
CASES = [
    ((37,), [7], [0]),
    ((12, 17), [3, 5], [2, 0]),
    ((20, 18), [5, 4], [4, 0]),
    ((33, 40), [6, 9], [5, 0]),
    ((5, 6, 7), [2, 2, 3], [2, 1, 0]),
    ((8, 6, 9), [3, 3, 5], [2, 3, 0]),
]


def cuda_session(model, lib, **cuda_opts):
    import onnxruntime as ort

    if hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")  # the node must run on CUDA
    provider = ("CUDAExecutionProvider", {"device_id": 0, **cuda_opts})
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=[provider])
    assert "CUDAExecutionProvider" in sess.get_providers()
    return sess


def _ref(x, w, b, low, high, separable=0, norm=0):
    return spectral_conv(x.astype(np.float64), w.astype(np.float64), None if b is None else b.astype(np.float64),
                         modes_low=low, modes_high=high, separable=separable, norm=norm)


@pytest.mark.parametrize("spatial,low,high", CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else None)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("separable", [0, 1])
def test_cuda_matches_reference(spatial, low, high, dtype, separable, ort_lib):
    rng = seeding.rng(1055)
    x, w, b = random_case(rng, spatial, low, high, batch=2, cin=4, cout=3, separable=separable, dtype=dtype)
    sess = cuda_session(make_model(w, b, modes_low=low, modes_high=high, separable=separable, norm=2), ort_lib)
    y = sess.run(None, {"x": x})[0]
    assert y.dtype == dtype and np.isfinite(y).all()
    err = rel_l2(y, _ref(x, w, b, low, high, separable, norm=2))
    assert err <= TOL[dtype], f"rel L2 {err:.3g}"


def test_iobinding_device_tensors_and_dynamic_batch(ort_lib):
    import onnxruntime as ort

    rng = seeding.rng(1067)
    spatial, low, high = (24, 30), [5, 8], [4, 0]
    _, w, b = random_case(rng, spatial, low, high, batch=1, cin=6, cout=5)
    sess = cuda_session(make_model(w, b, modes_low=low, modes_high=high), ort_lib)
    for batch in (3, 1, 7):
        x = rng.standard_normal((batch, 6, *spatial)).astype(np.float32)
        xv = ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)
        yv = ort.OrtValue.ortvalue_from_shape_and_type([batch, 5, *spatial], np.float32, "cuda", 0)
        yv.update_inplace(np.full((batch, 5, *spatial), np.nan, np.float32))  # poison: every element must be written
        io = sess.io_binding()
        io.bind_ortvalue_input("x", xv)
        io.bind_ortvalue_output("y", yv)
        sess.run_with_iobinding(io)
        y = yv.numpy()
        assert np.isfinite(y).all()
        assert rel_l2(y, _ref(x, w, b, low, high)) <= 1e-5


def test_cuda_graph_session_replays_new_data(ort_lib):
    import onnxruntime as ort

    rng = seeding.rng(1088)
    spatial, low, high = (32, 20), [6, 7], [6, 0]
    x, w, b = random_case(rng, spatial, low, high, batch=2, cin=8, cout=8)
    sess = cuda_session(make_model(w, b, modes_low=low, modes_high=high, x_shape=[2, 8, *spatial]), ort_lib,
                        enable_cuda_graph="1")
    xv = ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)
    yv = ort.OrtValue.ortvalue_from_shape_and_type([2, 8, *spatial], np.float32, "cuda", 0)
    io = sess.io_binding()
    io.bind_ortvalue_input("x", xv)
    io.bind_ortvalue_output("y", yv)
    sess.run_with_iobinding(io)  # warm-up + capture
    sess.run_with_iobinding(io)  # replay
    assert rel_l2(yv.numpy(), _ref(x, w, b, low, high)) <= 1e-5
    x2 = rng.standard_normal(x.shape).astype(np.float32)
    xv.update_inplace(x2)
    sess.run_with_iobinding(io)  # replay on new data
    assert rel_l2(yv.numpy(), _ref(x2, w, b, low, high)) <= 1e-5


def test_bad_weight_shape_is_a_clear_error(ort_lib):
    rng = seeding.rng(0)
    x, w, b = random_case(rng, (16, 12), [3, 4], [3, 0], batch=1, cin=2, cout=2)
    model = make_model(w[:, :, :5], b, modes_low=[3, 4], modes_high=[3, 0], weight_as_input=True)
    sess = cuda_session(model, ort_lib)
    with pytest.raises(Exception, match="SpectralConv node 'spectral_conv'"):
        sess.run(None, {"x": x, "weight": w[:, :, :5], "bias": b})
