"""The exporter's torch op `turbofno::spectral_conv`: reference numerics against an independent float64
DFT-matrix oracle, argument validation, and the ONNX node it becomes (attributes, ORT numerics)."""
from __future__ import annotations

import numpy as np

import seeding
import onnx
import pytest
import torch

from export_util import TOL, attrs, rel_l2, run_ort, spectral_nodes
from turbofno import _op
from turbofno.export import torch_op
from turbofno.export.module import TurboSpectralConv


def _kept(size, p, q, last):
    return list(range(p)) if last else list(range(p)) + list(range(size - q, size))


def oracle(x, w, b, lows, highs, separable):
    """float64 numpy: explicit DFT matrices for the kept modes, explicit C2R on the last axis."""
    x = np.asarray(x, np.float64)
    wc = np.asarray(w, np.float64)[..., 0] + 1j * np.asarray(w, np.float64)[..., 1]
    d = len(lows)
    sizes = x.shape[2:]
    spec = x.astype(np.complex128)
    for j in range(d):  # forward DFT on kept frequencies only
        k = np.array(_kept(sizes[j], lows[j], highs[j], j == d - 1))
        n = np.arange(sizes[j])
        mat = np.exp(-2j * np.pi * np.outer(k, n) / sizes[j])          # [K, S]
        spec = np.moveaxis(np.tensordot(spec, mat, axes=([2 + j], [1])), -1, 2 + j)
    if separable:
        mixed = spec * wc[:, 0][None]
    else:
        mixed = np.einsum("ni...,io...->no...", spec, wc)
    out = mixed
    for j in range(d - 1):  # inverse DFT on the full axes (kept rows only are nonzero)
        k = np.array(_kept(sizes[j], lows[j], highs[j], False))
        n = np.arange(sizes[j])
        mat = np.exp(2j * np.pi * np.outer(n, k) / sizes[j]) / sizes[j]  # [S, K]
        out = np.moveaxis(np.tensordot(out, mat, axes=([2 + j], [1])), -1, 2 + j)
    s = sizes[-1]
    k = np.arange(lows[-1])
    coef = np.where((k == 0) | ((s % 2 == 0) & (k == s // 2)), 1.0, 2.0)
    z = out.copy()
    z[..., (k == 0) | ((s % 2 == 0) & (k == s // 2))] = z[..., (k == 0) | ((s % 2 == 0) & (k == s // 2))].real
    n = np.arange(s)
    mat = coef[:, None] * np.exp(2j * np.pi * np.outer(k, n) / s) / s    # [K, S]
    y = np.tensordot(z, mat, axes=([out.ndim - 1], [0])).real
    if b is not None:
        y = y + np.asarray(b, np.float64).reshape(-1, *([1] * d))
    return y


CASES = [  # (spatial, lows, highs, cin, cout, separable, bias)
    ((17,), [5], [0], 3, 4, 0, True),
    ((16,), [9], [0], 2, 2, 0, False),          # p = S//2+1: Nyquist kept
    ((12, 9), [3, 4], [2, 0], 3, 5, 0, True),
    ((10, 7), [5, 4], [5, 0], 4, 4, 1, True),    # p+q = S, odd last axis, separable
    ((6, 9, 8), [2, 3, 5], [1, 2, 0], 2, 3, 0, True),
    ((5, 6, 7), [3, 1, 2], [0, 3, 0], 3, 3, 1, False),
]


def _weights(cin, cout, lows, highs, separable, bias, seed):
    g = torch.Generator().manual_seed(seeding.torch_seed(seed))
    kept = [p + q for p, q in zip(lows, highs)]
    w = torch.randn((cin, 1 if separable else cout, *kept, 2), generator=g)
    b = torch.randn((cin if separable else cout,), generator=g) if bias else None
    return w, b


@pytest.mark.parametrize("spatial,lows,highs,cin,cout,sep,bias", CASES)
@pytest.mark.parametrize("norm", [0, 1, 2])
def test_reference_matches_float64_oracle(spatial, lows, highs, cin, cout, sep, bias, norm):
    w, b = _weights(cin, cout, lows, highs, sep, bias, seed=len(spatial) * 7 + norm)
    x = torch.randn((2, cin, *spatial), generator=torch.Generator().manual_seed(seeding.torch_seed(norm)))
    want = oracle(x.numpy(), w.numpy(), None if b is None else b.numpy(), lows, highs, sep)
    got64 = torch_op.spectral_conv_reference(x.double(), w.double(), None if b is None else b.double(),
                                             lows, highs, norm, sep)
    assert rel_l2(got64.numpy(), want) < 1e-12
    got32 = torch.ops.turbofno.spectral_conv(x, w, b, lows, highs, norm, sep)
    assert got32.dtype == torch.float32
    assert rel_l2(got32.numpy(), want) < 1e-6


@pytest.mark.parametrize("spatial,lows,highs,cin,cout,sep,bias", CASES)
def test_single_layer_onnx_node_and_ort(tmp_path, spatial, lows, highs, cin, cout, sep, bias):
    from turbofno.export import export

    w, b = _weights(cin, cout, lows, highs, sep, bias, seed=3)
    layer = TurboSpectralConv(w, b, lows, highs, norm="ortho", separable=bool(sep))
    x = torch.randn((2, cin, *spatial), generator=torch.Generator().manual_seed(seeding.torch_seed(5)))
    path = tmp_path / "layer.onnx"
    report = export(layer, x, path, verbose=False, rtol=TOL)
    assert [c.family for c in report.converted] == ["turbofno"]
    (node,) = spectral_nodes(path)
    a = attrs(node)
    assert a[_op.ATTR_MODES_LOW] == lows and a[_op.ATTR_MODES_HIGH] == highs
    assert a[_op.ATTR_NORM] == 2 and a[_op.ATTR_SEPARABLE] == sep
    assert a[_op.ATTR_PLUGIN_VERSION] == b"1" and a[_op.ATTR_PLUGIN_NAMESPACE] == b""
    types = {at.name: at.type for at in node.attribute}
    assert types[_op.ATTR_MODES_LOW] == onnx.AttributeProto.INTS
    assert types[_op.ATTR_NORM] == onnx.AttributeProto.INT
    assert types[_op.ATTR_PLUGIN_VERSION] == onnx.AttributeProto.STRING
    assert len(node.input) == (3 if bias else 2)
    model = onnx.load(str(path))
    assert model.ir_version <= 11
    assert {o.domain: o.version for o in model.opset_import}[_op.DOMAIN] == _op.OPSET_VERSION
    x3 = torch.randn((3, cin, *spatial), generator=torch.Generator().manual_seed(seeding.torch_seed(6)))  # another batch size
    want = oracle(x3.numpy(), w.numpy(), None if b is None else b.numpy(), lows, highs, sep)
    assert rel_l2(run_ort(path, x3.numpy())[0], want) <= TOL


def test_reference_rejects_bad_arguments():
    x = torch.randn(1, 2, 8, 8)
    w = torch.randn(2, 3, 4, 3, 2)
    f = torch_op.spectral_conv_reference
    with pytest.raises(ValueError, match="modes_low"):
        f(x, w, None, [2, 3, 1], [2, 0], 0, 0)
    with pytest.raises(ValueError, match="last axis"):
        f(x, torch.randn(2, 3, 4, 6, 2), None, [2, 6], [2, 0], 0, 0)
    with pytest.raises(ValueError, match="exceeds"):
        f(x, torch.randn(2, 3, 9, 3, 2), None, [5, 3], [4, 0], 0, 0)
    with pytest.raises(ValueError, match="Cin"):
        f(torch.randn(1, 3, 8, 8), w, None, [2, 3], [2, 0], 0, 0)
    with pytest.raises(ValueError, match="bias"):
        f(x, w, torch.randn(2), [2, 3], [2, 0], 0, 0)
    with pytest.raises(ValueError, match="norm"):
        f(x, w, None, [2, 3], [2, 0], 3, 0)
    with pytest.raises(ValueError, match="dtype"):
        f(x, w.double(), None, [2, 3], [2, 0], 0, 0)
    with pytest.raises(ValueError, match="mode dim"):
        f(x, w, None, [1, 3], [2, 0], 0, 0)


def test_module_rejects_inconsistent_weight():
    with pytest.raises(ValueError, match="mode dims"):
        TurboSpectralConv(torch.randn(2, 3, 4, 3, 2), None, [2, 2], [2, 0])
    with pytest.raises(ValueError, match="real"):
        TurboSpectralConv(torch.randn(2, 3, 4, 3, dtype=torch.cfloat), None, [2, 3], [2, 0])
