"""Exporter fusion (turbofno.export.fuse): act(K(x) + skip(x)) -> one SpectralConv node (op version 2).

Every family (neuraloperator FNO/TFNO, PhysicsNeMo layers, classic Li et al.), every skip kind the
exporter folds (1x1 conv, identity, soft-gating) and activation (gelu, relu, silu, tanh, none):
the fused export runs in ORT CPU at rel-L2 <= 1e-5 against PyTorch (export_and_check, two batch
sizes), the report says what was fused, and fuse=False gives plain version-1 nodes with the same
outputs. Patterns that do not match exactly stay unfused.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from export_util import TOL, attrs, export_and_check, rel_l2, run_ort, spectral_nodes
from turbofno import _op

neuralop = pytest.importorskip("neuralop")
from neuralop.models import FNO, TFNO  # noqa: E402


def _domain_version(path) -> int:
    return {o.domain: o.version for o in onnx.load(str(path)).opset_import}[_op.DOMAIN]


def _check_fused(path, report, expect: list[tuple[str, str]]):
    """expect: (skip kind, activation) per fused node, in graph order."""
    assert [(f.skip, f.activation) for f in report.fused] == expect, report.summary()
    assert all(f.layer_rel_err <= 1e-5 for f in report.fused)
    nodes = spectral_nodes(path)
    fused_nodes = [n for n in nodes if len(n.input) == 4]
    assert len(fused_nodes) == len(expect)
    for n, (_, act) in zip(fused_nodes, expect):
        assert attrs(n).get(_op.ATTR_ACTIVATION, 0) == _op.ACTIVATIONS[act]
        assert n.input[2] and n.input[3]  # a bias input always (TensorRT inputs are positional)
    # version 2 also when only PointwiseMLP nodes (the MLP fusion, test_export_fuse_mlp.py) need it
    assert _domain_version(path) == (_op.OPSET_VERSION_FUSED if expect or report.mlp_nodes else _op.OPSET_VERSION)
    summary = report.summary()
    assert f"fused {len(expect)} of {len(nodes)} SpectralConv" in summary


def _same_as_unfused(model, x, fused_path, tmp_path):
    """fuse=False (and fuse_mlp=False, which fuse=False leaves on): plain version-1 nodes, and the same
    numbers as the fused file."""
    from turbofno.export import export

    plain = tmp_path / "plain.onnx"
    report = export(model, x, plain, verbose=False, rtol=TOL, fuse=False, fuse_mlp=False)
    assert report.fused == [] and "fusion off" in report.summary()
    assert all(len(n.input) <= 3 and _op.ATTR_ACTIVATION not in attrs(n) for n in spectral_nodes(plain))
    assert _domain_version(plain) == _op.OPSET_VERSION
    x2 = torch.randn((3, *x.shape[1:]), generator=torch.Generator().manual_seed(7)).numpy()
    assert rel_l2(run_ort(fused_path, x2)[0], run_ort(plain, x2)[0]) <= TOL


# --- neuraloperator ----------------------------------------------------------------------------

def _gelu_then_last(n, skip="conv1x1", act="gelu"):
    return [(skip, act)] * (n - 1) + [(skip, "identity")]


NEURALOP = [
    ("fno1d", lambda: FNO(n_modes=(8,), in_channels=2, out_channels=1, hidden_channels=8, n_layers=3), (1, 2, 33),
     _gelu_then_last(3)),
    ("fno2d-identity-skip", lambda: FNO(n_modes=(5, 5), in_channels=1, out_channels=1, hidden_channels=6, n_layers=2,
                                        fno_skip="identity"), (1, 1, 12, 12), _gelu_then_last(2, "identity")),
    ("fno2d-soft-gating-skip", lambda: FNO(n_modes=(6, 7), in_channels=3, out_channels=2, hidden_channels=8, n_layers=2,
                                           fno_skip="soft-gating"), (2, 3, 16, 13), _gelu_then_last(2, "soft-gating")),
    ("fno2d-no-channel-mlp-relu", lambda: FNO(n_modes=(6, 6), in_channels=1, out_channels=1, hidden_channels=8,
                                              n_layers=3, use_channel_mlp=False, non_linearity=F.relu),
     (1, 1, 16, 14), _gelu_then_last(3, act="relu")),
    ("fno1d-silu", lambda: FNO(n_modes=(7,), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                               non_linearity=F.silu), (2, 1, 30), _gelu_then_last(2, act="silu")),
    ("fno1d-tanh", lambda: FNO(n_modes=(7,), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                               non_linearity=torch.tanh), (2, 1, 30), _gelu_then_last(2, act="tanh")),
    ("tfno2d-tucker", lambda: TFNO(n_modes=(6, 6), in_channels=2, out_channels=2, hidden_channels=8, n_layers=2,
                                   factorization="tucker", rank=0.4), (1, 2, 14, 14), _gelu_then_last(2)),
    ("fno3d", lambda: FNO(n_modes=(4, 4, 4), in_channels=1, out_channels=1, hidden_channels=4, n_layers=2),
     (1, 1, 8, 8, 9), _gelu_then_last(2)),
]


@pytest.mark.parametrize("factory,shape,expect", [pytest.param(f, s, e, id=i) for i, f, s, e in NEURALOP])
def test_neuraloperator_fused(tmp_path, factory, shape, expect):
    torch.manual_seed(0)
    model = factory().eval()
    x = torch.randn(shape)
    report = export_and_check(model, x, tmp_path / "fno.onnx", n_spectral=model.n_layers)
    _check_fused(tmp_path / "fno.onnx", report, expect)
    _same_as_unfused(model, x, tmp_path / "fno.onnx", tmp_path)


def test_neuraloperator_norm_between_is_not_fused(tmp_path):
    """A normalisation between the spectral conv and the skip add breaks the pattern: unfused."""
    torch.manual_seed(0)
    model = FNO(n_modes=(6, 7), in_channels=3, out_channels=2, hidden_channels=8, n_layers=2, norm="group_norm").eval()
    report = export_and_check(model, torch.randn(2, 3, 16, 13), tmp_path / "fno.onnx", n_spectral=2)
    _check_fused(tmp_path / "fno.onnx", report, [])


# --- classic (Li et al.) ---------------------------------------------------------------------------

def test_classic_fno2d_fused(tmp_path):
    from test_export_classic import FNO2d

    torch.manual_seed(0)
    model = FNO2d(modes1=4, modes2=5, width=8).eval()
    x = torch.randn(2, 20, 18, 1)
    report = export_and_check(model, x, tmp_path / "m.onnx", n_spectral=3)
    # w_i: Conv2d 1x1 with bias. Layer 0 stays unfused, correctly: torch.onnx folds the model's
    # F.pad into that skip Conv (pads attribute, input before the Pad), so its skip is not a 1x1
    # conv of the SpectralConv's input any more.
    _check_fused(tmp_path / "m.onnx", report, [("conv1x1", "gelu"), ("conv1x1", "identity")])
    _same_as_unfused(model, x, tmp_path / "m.onnx", tmp_path)


class ClassicStack(nn.Module):
    """Classic 1D / 3D layers in an FNO loop: act(conv(x) + w(x)), activation chosen per test."""

    def __init__(self, layer, d, width, act, n=2):
        super().__init__()
        conv = (nn.Conv1d, nn.Conv2d, nn.Conv3d)[d - 1]
        self.lift = conv(1, width, 1)
        self.convs = nn.ModuleList(layer() for _ in range(n))
        self.ws = nn.ModuleList(conv(width, width, 1) for _ in range(n))
        self.act = act
        self.proj = conv(width, 1, 1)

    def forward(self, x):
        x = self.lift(x)
        for conv, w in zip(self.convs, self.ws):
            x = self.act(conv(x) + w(x))
        return self.proj(x)


@pytest.mark.parametrize("act,name", [(F.gelu, "gelu"), (lambda v: F.gelu(v, approximate="tanh"), "gelu_tanh"),
                                      (F.relu, "relu"), (F.silu, "silu"), (torch.tanh, "tanh")],
                         ids=["gelu", "gelu_tanh", "relu", "silu", "tanh"])
def test_classic_1d_every_activation(tmp_path, act, name):
    from test_export_classic import SpectralConv1d

    torch.manual_seed(1)
    model = ClassicStack(lambda: SpectralConv1d(6, 6, 7), 1, 6, act).eval()
    x = torch.randn(2, 1, 29)
    report = export_and_check(model, x, tmp_path / "m.onnx", n_spectral=2)
    _check_fused(tmp_path / "m.onnx", report, [("conv1x1", name)] * 2)


def test_classic_3d_fused(tmp_path):
    from test_export_classic import SpectralConv3d

    torch.manual_seed(2)
    model = ClassicStack(lambda: SpectralConv3d(4, 4, 3, 2, 3), 3, 4, F.gelu).eval()
    x = torch.randn(1, 1, 8, 7, 6)
    report = export_and_check(model, x, tmp_path / "m.onnx", n_spectral=2)
    _check_fused(tmp_path / "m.onnx", report, [("conv1x1", "gelu")] * 2)
    _same_as_unfused(model, x, tmp_path / "m.onnx", tmp_path)


# --- PhysicsNeMo ---------------------------------------------------------------------------------

@pytest.fixture(params=["installed", "reimplementation"])
def pn(request):
    from test_export_physicsnemo import _load_layers, _Reimpl

    return _load_layers() if request.param == "installed" else _Reimpl


@pytest.mark.parametrize("cls,modes,shape", [("SpectralConv1d", (7,), (2, 1, 23)), ("SpectralConv2d", (4, 5), (1, 1, 12, 11)),
                                             ("SpectralConv3d", (3, 2, 3), (1, 1, 8, 7, 6))], ids=["1d", "2d", "3d"])
def test_physicsnemo_fused(tmp_path, pn, cls, modes, shape):
    """PhysicsNeMo's FNO encoders: x = activation(conv_k(x) + w_k(x)) with 1x1 convs, no activation last."""
    torch.manual_seed(3)
    d = len(modes)

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            conv = (nn.Conv1d, nn.Conv2d, nn.Conv3d)[d - 1]
            self.lift = conv(1, 6, 1)
            self.spec = nn.ModuleList(getattr(pn, cls)(6, 6, *modes) for _ in range(3))
            self.w = nn.ModuleList(conv(6, 6, 1) for _ in range(3))
            self.proj = conv(6, 1, 1)

        def forward(self, x):
            x = self.lift(x)
            for k, (s, w) in enumerate(zip(self.spec, self.w)):
                x = s(x) + w(x)
                if k < 2:
                    x = F.gelu(x)
            return self.proj(x)

    model = Encoder().eval()
    x = torch.randn(shape)
    report = export_and_check(model, x, tmp_path / "m.onnx", n_spectral=3)
    assert {c.family for c in report.converted} == {"physicsnemo"}
    _check_fused(tmp_path / "m.onnx", report, _gelu_then_last(3))
    _same_as_unfused(model, x, tmp_path / "m.onnx", tmp_path)


# --- patterns that must stay unfused ---------------------------------------------------------------

class NotALayer(nn.Module):
    def __init__(self, variant):
        super().__init__()
        from test_export_classic import SpectralConv2d

        self.variant = variant
        self.lift = nn.Conv2d(1, 4, 1)
        self.spec = SpectralConv2d(4, 4, 3, 3)
        self.w3 = nn.Conv2d(4, 4, 3, padding=1)   # not 1x1
        self.w1 = nn.Conv2d(4, 4, 1)
        self.proj = nn.Conv2d(4, 1, 1)

    def forward(self, x):
        x = self.lift(x)
        s = self.spec(x)
        if self.variant == "conv3x3":
            y = F.gelu(s + self.w3(x))
        elif self.variant == "spectral-output-reused":
            y = F.gelu(s + self.w1(x)) + s
        elif self.variant == "skip-of-another-tensor":
            y = F.gelu(s + self.w1(torch.tanh(x)))
        else:  # "strided-skip-grouped"
            y = F.gelu(s + F.conv2d(x, self.w1.weight[:, :2].repeat(1, 1, 1, 1), groups=2))
        return self.proj(y)


@pytest.mark.parametrize("variant", ["conv3x3", "spectral-output-reused", "skip-of-another-tensor", "strided-skip-grouped"])
def test_near_misses_stay_unfused(tmp_path, variant):
    torch.manual_seed(4)
    model = NotALayer(variant).eval()
    report = export_and_check(model, torch.randn(2, 1, 12, 10), tmp_path / "m.onnx", n_spectral=1)
    _check_fused(tmp_path / "m.onnx", report, [])


def test_fused_file_is_smaller_graph(tmp_path):
    """The fused export folds Conv + Add + Gelu away: fewer nodes, same SpectralConv count."""
    torch.manual_seed(0)
    model = FNO(n_modes=(8,), in_channels=1, out_channels=1, hidden_channels=8, n_layers=3).eval()
    from turbofno.export import export

    fused = export(model, torch.randn(1, 1, 32), tmp_path / "a.onnx", verbose=False, fuse_mlp=False)
    plain = export(model, torch.randn(1, 1, 32), tmp_path / "b.onnx", verbose=False, fuse=False, fuse_mlp=False)
    assert fused.spectral_nodes == plain.spectral_nodes == 3
    assert sum(fused.node_counts.values()) < sum(plain.node_counts.values())
    assert fused.node_counts.get("::Add", 0) == plain.node_counts.get("::Add", 0) - 3


def test_cli_no_fuse(tmp_path, capsys):
    from turbofno.cli import main

    model_file = tmp_path / "net.py"
    model_file.write_text(
        "from neuralop.models import FNO\n"
        "def build():\n    return FNO(n_modes=(6,), in_channels=1, out_channels=1, hidden_channels=4, n_layers=2)\n")
    for flag, fused in (([], True), (["--no-fuse", "--no-fuse-mlp"], False)):  # a version-1 file needs both
        out = tmp_path / f"m{len(flag)}.onnx"
        rc = main(["export", "--model", f"{model_file}:build", "--input-shape", "1,1,20", "--out", str(out), *flag])
        assert rc == 0
        text = capsys.readouterr().out
        assert ("fused 2 of 2" in text) == fused and ("fusion off" in text) == (not fused)
        assert _domain_version(out) == (2 if fused else 1)
    assert np.isfinite(run_ort(tmp_path / "m0.onnx", np.ones((1, 1, 20), np.float32))[0]).all()
