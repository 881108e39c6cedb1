"""Classic FNO layers (Li et al. 2020) -> ONNX -> ORT, against PyTorch.

The layers below are our own faithful re-implementations of the paper's SpectralConv1d/2d/3d
(complex `weights1..4` corner blocks written by slice assignment) and of its FNO2d model
(channels-last input, grid features, padding, 1x1 skips), written for these tests."""
from __future__ import annotations

import seeding

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from export_util import export_and_check
from turbofno.export import ConversionError, ExportError, export


def _cweight(cin, cout, *modes):
    scale = 1 / (cin * cout)
    return nn.Parameter(scale * torch.rand(cin, cout, *modes, dtype=torch.cfloat))


class SpectralConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1):
        super().__init__()
        self.in_channels, self.out_channels, self.modes1 = in_channels, out_channels, modes1
        self.weights1 = _cweight(in_channels, out_channels, modes1)

    def forward(self, x):
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(x.shape[0], self.out_channels, x.size(-1) // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, : self.modes1] = torch.einsum("bix,iox->box", x_ft[:, :, : self.modes1], self.weights1)
        return torch.fft.irfft(out_ft, n=x.size(-1))


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super().__init__()
        self.in_channels, self.out_channels, self.modes1, self.modes2 = in_channels, out_channels, modes1, modes2
        self.weights1 = _cweight(in_channels, out_channels, modes1, modes2)
        self.weights2 = _cweight(in_channels, out_channels, modes1, modes2)

    def compl_mul2d(self, a, w):
        return torch.einsum("bixy,ioxy->boxy", a, w)

    def forward(self, x):
        m1, m2 = self.modes1, self.modes2
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(x.shape[0], self.out_channels, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, :m1, :m2] = self.compl_mul2d(x_ft[:, :, :m1, :m2], self.weights1)
        out_ft[:, :, -m1:, :m2] = self.compl_mul2d(x_ft[:, :, -m1:, :m2], self.weights2)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


class SpectralConv3d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2, modes3):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.modes1, self.modes2, self.modes3 = modes1, modes2, modes3
        for i in range(1, 5):
            setattr(self, f"weights{i}", _cweight(in_channels, out_channels, modes1, modes2, modes3))

    def compl_mul3d(self, a, w):
        return torch.einsum("bixyz,ioxyz->boxyz", a, w)

    def forward(self, x):
        m1, m2, m3 = self.modes1, self.modes2, self.modes3
        x_ft = torch.fft.rfftn(x, dim=[-3, -2, -1])
        out_ft = torch.zeros(x.shape[0], self.out_channels, x.size(-3), x.size(-2), x.size(-1) // 2 + 1,
                             dtype=torch.cfloat)
        out_ft[:, :, :m1, :m2, :m3] = self.compl_mul3d(x_ft[:, :, :m1, :m2, :m3], self.weights1)
        out_ft[:, :, -m1:, :m2, :m3] = self.compl_mul3d(x_ft[:, :, -m1:, :m2, :m3], self.weights2)
        out_ft[:, :, :m1, -m2:, :m3] = self.compl_mul3d(x_ft[:, :, :m1, -m2:, :m3], self.weights3)
        out_ft[:, :, -m1:, -m2:, :m3] = self.compl_mul3d(x_ft[:, :, -m1:, -m2:, :m3], self.weights4)
        return torch.fft.irfftn(out_ft, s=(x.size(-3), x.size(-2), x.size(-1)))


class FNO2d(nn.Module):
    """The paper's 2D model: input [B, X, Y, C] channels-last, grid features, padding, 1x1 skips."""

    def __init__(self, modes1, modes2, width, in_channels=1, padding=9):
        super().__init__()
        self.padding = padding
        self.fc0 = nn.Linear(in_channels + 2, width)
        self.convs = nn.ModuleList(SpectralConv2d(width, width, modes1, modes2) for _ in range(3))
        self.ws = nn.ModuleList(nn.Conv2d(width, width, 1) for _ in range(3))
        self.fc1 = nn.Linear(width, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        b, sx, sy = x.shape[0], x.shape[1], x.shape[2]
        gx = torch.linspace(0, 1, sx).reshape(1, sx, 1, 1).repeat(b, 1, sy, 1)
        gy = torch.linspace(0, 1, sy).reshape(1, 1, sy, 1).repeat(b, sx, 1, 1)
        x = self.fc0(torch.cat((x, gx, gy), dim=-1)).permute(0, 3, 1, 2)
        x = F.pad(x, [0, self.padding, 0, self.padding])
        for i, (conv, w) in enumerate(zip(self.convs, self.ws)):
            x = conv(x) + w(x)
            if i < len(self.convs) - 1:
                x = F.gelu(x)
        x = x[..., : -self.padding, : -self.padding].permute(0, 2, 3, 1)
        return self.fc2(F.gelu(self.fc1(x)))


class Lifted(nn.Module):
    def __init__(self, conv, cin):
        super().__init__()
        d = len([a for a in ("modes1", "modes2", "modes3") if hasattr(conv, a)])
        self.lift = (nn.Conv1d, nn.Conv2d, nn.Conv3d)[d - 1](cin, conv.in_channels, 1)
        self.conv = conv

    def forward(self, x):
        return torch.tanh(self.conv(self.lift(x)))


LAYERS = [  # (id, layer factory, input shape)
    ("1d", lambda: SpectralConv1d(3, 4, 6), (2, 2, 19)),
    ("1d-nyquist", lambda: SpectralConv1d(2, 2, 9), (1, 2, 16)),
    ("2d-odd", lambda: SpectralConv2d(3, 5, 4, 5), (2, 2, 13, 11)),
    ("2d-overlap", lambda: SpectralConv2d(2, 3, 6, 4), (1, 2, 10, 8)),     # 2*modes1 > 10: later block wins
    ("3d", lambda: SpectralConv3d(2, 3, 3, 2, 4), (1, 2, 9, 8, 7)),
    ("3d-overlap", lambda: SpectralConv3d(2, 2, 4, 3, 3), (1, 2, 7, 6, 6)),
]


@pytest.mark.parametrize("factory,shape", [pytest.param(f, s, id=i) for i, f, s in LAYERS])
def test_classic_layer(tmp_path, factory, shape):
    torch.manual_seed(seeding.torch_seed(shape[-1]))
    model = Lifted(factory(), shape[1])
    report = export_and_check(model, torch.randn(shape), tmp_path / "m.onnx", n_spectral=1)
    assert report.converted[0].family == "classic" and report.converted[0].path == "conv"


def test_classic_fno2d_model(tmp_path):
    torch.manual_seed(seeding.torch_seed(0))
    model = FNO2d(modes1=5, modes2=6, width=8)
    # padded size 16 + 9 = 25: odd on both axes
    report = export_and_check(model, torch.randn(1, 16, 16, 1), tmp_path / "fno2d.onnx", n_spectral=3)
    assert report.converted_paths == ["convs.0", "convs.1", "convs.2"]


class FourierLayer(nn.Module):
    """Another name, the same structure and forward: recognized by structure."""

    def __init__(self, cin, cout, m1, m2):
        super().__init__()
        self.inner = SpectralConv2d(cin, cout, m1, m2)
        self.in_channels, self.out_channels, self.modes1, self.modes2 = cin, cout, m1, m2
        self.weights1, self.weights2 = self.inner.weights1, self.inner.weights2

    def forward(self, x):
        return self.inner(x)


def test_recognized_by_structure_not_name(tmp_path):
    model = Lifted(FourierLayer(2, 2, 3, 3), 1)
    report = export_and_check(model, torch.randn(1, 1, 8, 8), tmp_path / "m.onnx", n_spectral=1)
    assert report.converted[0].source_class.endswith("FourierLayer")


class LooksClassic(SpectralConv2d):
    """Classic attributes, different forward (both corners use weights1): must not be exported wrong."""

    def forward(self, x):
        m1, m2 = self.modes1, self.modes2
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(x.shape[0], self.out_channels, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, :m1, :m2] = self.compl_mul2d(x_ft[:, :, :m1, :m2], self.weights1)
        out_ft[:, :, -m1:, :m2] = self.compl_mul2d(x_ft[:, :, -m1:, :m2], self.weights1)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


def test_different_forward_fails_loudly(tmp_path):
    model = Lifted(LooksClassic(2, 2, 3, 3), 1)
    with pytest.raises(ConversionError, match=r"'conv'.*LooksClassic.*does not reproduce"):
        export(model, torch.randn(1, 1, 8, 8), tmp_path / "m.onnx", verbose=False)
    assert not (tmp_path / "m.onnx").exists()


def test_modes_larger_than_input_fail_in_pytorch_first(tmp_path):
    # the original layer itself cannot run: the error comes from PyTorch, before any conversion
    model = Lifted(SpectralConv2d(2, 2, 3, 6), 1)
    with pytest.raises(ExportError, match="fails on the example input"):
        export(model, torch.randn(1, 1, 8, 8), tmp_path / "m.onnx", verbose=False)


class Shared(nn.Module):
    """One spectral layer applied twice (weight sharing): one converted layer, two nodes."""

    def __init__(self):
        super().__init__()
        self.lift = nn.Conv2d(1, 3, 1)
        self.conv = SpectralConv2d(3, 3, 3, 4)

    def forward(self, x):
        x = self.lift(x)
        return self.conv(torch.relu(self.conv(x)))


def test_shared_layer(tmp_path):
    report = export_and_check(Shared(), torch.randn(1, 1, 10, 12), tmp_path / "m.onnx", n_spectral=2)
    assert report.converted_paths == ["conv"] and report.converted[0].calls == 2
