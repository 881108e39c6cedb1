"""The op's optional `output_size` attribute (docs/op.md, "Output size"): resampling layers that end in
`irfftn(Y, s=T)`.

- the float64 reference equals torch.fft.irfftn(Y, s=T) and an explicit DFT sum written from the rule
  in docs/op.md (spectrum index f of a full axis stays f and is cut when f >= T_j; last-axis bins above
  T_d/2 are cut; C2R weights of T_d; the norm's two scales);
- ORT CPU vs that reference (fp32 <= 1e-5) for up/down/mixed scaling, odd sizes, d = 1..3, every norm,
  separable, fp16; ORT's shape inference reports T; malformed attributes are refused naming the node;
- on the CUDA EP (when installed) a resampling node matches the float64 reference.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ortutil import rel_l2, session  # noqa: E402
from turbofno._rules import kept_indices  # noqa: E402
from turbofno.reference import make_model, random_case, spectral_conv  # noqa: E402

# (S, modes_low, modes_high, T)
CASES = [
    ((16,), [9], [0], (40,)),               # upsample, Nyquist of S kept
    ((37,), [10], [0], (12,)),              # downsample: bins 7..9 cut off
    ((20,), [6], [0], (7,)),                # odd T
    ((12, 10), [3, 4], [2, 0], (24, 20)),   # x2: high block stays at index 10, 11 of 24
    ((16, 16), [3, 5], [3, 0], (8, 9)),     # /2: the high block (13..15) is cut off entirely
    ((15, 21), [4, 5], [4, 0], (31, 10)),   # odd, one axis up, one down
    ((14, 9), [2, 3], [3, 0], (13, 9)),     # one axis only
    ((6, 5, 7), [2, 2, 3], [1, 2, 0], (9, 4, 12)),
    ((8, 6, 10), [2, 1, 4], [2, 1, 0], (4, 12, 6)),
    ((8, 7, 5), [2, 4, 2], [2, 3, 0], (17, 2, 2)),   # T_1 > S_1 while K_2 > T_2: the largest CPU intermediate
]
IDS = ["x".join(map(str, s)) + "->" + "x".join(map(str, t)) for s, _, _, t in CASES]


def dft_oracle(x, w, b, low, high, norm, t_out):
    """Explicit float64 sums, written from docs/op.md's rule (no FFT library)."""
    x = x.astype(np.float64)
    wc = w[..., 0].astype(np.float64) + 1j * w[..., 1]
    n, cin, *s = x.shape
    d = len(s)
    cout = wc.shape[1]
    idx = [kept_indices(s[j], low[j], high[j], j == d - 1) for j in range(d)]
    y = np.zeros((n, cout, *t_out))
    grids_in = np.meshgrid(*[np.arange(v) for v in s], indexing="ij")
    grids_out = np.meshgrid(*[np.arange(v) for v in t_out], indexing="ij")
    scale = {0: 1 / np.prod(t_out), 1: 1 / np.prod(s), 2: 1 / np.sqrt(np.prod(s) * np.prod(t_out))}[norm]
    for m in itertools.product(*[range(len(i)) for i in idx]):
        f = [int(idx[j][m[j]]) for j in range(d)]
        ph_in = sum(f[j] * grids_in[j] / s[j] for j in range(d))
        xk = np.tensordot(x, np.exp(-2j * np.pi * ph_in), axes=d)      # [N, Cin]
        yk = xk @ wc[(slice(None), slice(None), *m)]                    # [N, Cout]
        if f[-1] > t_out[-1] // 2 or any(f[j] >= t_out[j] for j in range(d - 1)):
            continue                                                    # cut off by irfftn(s=T)
        c = 1.0 if f[-1] == 0 or 2 * f[-1] == t_out[-1] else 2.0
        ph_out = sum(f[j] * grids_out[j] / t_out[j] for j in range(d))
        y += c * np.real(yk[:, :, None] * np.exp(2j * np.pi * ph_out).reshape(1, 1, -1)).reshape(y.shape)
    return y * scale + b.reshape(1, -1, *([1] * d))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("norm", [0, 1, 2])
def test_reference_is_torch_irfftn_and_the_documented_rule(case, norm):
    torch = pytest.importorskip("torch")
    spatial, low, high, t_out = case
    rng = np.random.default_rng(norm)
    x, w, b = random_case(rng, spatial, low, high, batch=2, cin=2, cout=3, dtype=np.float64)
    ref = spectral_conv(x, w, b, modes_low=low, modes_high=high, norm=norm, output_size=t_out)
    assert ref.shape == (2, 3, *t_out)
    # torch: the layer as neuraloperator writes it (spectrum in the input's layout, then irfftn(s=T))
    d = len(spatial)
    names = {0: "backward", 1: "forward", 2: "ortho"}
    dims = tuple(range(-d, 0))
    spec = torch.fft.rfftn(torch.from_numpy(x), dim=dims, norm=names[norm])
    out = torch.zeros((2, 3, *spec.shape[2:]), dtype=torch.complex128)
    ix = np.ix_(*[kept_indices(s, p, q, j == d - 1) for j, (s, p, q) in enumerate(zip(spatial, low, high))])
    wc = torch.view_as_complex(torch.from_numpy(w).contiguous())
    for i, o in itertools.product(range(2), range(3)):
        out[:, o][(slice(None), *ix)] += spec[:, i][(slice(None), *ix)] * wc[i, o]
    y_torch = torch.fft.irfftn(out, s=t_out, dim=dims, norm=names[norm]).numpy() + b.reshape(1, 3, *([1] * d))
    assert rel_l2(ref, y_torch) < 1e-12
    assert rel_l2(ref, dft_oracle(x, w, b, low, high, norm, t_out)) < 1e-12


def test_norm_matters_only_when_resampling():
    rng = np.random.default_rng(3)
    x, w, b = random_case(rng, (12, 10), [3, 4], [2, 0], dtype=np.float64)
    same = [spectral_conv(x, w, b, modes_low=[3, 4], modes_high=[2, 0], norm=n, output_size=(12, 10)) for n in range(3)]
    assert max(rel_l2(same[0], s) for s in same) < 1e-13
    up = [spectral_conv(x, w, None, modes_low=[3, 4], modes_high=[2, 0], norm=n, output_size=(24, 20)) for n in range(3)]
    # backward: 1/prod(T), forward: 1/prod(S), ortho: in between -> ratios 4 and 2
    assert np.allclose(up[1], 4 * up[0]) and np.allclose(up[2], 2 * up[0])


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("norm", [0, 1, 2])
def test_ort_cpu_fp32(case, norm, ort_lib):
    spatial, low, high, t_out = case
    rng = np.random.default_rng(10 + norm)
    x, w, b = random_case(rng, spatial, low, high, batch=2, cin=3, cout=4)
    model = make_model(w, b, modes_low=low, modes_high=high, norm=norm, output_size=t_out)
    y = session(model, ort_lib).run(None, {"x": x})[0]
    ref = spectral_conv(x, w, b, modes_low=low, modes_high=high, norm=norm, output_size=t_out)
    assert y.shape == ref.shape
    assert rel_l2(y, ref) <= 1e-5


@pytest.mark.parametrize("case", [CASES[1], CASES[3], CASES[7]], ids=[IDS[1], IDS[3], IDS[7]])
def test_ort_cpu_separable_and_fp16(case, ort_lib):
    spatial, low, high, t_out = case
    rng = np.random.default_rng(7)
    x, w, b = random_case(rng, spatial, low, high, cin=4, separable=1)
    model = make_model(w, b, modes_low=low, modes_high=high, separable=1, norm=2, output_size=t_out)
    ref = spectral_conv(x, w, b, modes_low=low, modes_high=high, separable=1, norm=2, output_size=t_out)
    assert rel_l2(session(model, ort_lib).run(None, {"x": x})[0], ref) <= 1e-5
    x16, w16, b16 = (a.astype(np.float16) for a in (x, w, b))
    model16 = make_model(w16, b16, modes_low=low, modes_high=high, separable=1, norm=2, output_size=t_out)
    ref16 = spectral_conv(x16, w16, b16, modes_low=low, modes_high=high, separable=1, norm=2, output_size=t_out)
    y16 = session(model16, ort_lib).run(None, {"x": x16})[0]
    assert y16.dtype == np.float16 and rel_l2(y16, ref16) <= 3e-3


def test_ort_shape_inference_and_dynamic_input(ort_lib):
    """Symbolic N and S: the output's spatial dims are T; one session runs several input sizes."""
    rng = np.random.default_rng(0)
    _, w, b = random_case(rng, (16, 16), [4, 5], [4, 0])
    model = make_model(w, b, modes_low=[4, 5], modes_high=[4, 0], output_size=(24, 11))
    sess = session(model, ort_lib)
    assert sess.get_outputs()[0].shape == ["N", 4, 24, 11]   # our op's InferOutputShapeFn
    for n, s in [(1, (16, 16)), (3, (20, 9)), (2, (9, 30))]:
        x = rng.standard_normal((n, 3, *s)).astype(np.float32)
        y = sess.run(None, {"x": x})[0]
        ref = spectral_conv(x, w, b, modes_low=[4, 5], modes_high=[4, 0], output_size=(24, 11))
        assert y.shape == (n, 4, 24, 11) and rel_l2(y, ref) <= 1e-5


@pytest.mark.parametrize("value,needle", [
    ([24], "output_size has 1 entries"),
    ([24, 0], "output_size[1] = 0"),
    ([-3, 8], "output_size[0] = -3"),
    ([1, 2, 3, 4], "output_size has 4 entries"),
    ([8, 2 ** 40], "out of the int32 range"),
])
def test_ort_rejects_bad_output_size(value, needle, ort_lib):
    rng = np.random.default_rng(0)
    _, w, b = random_case(rng, (16, 16), [4, 5], [4, 0])
    model = make_model(w, b, modes_low=[4, 5], modes_high=[4, 0], attributes={"output_size": value},
                       node_name="resampler")
    with pytest.raises(Exception) as info:
        session(model, ort_lib).run(None, {"x": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)})
    msg = str(info.value)
    assert "SpectralConv node 'resampler'" in msg and needle in msg, msg


def test_ort_rejects_float_output_size(ort_lib):
    rng = np.random.default_rng(0)
    _, w, b = random_case(rng, (16,), [4], [0])
    model = make_model(w, b, modes_low=[4], modes_high=[0], attributes={"output_size": [2.5]}, node_name="fl")
    with pytest.raises(Exception, match=r"SpectralConv node 'fl'.*output_size' must be INTS"):
        session(model, ort_lib).run(None, {"x": rng.standard_normal((1, 3, 16)).astype(np.float32)})


def test_cuda_ep_matches_the_reference_when_resampling(ort_lib):
    """The CUDA kernel runs resampling layers (its separable algorithm) and matches the float64 reference."""
    import onnxruntime as ort

    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("onnxruntime has no CUDA execution provider here (runs on the GPU machine)")
    rng = np.random.default_rng(0)
    for spatial, low, high, out in [((16, 16), [4, 5], [4, 0], (32, 32)), ((24, 21), [5, 6], [4, 0], (12, 9)),
                                    ((40,), [9], [0], (63,))]:
        x, w, b = random_case(rng, spatial, low, high)
        model = make_model(w, b, modes_low=low, modes_high=high, output_size=out, node_name="up")
        sess = session(model, ort_lib, providers=("CUDAExecutionProvider", "CPUExecutionProvider"))
        assert sess.get_providers()[0] == "CUDAExecutionProvider"
        y = sess.run(None, {"x": x})[0]
        ref = spectral_conv(x.astype(np.float64), w, b, modes_low=low, modes_high=high, output_size=out)
        assert y.shape == ref.shape
        assert np.linalg.norm(y - ref) / np.linalg.norm(ref) <= 1e-5, (spatial, out)
