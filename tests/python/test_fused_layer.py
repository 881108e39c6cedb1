"""The fused layer (op version 2): y = act(SpectralConv(x) + skip_weight x + bias) (docs/op.md).

1. The float64 reference against an independent torch composition (rfftn / einsum / irfftn, a 1x1
   conv, torch.nn.functional activations), every activation.
2. ORT CPU against the reference: every activation, with / without skip and bias, d = 1..3, odd and
   non-power-of-two sizes, separable, fp32 (rel L2 <= 1e-5) and fp16; fresh random inputs.
3. Versions: v1 models and v2 models without the new inputs mean the same; bad skip_weight shapes,
   dtypes and activation values are errors naming the node, never crashes.
4. ORT CUDA (requires_cuda): the same numerics on the GPU, and in a CUDA-graph-captured session.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ortutil import rel_l2, session  # noqa: E402
from turbofno import _op  # noqa: E402
from turbofno.reference import make_model, random_case, spectral_conv  # noqa: E402

FP32_TOL = 1e-5
FP16_TOL = 3e-3
ACTS = sorted(_op.ACTIVATION_NAMES)  # 0..5

CASES = [
    ((37,), [7], [0]),
    ((16,), [9], [0]),                  # Nyquist kept
    ((7, 10), [2, 6], [3, 0]),          # odd x even, p_d == S//2 + 1
    ((20, 18), [5, 4], [4, 0]),
    ((5, 6, 7), [2, 2, 3], [2, 1, 0]),
]


def _case_id(v):
    return "x".join(map(str, v)) if isinstance(v, tuple) else None


def _fused_case(spatial, low, high, *, act, skip=True, bias=True, separable=0, dtype=np.float32, seed=None,
                batch=2, cin=5, cout=4):
    rng = np.random.default_rng(seed)
    x, w, b, sk = random_case(rng, spatial, low, high, batch=batch, cin=cin, cout=cout, separable=separable, bias=bias,
                              dtype=dtype, skip=True)
    sk = sk if skip else None
    model = make_model(w, b, modes_low=low, modes_high=high, separable=separable, skip_weight=sk, activation=act)
    ref = spectral_conv(x, w, b, sk, modes_low=low, modes_high=high, separable=separable, activation=act)
    return model, x, ref


# --- 1. the reference against torch ------------------------------------------------------------

def _torch_fused(x, w, b, sk, low, high, act):
    """Independent float64 composition in torch, written the way FNO code is."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    from test_reference import torch_spectral_conv

    y = torch.from_numpy(torch_spectral_conv(x, w, b, low, high, 0, 0))
    xt = torch.from_numpy(np.asarray(x, np.float64))
    if sk is not None:
        conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[xt.dim() - 2]
        skt = torch.from_numpy(np.asarray(sk, np.float64))
        y = y + conv(xt, skt.reshape(skt.shape + (1,) * (xt.dim() - 2)))
    fn = {0: lambda v: v, 1: F.gelu, 2: lambda v: F.gelu(v, approximate="tanh"), 3: F.relu, 4: F.silu, 5: torch.tanh}
    return fn[act](y).numpy()


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("spatial,low,high", [CASES[0], CASES[2], CASES[4]], ids=_case_id)
def test_reference_matches_torch(spatial, low, high, act):
    rng = np.random.default_rng()
    x, w, b, sk = random_case(rng, spatial, low, high, batch=2, cin=3, cout=4, dtype=np.float64, skip=True)
    x = 3 * x  # reach the activations' tails
    ref = spectral_conv(x, w, b, sk, modes_low=low, modes_high=high, activation=act)
    got = _torch_fused(x, w, b, sk, low, high, act)
    assert rel_l2(ref, got) <= 1e-12


def test_reference_rejects_bad_fused_args():
    rng = np.random.default_rng(0)
    x, w, b, sk = random_case(rng, (8,), [3], [0], cin=3, cout=4, skip=True)
    with pytest.raises(ValueError, match=r"skip_weight \[.*\] must have shape \[Cout, Cin\]"):
        spectral_conv(x, w, b, sk.T, modes_low=[3], modes_high=[0])
    with pytest.raises(ValueError, match="activation"):
        spectral_conv(x, w, b, sk, modes_low=[3], modes_high=[0], activation=6)


# --- 2. ORT CPU against the reference ----------------------------------------------------------

@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("spatial,low,high", CASES, ids=_case_id)
def test_cpu_fused_matches_reference(spatial, low, high, act, ort_lib):
    model, x, ref = _fused_case(spatial, low, high, act=act)
    y = session(model, ort_lib, threads=2).run(None, {"x": x})[0]
    assert y.dtype == np.float32 and np.isfinite(y).all()
    assert rel_l2(y, ref) <= FP32_TOL


@pytest.mark.parametrize("skip,bias", [(True, False), (False, True), (False, False)])
@pytest.mark.parametrize("act", [0, 1, 4])
def test_cpu_skip_bias_combinations(skip, bias, act, ort_lib):
    model, x, ref = _fused_case((9, 14), [3, 5], [2, 0], act=act, skip=skip, bias=bias)
    assert rel_l2(session(model, ort_lib).run(None, {"x": x})[0], ref) <= FP32_TOL


@pytest.mark.parametrize("act", [1, 5])
def test_cpu_separable_fused(act, ort_lib):
    model, x, ref = _fused_case((12, 11), [3, 4], [3, 0], act=act, separable=1, cin=6, cout=6)
    assert rel_l2(session(model, ort_lib).run(None, {"x": x})[0], ref) <= FP32_TOL


@pytest.mark.parametrize("act", [1, 2, 3])
@pytest.mark.parametrize("spatial,low,high", [CASES[0], CASES[3], CASES[4]], ids=_case_id)
def test_cpu_fused_fp16(spatial, low, high, act, ort_lib):
    model, x, ref = _fused_case(spatial, low, high, act=act, dtype=np.float16)
    y = session(model, ort_lib).run(None, {"x": x})[0]
    assert y.dtype == np.float16
    assert rel_l2(y, ref) <= FP16_TOL


def test_cpu_fused_larger_layer(ort_lib):
    """Many channels and several point chunks per batch entry (the skip epilogue's blocking)."""
    model, x, ref = _fused_case((48, 40), [8, 9], [8, 0], act=1, batch=3, cin=24, cout=40)
    assert rel_l2(session(model, ort_lib, threads=2).run(None, {"x": x})[0], ref) <= FP32_TOL


def test_cpu_fused_dynamic_batch_and_size(ort_lib):
    """One session, several batch / spatial sizes (symbolic dims), each against the reference."""
    rng = np.random.default_rng()
    _, w, b, sk = random_case(rng, (10, 12), [3, 4], [3, 0], cin=3, cout=5, skip=True)
    model = make_model(w, b, modes_low=[3, 4], modes_high=[3, 0], skip_weight=sk, activation=2)
    sess = session(model, ort_lib)
    for n, s in [(1, (10, 12)), (4, (13, 9)), (2, (6, 7))]:
        x = rng.standard_normal((n, 3, *s)).astype(np.float32)
        ref = spectral_conv(x, w, b, sk, modes_low=[3, 4], modes_high=[3, 0], activation=2)
        assert rel_l2(sess.run(None, {"x": x})[0], ref) <= FP32_TOL


def test_cpu_skip_as_graph_input(ort_lib):
    rng = np.random.default_rng()
    x, w, b, sk = random_case(rng, (11, 8), [3, 3], [2, 0], cin=3, cout=2, skip=True)
    model = make_model(w, b, modes_low=[3, 3], modes_high=[2, 0], skip_weight=sk, activation=3, weight_as_input=True)
    y = session(model, ort_lib).run(None, {"x": x, "weight": w, "bias": b, "skip_weight": sk})[0]
    ref = spectral_conv(x, w, b, sk, modes_low=[3, 3], modes_high=[2, 0], activation=3)
    assert rel_l2(y, ref) <= FP32_TOL


# --- 3. versions and errors ----------------------------------------------------------------------

def test_version_1_and_2_agree_without_fusion(ort_lib):
    rng = np.random.default_rng()
    x, w, b = random_case(rng, (9, 8), [3, 3], [2, 0])
    y1 = session(make_model(w, b, modes_low=[3, 3], modes_high=[2, 0], domain_version=1), ort_lib).run(None, {"x": x})[0]
    y2 = session(make_model(w, b, modes_low=[3, 3], modes_high=[2, 0], domain_version=2), ort_lib).run(None, {"x": x})[0]
    np.testing.assert_array_equal(y1, y2)
    assert rel_l2(y1, spectral_conv(x, w, b, modes_low=[3, 3], modes_high=[2, 0])) <= FP32_TOL


def test_fused_model_uses_version_2():
    rng = np.random.default_rng(0)
    _, w, b, sk = random_case(rng, (8,), [3], [0], skip=True)
    versions = {o.domain: o.version for o in make_model(w, b, modes_low=[3], modes_high=[0], skip_weight=sk).opset_import}
    assert versions[_op.DOMAIN] == _op.OPSET_VERSION_FUSED == 2


def _expect_error(model, feeds, pattern, ort_lib):
    with pytest.raises(Exception) as info:
        session(model, ort_lib).run(None, feeds)
    msg = str(info.value)
    assert "SpectralConv node 'spectral_conv'" in msg and re.search(pattern, msg), msg


@pytest.mark.parametrize("bad_shape", [(3, 4), (4,), (4, 3, 1), (5, 3)])
def test_bad_skip_shape(bad_shape, ort_lib):
    rng = np.random.default_rng(0)
    x, w, b = random_case(rng, (8,), [3], [0], cin=3, cout=4)
    model = make_model(w, b, modes_low=[3], modes_high=[0], skip_weight=np.ones(bad_shape, np.float32))
    _expect_error(model, {"x": x}, r"skip_weight \[.*\] must have shape \[Cout, Cin\] = \[4, 3\]", ort_lib)


def test_skip_dtype_mismatch(ort_lib):
    rng = np.random.default_rng(0)
    x, w, b = random_case(rng, (8,), [3], [0], cin=3, cout=4)
    model = make_model(w, b, modes_low=[3], modes_high=[0], skip_weight=np.ones((4, 3), np.float32), weight_as_input=True)
    feeds = {"x": x, "weight": w, "bias": b, "skip_weight": np.ones((4, 3), np.float16)}
    with pytest.raises(Exception, match="skip_weight|type"):
        session(model, ort_lib).run(None, feeds)


@pytest.mark.parametrize("value", [-1, 6, 2**40])
def test_bad_activation(value, ort_lib):
    rng = np.random.default_rng(0)
    x, w, b = random_case(rng, (8,), [3], [0])
    model = make_model(w, b, modes_low=[3], modes_high=[0], attributes={_op.ATTR_ACTIVATION: value}, domain_version=2)
    with pytest.raises(Exception, match="activation"):
        session(model, ort_lib).run(None, {"x": x})


def test_activation_of_wrong_type(ort_lib):
    rng = np.random.default_rng(0)
    x, w, b = random_case(rng, (8,), [3], [0])
    model = make_model(w, b, modes_low=[3], modes_high=[0], attributes={_op.ATTR_ACTIVATION: "gelu"}, domain_version=2)
    with pytest.raises(Exception, match="activation"):
        session(model, ort_lib).run(None, {"x": x})


# --- 4. ORT CUDA -------------------------------------------------------------------------------

@pytest.mark.requires_cuda
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("spatial,low,high", CASES, ids=_case_id)
def test_cuda_fused_matches_reference(spatial, low, high, dtype, act, ort_lib):
    from test_ort_cuda import cuda_session

    model, x, ref = _fused_case(spatial, low, high, act=act, dtype=dtype)
    y = cuda_session(model, ort_lib).run(None, {"x": x})[0]
    assert y.dtype == dtype and np.isfinite(y).all()
    assert rel_l2(y, ref) <= (FP32_TOL if dtype == np.float32 else 1e-2)


@pytest.mark.requires_cuda
def test_cuda_fused_graph_replay(ort_lib):
    """A CUDA-graph-captured session (enable_cuda_graph) replayed on new data, fixed device buffers."""
    import onnxruntime as ort

    from test_ort_cuda import cuda_session

    rng = np.random.default_rng()
    x, w, b, sk = random_case(rng, (20, 18), [5, 4], [4, 0], batch=3, cin=5, cout=4, skip=True)
    model = make_model(w, b, modes_low=[5, 4], modes_high=[4, 0], skip_weight=sk, activation=1,
                       x_shape=list(x.shape))
    sess = cuda_session(model, ort_lib, enable_cuda_graph="1", use_tf32="0")
    x_dev = ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)
    y_dev = ort.OrtValue.ortvalue_from_shape_and_type(list(x.shape[:1]) + [4] + list(x.shape[2:]), np.float32, "cuda", 0)
    binding = sess.io_binding()
    binding.bind_ortvalue_input("x", x_dev)
    binding.bind_ortvalue_output("y", y_dev)
    for _ in range(3):
        x_new = rng.standard_normal(x.shape).astype(np.float32)
        x_dev.update_inplace(x_new)
        sess.run_with_iobinding(binding)
        ref = spectral_conv(x_new, w, b, sk, modes_low=[5, 4], modes_high=[4, 0], activation=1)
        assert rel_l2(y_dev.numpy(), ref) <= FP32_TOL
