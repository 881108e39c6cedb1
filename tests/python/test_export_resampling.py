"""Resolution-changing layers export as one SpectralConv node with `output_size` (docs/op.md), exact vs
PyTorch in ORT CPU: neuraloperator SpectralConv with output_shape (up, down, odd), FNO with
resolution_scaling_factor, UNO with uno_scalings (1D, 2D); the spatial axes then stay static with the
reason. FNOGNO / GINO: their GNO block is refused naming the module, why and the next step, and the
FNO part of FNOGNO exports on its own. 3D UNO: the skip path's FFT resampling is refused naming it."""
from __future__ import annotations

import pytest
import torch
from torch import nn

from export_util import TOL, attrs, export_and_check, rel_l2, run_ort, spectral_nodes
from turbofno.export import ConversionError, ExportError, export

neuralop = pytest.importorskip("neuralop")
from neuralop.layers.spectral_convolution import SpectralConv  # noqa: E402
from neuralop.models import FNO, FNOGNO, GINO, UNO  # noqa: E402


class Resample(nn.Module):
    def __init__(self, conv, out):
        super().__init__()
        self.conv, self.out = conv, out

    def forward(self, x):
        return self.conv(x, output_shape=self.out)


@pytest.mark.parametrize("n_modes,shape,out", [
    ((8, 8), (2, 3, 16, 16), (32, 32)),      # x2: high block kept at its input index
    ((8, 8), (1, 3, 16, 16), (8, 8)),        # /2: the high block is cut off by irfftn(s=T)
    ((6, 5), (2, 3, 12, 10), (13, 21)),      # odd output sizes, Nyquist of T
    ((7,), (2, 3, 20), (45,)),
], ids=["up", "down", "odd", "1d"])
@pytest.mark.parametrize("norm", ["forward", "backward", "ortho"])
def test_spectral_conv_output_shape(tmp_path, n_modes, shape, out, norm):
    torch.manual_seed(0)
    model = Resample(SpectralConv(3, 4, n_modes=n_modes, fft_norm=norm), out).eval()
    report = export_and_check(model, torch.randn(shape), tmp_path / "m.onnx", n_spectral=1)
    (node,) = spectral_nodes(tmp_path / "m.onnx")
    assert attrs(node)["output_size"] == list(out)
    assert report.converted[0].output_size == list(out)
    assert report.axes.spatial(0) == [] and "output_size" in report.axes.static_reason


def test_fno_resolution_scaling_factor(tmp_path):
    torch.manual_seed(1)
    model = FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=4, n_layers=2,
                resolution_scaling_factor=[1, 2]).eval()
    report = export_and_check(model, torch.randn(1, 1, 8, 8), tmp_path / "m.onnx", n_spectral=2)
    assert [c.output_size for c in report.converted] == [None, [16, 16]]
    with pytest.raises(ExportError, match=r"dynamic_spatial=True, but layer 'fno_blocks\.convs\.1'.*output_size"):
        export(model, torch.randn(1, 1, 8, 8), tmp_path / "d.onnx", verbose=False, dynamic_spatial=True)


@pytest.mark.parametrize("d,shape", [(2, (1, 3, 32, 32)), (1, (2, 3, 64))], ids=["2d", "1d"])
def test_uno_with_scalings(tmp_path, d, shape):
    torch.manual_seed(2)
    modes = [[6] * d, [4] * d, [4] * d, [6] * d]
    scal = [[1.0] * d, [0.5] * d, [2.0] * d, [1.0] * d]
    model = UNO(in_channels=3, out_channels=1, hidden_channels=8, lifting_channels=8, projection_channels=8,
                n_layers=4, uno_out_channels=[8, 8, 8, 8], uno_n_modes=modes, uno_scalings=scal,
                channel_mlp_skip="linear").eval()
    report = export_and_check(model, torch.randn(shape), tmp_path / "uno.onnx", n_spectral=4)
    sizes = [c.output_size for c in report.converted]
    half = [s // 2 for s in shape[2:]]
    assert sizes[1] == half and sizes[2] == list(shape[2:]), sizes


def test_uno_3d_names_the_fft_resample(tmp_path):
    torch.manual_seed(3)
    model = UNO(in_channels=1, out_channels=1, hidden_channels=4, lifting_channels=4, projection_channels=4,
                n_layers=2, uno_out_channels=[4, 4], uno_n_modes=[[2, 2, 2], [2, 2, 2]],
                uno_scalings=[[0.5, 0.5, 0.5], [2, 2, 2]], channel_mlp_skip="linear").eval()
    with pytest.raises(ConversionError, match=r"module 'fno_blocks\.0\.convs\.0' \(.*SpectralConv\): it changes "
                                              r"the resolution \[8, 8, 8\] -> \[4, 4, 4\] in 3D.*FFT interpolation"):
        export(model, torch.randn(1, 1, 8, 8, 8), tmp_path / "u3.onnx", verbose=False)


def _fnogno():
    return FNOGNO(in_channels=1, out_channels=1, gno_coord_dim=2, fno_n_modes=(4, 4), fno_hidden_channels=8,
                  fno_n_layers=1, gno_use_open3d=False, gno_use_torch_scatter=False, gno_radius=0.2).eval()


def _grid(n):
    return torch.stack(torch.meshgrid(torch.linspace(0, 1, n), torch.linspace(0, 1, n), indexing="ij"), -1)


def test_fnogno_gno_is_refused_with_the_reason(tmp_path):
    torch.manual_seed(4)
    model = _fnogno()
    with pytest.raises(ExportError, match=r"module 'gno' \(neuralop\.layers\.gno_block\.GNOBlock\) cannot be exported"
                                          r".*data-dependent.*\nnext step: export the FNO part"):
        export(model, (_grid(16), torch.rand(30, 2), torch.randn(16, 16, 1)), tmp_path / "g.onnx", verbose=False)
    assert not (tmp_path / "g.onnx").exists()


def test_gino_gno_is_refused_with_the_reason(tmp_path):
    torch.manual_seed(5)
    model = GINO(in_channels=1, out_channels=1, gno_coord_dim=2, fno_n_modes=(4, 4), fno_hidden_channels=8,
                 fno_n_layers=1, gno_use_open3d=False, gno_use_torch_scatter=False, in_gno_radius=0.2,
                 out_gno_radius=0.2).eval()
    n = 8
    pts = torch.rand(1, 40, 2)
    args = dict(input_geom=pts, latent_queries=_grid(n).unsqueeze(0), output_queries=pts, x=torch.randn(1, 40, 1))

    class Call(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(**{**args, "x": x})

    with pytest.raises(ExportError, match=r"module 'm\.gno_in' \(.*GNOBlock\) cannot be exported"):
        export(Call(model), args["x"], tmp_path / "gi.onnx", verbose=False)


def test_fnogno_fno_part_exports(tmp_path):
    """The route the error points to: lifting + FNO blocks on the grid, through our node, exact."""
    torch.manual_seed(6)
    model = _fnogno()

    class FnoPart(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.lifting, self.fno_blocks = m.lifting, m.fno_blocks

        def forward(self, x):
            x = self.lifting(x)
            for i in range(self.fno_blocks.n_layers):
                x = self.fno_blocks(x, i)
            return x

    n = 16
    in_p, f = _grid(n), torch.randn(n, n, 1)
    x = torch.cat((f, in_p), dim=-1).permute(2, 0, 1).unsqueeze(0)     # what latent_embedding builds
    export_and_check(FnoPart(model).eval(), x, tmp_path / "fno.onnx", n_spectral=1)
    with torch.no_grad():
        want = model.latent_embedding(in_p, f)
    assert rel_l2(run_ort(tmp_path / "fno.onnx", x.numpy())[0][0], want.numpy()) <= TOL
