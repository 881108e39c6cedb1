"""neuraloperator 2.0 -> ONNX (SpectralConv nodes) -> ORT CPU with our library, against PyTorch.

Single layers over ranks, sizes, odd mode counts, norms, bias, channel counts, separable,
max_n_modes and all factorizations; full FNO / TFNO models (positional embedding, lifting, skips,
channel MLP, domain padding, projection); and the cases that must fail loudly."""
from __future__ import annotations

import seeding

import pytest
import torch
from torch import nn

from export_util import export_and_check

neuralop = pytest.importorskip("neuralop")
from neuralop.layers.spectral_convolution import SpectralConv  # noqa: E402
from neuralop.models import FNO, TFNO  # noqa: E402

from turbofno.export import ConversionError, export  # noqa: E402


class Wrap(nn.Module):
    """A layer inside a model, with a skip so the graph has more than the one node."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x):
        y = self.conv(x)
        return y + x[:, : y.shape[1]] if y.shape[1] <= x.shape[1] else y


LAYERS = [  # (id, SpectralConv kwargs, input shape)
    ("1d", dict(in_channels=3, out_channels=4, n_modes=(7,), fft_norm="forward"), (2, 3, 20)),
    ("1d-odd-size", dict(in_channels=2, out_channels=2, n_modes=(10,), bias=False), (1, 2, 21)),
    ("2d-odd-modes", dict(in_channels=3, out_channels=5, n_modes=(5, 8), fft_norm="backward"), (2, 3, 16, 15)),
    ("2d-separable", dict(in_channels=4, out_channels=4, n_modes=(6, 6), separable=True, fft_norm="ortho"),
     (1, 4, 12, 10)),
    ("2d-modes-exceed-input", dict(in_channels=2, out_channels=3, n_modes=(20, 40)), (1, 2, 10, 12)),
    ("2d-max-n-modes", dict(in_channels=2, out_channels=2, n_modes=(5, 6), max_n_modes=(8, 5)), (2, 2, 14, 12)),
    ("3d", dict(in_channels=2, out_channels=3, n_modes=(4, 5, 6), bias=False), (1, 2, 8, 10, 9)),
    ("3d-separable-odd", dict(in_channels=3, out_channels=3, n_modes=(3, 5, 3), separable=True), (2, 3, 6, 8, 7)),
    ("2d-tucker", dict(in_channels=3, out_channels=4, n_modes=(6, 6), factorization="tucker", rank=0.5,
                       implementation="factorized"), (1, 3, 12, 12)),
    ("2d-tucker-reconstructed", dict(in_channels=3, out_channels=4, n_modes=(5, 6), factorization="tucker",
                                     rank=0.4, implementation="reconstructed"), (1, 3, 10, 11)),
    ("2d-cp", dict(in_channels=3, out_channels=3, n_modes=(6, 4), factorization="cp", rank=0.5,
                   implementation="factorized"), (1, 3, 12, 9)),
    ("3d-tt", dict(in_channels=2, out_channels=2, n_modes=(4, 4, 4), factorization="tt", rank=0.5,
                   implementation="factorized"), (1, 2, 8, 8, 8)),
    ("2d-cp-separable", dict(in_channels=4, out_channels=4, n_modes=(5, 6), factorization="cp", rank=0.5,
                             separable=True, implementation="factorized"), (1, 4, 10, 9)),
    ("1d-dense-factorized", dict(in_channels=2, out_channels=3, n_modes=(9,), factorization="dense",
                                 implementation="factorized"), (2, 2, 17)),
]


@pytest.mark.parametrize("kwargs,shape", [pytest.param(k, s, id=i) for i, k, s in LAYERS])
def test_spectral_conv_layer(tmp_path, kwargs, shape):
    torch.manual_seed(seeding.torch_seed(len(shape) + kwargs["in_channels"]))
    conv = SpectralConv(**kwargs)
    if conv.bias is not None:
        with torch.no_grad():
            conv.bias.normal_()  # the default init is small; make a wrong bias visible
    report = export_and_check(Wrap(conv), torch.randn(shape), tmp_path / "m.onnx", n_spectral=1)
    (layer,) = report.converted
    assert layer.path == "conv" and layer.family == "neuraloperator"
    assert layer.bias == (conv.bias is not None) and layer.separable == int(conv.separable)


FNOS = [
    ("fno1d", lambda: FNO(n_modes=(8,), in_channels=2, out_channels=1, hidden_channels=8, n_layers=2), (1, 2, 33)),
    ("fno2d-full", lambda: FNO(n_modes=(6, 7), in_channels=3, out_channels=2, hidden_channels=8, n_layers=3,
                               domain_padding=0.25, norm="group_norm", channel_mlp_skip="soft-gating",
                               fno_skip="linear"), (2, 3, 16, 13)),
    ("fno2d-preact-identity", lambda: FNO(n_modes=(5, 5), in_channels=1, out_channels=1, hidden_channels=6,
                                          n_layers=2, preactivation=True, fno_skip="identity",
                                          channel_mlp_skip="linear", positional_embedding=None), (1, 1, 12, 12)),
    ("tfno2d", lambda: TFNO(n_modes=(6, 6), in_channels=2, out_channels=2, hidden_channels=8, n_layers=2,
                            factorization="tucker", rank=0.4), (1, 2, 14, 14)),
    ("fno3d", lambda: FNO(n_modes=(4, 4, 4), in_channels=1, out_channels=1, hidden_channels=4, n_layers=2),
     (1, 1, 8, 8, 9)),
]


@pytest.mark.parametrize("factory,shape", [pytest.param(f, s, id=i) for i, f, s in FNOS])
def test_full_fno(tmp_path, factory, shape):
    torch.manual_seed(seeding.torch_seed(0))
    model = factory()
    original = {k: v.clone() for k, v in model.state_dict().items() if isinstance(v, torch.Tensor)}
    report = export_and_check(model, torch.randn(shape), tmp_path / "fno.onnx", n_spectral=model.n_layers)
    assert report.converted_paths == [f"fno_blocks.convs.{i}" for i in range(model.n_layers)]
    # the original model is untouched
    assert all(type(c) is SpectralConv for c in model.fno_blocks.convs)
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in original.items())


def test_older_opset(tmp_path):
    import onnx

    model = FNO(n_modes=(4, 6), in_channels=1, out_channels=1, hidden_channels=4, n_layers=1)
    report = export_and_check(model, torch.randn(1, 1, 8, 12), tmp_path / "m.onnx", n_spectral=1, opset=17)
    assert report.opset == 17
    assert {o.domain: o.version for o in onnx.load(str(tmp_path / "m.onnx")).opset_import}[""] == 17


def test_odd_size_on_non_last_axis_is_rejected(tmp_path):
    model = FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=4, n_layers=1)
    with pytest.raises(ConversionError, match=r"fno_blocks\.convs\.0.*SpectralConv.*odd on axis \[0\]"):
        export(model, torch.randn(1, 1, 15, 16), tmp_path / "m.onnx", verbose=False)
    assert not (tmp_path / "m.onnx").exists()


def test_half_precision_block_is_rejected(tmp_path):
    conv = SpectralConv(2, 2, n_modes=(4, 4), fno_block_precision="mixed")
    conv.forward = lambda x, output_shape=None: x  # chalf FFTs do not run on CPU; the converter must still refuse
    with pytest.raises(ConversionError, match=r"conv.*fno_block_precision"):
        export(Wrap(conv), torch.randn(1, 2, 8, 8), tmp_path / "m.onnx", verbose=False)


class RealPart(nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x):
        return self.conv(x).real


def test_complex_data_is_rejected(tmp_path):
    conv = SpectralConv(2, 2, n_modes=(4, 4), complex_data=True)
    with pytest.raises(ConversionError, match=r"'conv'.*complex_data"):
        export(RealPart(conv), torch.randn(1, 2, 8, 8), tmp_path / "m.onnx", verbose=False)
