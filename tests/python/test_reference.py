"""The float64 NumPy reference (turbofno.reference) against an independent torch.fft composition.

The torch version works the way FNO code is written: slice each corner block of the spectrum and of
the weight and mix it with einsum; the reference instead gathers kept indices. Both in float64.
"""
from __future__ import annotations

import itertools

import numpy as np

import seeding
import pytest

torch = pytest.importorskip("torch")

from turbofno._rules import check_shapes as check_args  # noqa: E402
from turbofno.reference import random_case, spectral_conv  # noqa: E402

NORMS = {0: "backward", 1: "forward", 2: "ortho"}


def torch_spectral_conv(x, w, b, modes_low, modes_high, norm, separable):
    x = torch.from_numpy(np.asarray(x, np.float64))
    w = torch.from_numpy(np.asarray(w, np.float64))
    d = len(modes_low)
    dims = tuple(range(-d, 0))
    xf = torch.fft.rfftn(x, dim=dims, norm=NORMS[norm])
    wc = torch.view_as_complex(w.contiguous())
    cout = x.shape[1] if separable else w.shape[1]
    out = torch.zeros((x.shape[0], cout) + tuple(xf.shape[2:]), dtype=torch.complex128)
    # Corner blocks: per full axis the low block (weight rows [:p]) or the high block ([p:]).
    full_axes = [(modes_low[j], modes_high[j], x.shape[2 + j]) for j in range(d - 1)]
    for corner in itertools.product((0, 1), repeat=d - 1):
        xs, ws = [slice(None), slice(None)], [slice(None), slice(None)]
        empty = False
        for (p, q, s), hi in zip(full_axes, corner):
            if hi:
                xs.append(slice(s - q, s)); ws.append(slice(p, p + q)); empty |= q == 0
            else:
                xs.append(slice(0, p)); ws.append(slice(0, p)); empty |= p == 0
        xs.append(slice(0, modes_low[-1])); ws.append(slice(None))
        if empty:
            continue
        blk = xf[tuple(xs)]
        wb = wc[tuple(ws)]
        out[tuple(xs)] = blk * wb[:, 0][None] if separable else torch.einsum("ni...,io...->no...", blk, wb)
    y = torch.fft.irfftn(out, s=x.shape[2:], dim=dims, norm=NORMS[norm])
    if b is not None:
        y = y + torch.from_numpy(np.asarray(b, np.float64)).reshape((1, -1) + (1,) * d)
    return y.numpy()


def classic(spatial, m):
    """Classic FNO corners (Li et al.): p = q = m on full axes, k = m on the last."""
    return [m] * len(spatial), [m] * (len(spatial) - 1) + [0]


def centred(spatial, n):
    """neuraloperator's centred window of n modes per full axis: p = ceil(n/2), q = floor(n/2)."""
    return [(n + 1) // 2] * (len(spatial) - 1) + [n], [n // 2] * (len(spatial) - 1) + [0]


CASES = [
    # (spatial, modes_low, modes_high)
    ((15,), [5], [0]),
    ((16,), [9], [0]),                  # p_d == S_d//2 + 1 (Nyquist kept)
    ((12,), [7], [0]),
    ((7, 10), *classic((7, 10), 3)),
    ((9, 11), *centred((9, 11), 5)),
    ((6, 8), [4, 5], [2, 0]),           # p + q == S on axis 1, Nyquist on the last
    ((5, 6, 7), *classic((5, 6, 7), 2)),
    ((6, 7, 9), *centred((6, 7, 9), 3)),
    ((4, 5, 6), [3, 1, 4], [1, 4, 0]),  # asymmetric, p + q == S on both full axes
]


@pytest.mark.parametrize("norm", [0, 1, 2])
@pytest.mark.parametrize("spatial,modes_low,modes_high", CASES)
def test_reference_matches_torch(spatial, modes_low, modes_high, norm):
    rng = seeding.rng(abs(hash((spatial, norm))) % 2**32)
    for separable in (0, 1):
        x, w, b = random_case(rng, spatial, modes_low, modes_high, separable=separable, dtype=np.float64)
        got = spectral_conv(x, w, b, modes_low=modes_low, modes_high=modes_high, norm=norm, separable=separable)
        ref = torch_spectral_conv(x, w, b, modes_low, modes_high, norm, separable)
        assert got.shape == ref.shape
        err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        assert err < 1e-12, f"separable={separable}: rel L2 {err:g}"


def test_output_independent_of_norm():
    rng = seeding.rng(3)
    x, w, b = random_case(rng, (7, 9), [2, 3], [2, 0], dtype=np.float64)
    ys = [spectral_conv(x, w, b, modes_low=[2, 3], modes_high=[2, 0], norm=n) for n in (0, 1, 2)]
    assert np.allclose(ys[0], ys[1], rtol=1e-12, atol=1e-12) and np.allclose(ys[0], ys[2], rtol=1e-12, atol=1e-12)


def test_dc_nyquist_imag_ignored():
    """Only the kept modes contribute; a weight with imaginary DC part still yields a real output."""
    rng = seeding.rng(4)
    x, w, _ = random_case(rng, (8,), [5], [0], cin=2, cout=2, bias=False, dtype=np.float64)
    y = spectral_conv(x, w, None, modes_low=[5], modes_high=[0])
    ref = torch_spectral_conv(x, w, None, [5], [0], 0, 0)
    assert np.allclose(y, ref, atol=1e-12)


@pytest.mark.parametrize("args", [
    ((2, 3, 8), (3, 4, 5, 2), None, [6], [0]),          # p_d > S//2+1
    ((2, 3, 5, 8), (3, 4, 6, 4, 2), None, [3, 4], [3, 0]),  # p + q = 6 > S_1 = 5
    ((2, 3, 8), (3, 4, 4, 2), None, [4], [1]),          # q_d != 0
    ((2, 3, 8), (3, 4, 4, 2), (3,), [4], [0]),          # bias != [Cout]
    ((0, 3, 8), (3, 4, 4, 2), None, [4], [0]),          # empty batch
])
def test_reference_rejects(args):
    x_shape, w_shape, b_shape, low, high = args
    with pytest.raises(ValueError):
        check_args(x_shape, w_shape, b_shape, low, high, 0, 0)
