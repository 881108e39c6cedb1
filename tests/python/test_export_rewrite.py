"""`turbofno rewrite`: ONNX files whose spectral convolutions are written with standard DFT nodes
(here: plain torch.onnx exports of an FNO layer written with real arithmetic, as one writes it to
make it exportable) -> SpectralConv nodes; checked against PyTorch in ORT."""
from __future__ import annotations

import seeding

import warnings

import onnx
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from export_util import TOL, rel_l2, run_ort, spectral_nodes
from turbofno.export.rewrite import rewrite


class RealArithmeticSpectralConv(nn.Module):
    """Classic corner-block spectral conv (d = 1..3), real/imag kept as a trailing dim of 2 so that
    torch.onnx can export it (rfftn/irfftn become ONNX DFT nodes)."""

    def __init__(self, cin, cout, modes):
        super().__init__()
        self.modes = list(modes)
        d = len(modes)
        self.weights = nn.ParameterList(nn.Parameter(torch.randn(cin, cout, *modes, 2) / (cin * cout))
                                        for _ in range(2 ** (d - 1)))

    def forward(self, x):
        d = len(self.modes)
        sizes = x.shape[2:]
        letters = "xyz"[:d]
        spec = torch.view_as_real(torch.fft.rfftn(x, dim=tuple(range(-d, 0))))
        half = list(sizes[:-1]) + [sizes[-1] // 2 + 1]
        out = None
        for b, w in enumerate(self.weights):
            high = [(b >> j) & 1 for j in range(d - 1)] + [0]
            idx = tuple(slice(s - m, s) if h else slice(0, m) for m, h, s in zip(self.modes, high, half))
            a = spec[(slice(None), slice(None), *idx)]
            eq = f"bi{letters},io{letters}->bo{letters}"
            re = torch.einsum(eq, a[..., 0], w[..., 0]) - torch.einsum(eq, a[..., 1], w[..., 1])
            im = torch.einsum(eq, a[..., 0], w[..., 1]) + torch.einsum(eq, a[..., 1], w[..., 0])
            block = torch.stack([re, im], dim=-1)
            pad = [0, 0]
            for m, h, s in reversed(list(zip(self.modes, high, half))):
                pad += [s - m, 0] if h else [0, s - m]
            block = F.pad(block, pad)
            out = block if out is None else out + block
        return torch.fft.irfftn(torch.view_as_complex(out.contiguous()), s=tuple(sizes), dim=tuple(range(-d, 0)))


class Net(nn.Module):
    def __init__(self, d, cin, width, modes, layers=1):
        super().__init__()
        conv = (nn.Conv1d, nn.Conv2d, nn.Conv3d)[d - 1]
        self.lift = conv(cin, width, 1)
        self.specs = nn.ModuleList(RealArithmeticSpectralConv(width, width, modes) for _ in range(layers))
        self.skips = nn.ModuleList(conv(width, width, 1) for _ in range(layers))
        self.proj = conv(width, 1, 1)

    def forward(self, x):
        x = self.lift(x)
        for spec, skip in zip(self.specs, self.skips):
            x = F.gelu(spec(x) + skip(x))
        return self.proj(x)


def _plain_onnx(model, x, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(model, (x,), dynamo=True, verbose=False,
                                    dynamic_shapes=({0: torch.export.Dim.DYNAMIC},))
    program.save(str(path))
    return path


CASES = [  # (id, d, modes, input shape, layers)
    ("1d", 1, (5,), (2, 2, 19), 1),
    ("2d-two-layers", 2, (3, 4), (2, 1, 12, 10), 2),
    ("2d-odd", 2, (4, 3), (2, 2, 13, 11), 1),
    ("2d-overlap", 2, (5, 3), (2, 1, 9, 8), 1),
    ("3d", 3, (2, 3, 2), (2, 1, 6, 8, 7), 1),
]


@pytest.mark.parametrize("d,modes,shape,layers", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_rewrite_dft_spectral_conv(tmp_path, d, modes, shape, layers):
    torch.manual_seed(seeding.torch_seed(sum(shape)))
    model = Net(d, shape[1], 3, modes, layers).eval()
    src = _plain_onnx(model, torch.randn(shape), tmp_path / "plain.onnx")
    out_path = tmp_path / "rewritten.onnx"
    _, report = rewrite(str(src), str(out_path), verbose=False)
    assert len(report.rewritten) == layers and report.dft_after == 0, report.summary()
    assert len(spectral_nodes(out_path)) == layers
    x = torch.randn((shape[0] + 1, *shape[1:]))  # another batch size: the batch axis stays dynamic
    with torch.no_grad():
        want = model(x).numpy()
    assert rel_l2(run_ort(out_path, x.numpy())[0], want) <= TOL
    if d > 1 and 2 * modes[0] <= shape[2]:
        r = report.rewritten[0]
        assert r.modes_low[0] == modes[0] and r.modes_high[0] == modes[0], report.summary()


class SquaredSpectrum(nn.Module):
    """FFT -> nonlinear in frequency -> inverse FFT: not a spectral convolution."""

    def forward(self, x):
        spec = torch.view_as_real(torch.fft.rfft2(x))
        spec = spec * spec.abs()
        return torch.fft.irfft2(torch.view_as_complex(spec.contiguous()), s=x.shape[2:])


def test_nonlinear_region_is_left_alone(tmp_path, capsys):
    src = _plain_onnx(SquaredSpectrum().eval(), torch.randn(2, 2, 8, 8), tmp_path / "plain.onnx")
    model, report = rewrite(str(src), None, verbose=False)
    assert report.rewritten == [] and report.skipped, report.summary()
    assert sum(n.op_type == "DFT" for n in model.graph.node) == report.dft_before > 0

    from turbofno.cli import main

    assert main(["rewrite", str(src), str(tmp_path / "out.onnx")]) == 1
    assert "no DFT-based spectral convolution" in capsys.readouterr().err
    assert not (tmp_path / "out.onnx").exists()


def test_rewrite_cli(tmp_path):
    from turbofno.cli import main

    torch.manual_seed(seeding.torch_seed(0))
    model = Net(2, 1, 3, (3, 3)).eval()
    src = _plain_onnx(model, torch.randn(2, 1, 10, 10), tmp_path / "plain.onnx")
    assert main(["rewrite", str(src), str(tmp_path / "out.onnx")]) == 0
    assert len(spectral_nodes(tmp_path / "out.onnx")) == 1
    assert onnx.load(str(tmp_path / "out.onnx")).ir_version <= 11
