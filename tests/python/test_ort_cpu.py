"""SpectralConv through ONNX Runtime's CPU provider vs the float64 reference (docs/op.md).

d = 1, 2, 3; even, odd and non-power-of-two sizes; every norm; bias on/off; modes_high 0 and > 0;
separable; fp32 (rel L2 <= 1e-5) and fp16 inputs; dynamic shapes; weight as a graph input.
"""
from __future__ import annotations

import threading

import numpy as np

import seeding
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ortutil import rel_l2, session  # noqa: E402
from turbofno.reference import make_model, random_case, spectral_conv  # noqa: E402

FP32_TOL = 1e-5
FP16_TOL = 3e-3  # fp16 inputs and output rounding (~5e-4 each) with fp32 compute

# (spatial, modes_low, modes_high): even / odd / non-power-of-two sizes, classic and centred corners.
CASES = [
    ((16,), [5], [0]),
    ((15,), [8], [0]),            # odd, p_d == S//2 + 1
    ((24,), [13], [0]),           # even, Nyquist kept
    ((1,), [1], [0]),             # smallest size
    ((8, 8), [3, 4], [3, 0]),     # classic, power of two
    ((7, 10), [2, 6], [3, 0]),    # odd x even, p_d == S//2 + 1
    ((12, 9), [4, 3], [0, 0]),    # modes_high 0 everywhere
    ((6, 5), [4, 3], [2, 0]),     # p + q == S_1
    ((20, 18), [5, 4], [4, 0]),   # non-power-of-two, centred-style p = q + 1
    ((5, 6, 7), [2, 2, 3], [2, 1, 0]),
    ((8, 6, 9), [3, 3, 5], [2, 3, 0]),  # p + q == S_2, p_d == S//2 + 1
    ((4, 4, 4), [2, 2, 3], [2, 2, 0]),  # everything kept
]


def _check(spatial, low, high, *, norm=0, separable=0, bias=True, dtype=np.float32, seed=0, batch=2, cin=3, cout=4,
           tol=FP32_TOL, ort_lib):
    rng = seeding.rng(seed)
    x, w, b = random_case(rng, spatial, low, high, batch=batch, cin=cin, cout=cout, separable=separable, bias=bias,
                          dtype=dtype)
    model = make_model(w, b, modes_low=low, modes_high=high, norm=norm, separable=separable)
    y = session(model, ort_lib).run(None, {"x": x})[0]
    assert y.dtype == dtype
    ref = spectral_conv(x, w, b, modes_low=low, modes_high=high, norm=norm, separable=separable)
    err = rel_l2(y, ref)
    assert err <= tol, f"rel L2 {err:.3g} > {tol:g}"
    return err


@pytest.mark.parametrize("spatial,low,high", CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else None)
@pytest.mark.parametrize("norm", [0, 1, 2])
def test_fp32_matches_reference(spatial, low, high, norm, ort_lib):
    _check(spatial, low, high, norm=norm, bias=norm != 1, seed=norm, ort_lib=ort_lib)


@pytest.mark.parametrize("spatial,low,high", [CASES[1], CASES[5], CASES[9]])
@pytest.mark.parametrize("bias", [True, False])
def test_separable(spatial, low, high, bias, ort_lib):
    _check(spatial, low, high, separable=1, bias=bias, cin=5, ort_lib=ort_lib)


@pytest.mark.parametrize("spatial,low,high", [CASES[0], CASES[5], CASES[9]])
def test_fp16(spatial, low, high, ort_lib):
    _check(spatial, low, high, dtype=np.float16, tol=FP16_TOL, ort_lib=ort_lib)


def test_fp16_separable(ort_lib):
    _check((9, 14), [3, 5], [2, 0], dtype=np.float16, separable=1, tol=FP16_TOL, ort_lib=ort_lib)


def test_channels_and_batch(ort_lib):
    """Cin != Cout, larger channel counts, batch 1 and 5."""
    _check((10, 12), [3, 4], [3, 0], batch=1, cin=8, cout=3, ort_lib=ort_lib)
    _check((10, 12), [3, 4], [3, 0], batch=5, cin=2, cout=9, ort_lib=ort_lib)


def test_dynamic_shapes_one_session(ort_lib):
    """One session, symbolic N and S: different sizes run through the same kernel object."""
    rng = seeding.rng(7)
    low, high = [2, 3], [2, 0]
    _, w, b = random_case(rng, (8, 8), low, high)
    sess = session(make_model(w, b, modes_low=low, modes_high=high), ort_lib)
    assert sess.get_outputs()[0].shape == ["N", 4, "S1", "S2"]  # our op's shape inference
    for shape in [(1, 3, 8, 8), (3, 3, 11, 6), (2, 3, 4, 4), (2, 3, 9, 15)]:
        x = rng.standard_normal(shape).astype(np.float32)
        y = sess.run(None, {"x": x})[0]
        assert rel_l2(y, spectral_conv(x, w, b, modes_low=low, modes_high=high)) <= FP32_TOL


def test_static_shape_inference(ort_lib):
    rng = seeding.rng(8)
    _, w, _ = random_case(rng, (7, 10), [2, 4], [3, 0], cout=6, bias=False)
    sess = session(make_model(w, None, modes_low=[2, 4], modes_high=[3, 0], x_shape=[2, 3, 7, 10]), ort_lib)
    assert sess.get_outputs()[0].shape == [2, 6, 7, 10]


def test_weight_and_bias_as_graph_inputs(ort_lib):
    rng = seeding.rng(9)
    low, high = [3, 3], [2, 0]
    x, w, b = random_case(rng, (9, 7), low, high)
    sess = session(make_model(w, b, modes_low=low, modes_high=high, weight_as_input=True), ort_lib)
    y = sess.run(None, {"x": x, "weight": w, "bias": b})[0]
    assert rel_l2(y, spectral_conv(x, w, b, modes_low=low, modes_high=high)) <= FP32_TOL


def test_plugin_attributes_accepted(ort_lib):
    """ORT ignores the TensorRT STRING attributes plugin_version / plugin_namespace (docs/op.md)."""
    rng = seeding.rng(10)
    x, w, b = random_case(rng, (6, 6), [2, 3], [1, 0])
    model = make_model(w, b, modes_low=[2, 3], modes_high=[1, 0],
                       attributes={"plugin_version": "1", "plugin_namespace": "turbofno"})
    names = {a.name: a for a in model.graph.node[0].attribute}
    assert names["plugin_version"].s == b"1" and names["plugin_namespace"].s == b"turbofno"
    y = session(model, ort_lib).run(None, {"x": x})[0]
    assert rel_l2(y, spectral_conv(x, w, b, modes_low=[2, 3], modes_high=[1, 0])) <= FP32_TOL


def test_default_norm_and_separable(ort_lib):
    """norm and separable may be omitted (defaults 0)."""
    rng = seeding.rng(11)
    x, w, b = random_case(rng, (10,), [4], [0])
    model = make_model(w, b, modes_low=[4], modes_high=[0], attributes={"norm": None, "separable": None})
    y = session(model, ort_lib).run(None, {"x": x})[0]
    assert rel_l2(y, spectral_conv(x, w, b, modes_low=[4], modes_high=[0])) <= FP32_TOL


def test_concurrent_runs(ort_lib):
    """Two threads running one session (the kernel state is shared, the workspace is per call)."""
    rng = seeding.rng(12)
    low, high = [3, 4], [2, 0]
    _, w, b = random_case(rng, (10, 12), low, high)
    sess = session(make_model(w, b, modes_low=low, modes_high=high), ort_lib)
    xs = [rng.standard_normal((2, 3, 10, 12)).astype(np.float32) for _ in range(4)]
    errors = []

    def work(x):
        for _ in range(3):
            y = sess.run(None, {"x": x})[0]
            errors.append(rel_l2(y, spectral_conv(x, w, b, modes_low=low, modes_high=high)))

    threads = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 12 and max(errors) <= FP32_TOL


def test_make_session_helper(ort_lib, tmp_path):
    """turbofno.make_session registers the library (path and bytes)."""
    import turbofno

    rng = seeding.rng(13)
    x, w, b = random_case(rng, (8,), [3], [0])
    model = make_model(w, b, modes_low=[3], modes_high=[0])
    import onnxruntime as ort

    from ortutil import _max_ir_version

    model.ir_version = min(model.ir_version, _max_ir_version(ort))
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    ref = spectral_conv(x, w, b, modes_low=[3], modes_high=[0])
    for src in (str(path), path, model.SerializeToString()):
        sess = turbofno.make_session(src, providers=["CPUExecutionProvider"], intra_op_num_threads=1)
        assert rel_l2(sess.run(None, {"x": x})[0], ref) <= FP32_TOL
