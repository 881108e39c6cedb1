"""Exporter API and CLI: user converters, loud failures, validation, report, static batch, CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

import seeding
import onnx
import pytest
import torch
from torch import nn

from export_util import TOL, export_and_check, rel_l2, run_ort
from turbofno.export import (ExportError, TurboSpectralConv, ValidationError, export, register_converter,
                             unregister_converter)


class MyLowPass(nn.Module):
    """A user's own 1D spectral layer: the lowest `m` modes, weight [m, Cin, Cout] (mode first)."""

    def __init__(self, cin, cout, m):
        super().__init__()
        self.m = m
        self.w = nn.Parameter(torch.randn(m, cin, cout, dtype=torch.cfloat) / (cin * cout))

    def forward(self, x):
        spec = torch.fft.rfft(x, norm="ortho")
        out = torch.zeros(x.shape[0], self.w.shape[2], spec.shape[-1], dtype=spec.dtype)
        out[..., : self.m] = torch.einsum("bik,kio->bok", spec[..., : self.m], self.w)
        return torch.fft.irfft(out, n=x.shape[-1], norm="ortho")


def convert_my_low_pass(module, ctx):
    weight = torch.view_as_real(module.w.detach().permute(1, 2, 0).contiguous())   # [Cin, Cout, m, 2]
    return TurboSpectralConv(weight, None, [module.m], [0], norm="ortho")


class Net(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.lift = nn.Conv1d(2, 3, 1)
        self.layer = layer

    def forward(self, x):
        return torch.relu(self.layer(self.lift(x)))


@pytest.fixture
def user_converter():
    register_converter(MyLowPass, convert_my_low_pass)
    yield
    unregister_converter(MyLowPass)


def test_unrecognized_fft_layer_fails_naming_the_module(tmp_path):
    model = Net(MyLowPass(3, 3, 4))
    with pytest.raises(ExportError, match=r"module '1\.layer' \(.*MyLowPass\) computes .*fft"):
        export(nn.Sequential(TurboSpectralConv(torch.randn(2, 2, 3, 2), None, [3], [0]), model),
               torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False)
    with pytest.raises(ExportError, match="found no spectral convolution"):
        export(nn.Conv1d(2, 2, 1), torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False)
    assert not (tmp_path / "m.onnx").exists()


def test_register_converter(tmp_path, user_converter):
    torch.manual_seed(seeding.torch_seed(0))
    report = export_and_check(Net(MyLowPass(3, 4, 5)), torch.randn(2, 2, 17), tmp_path / "m.onnx", n_spectral=1)
    (layer,) = report.converted
    assert layer.path == "layer" and layer.family == "user:MyLowPass" and layer.norm == 2


def test_register_converter_rejects_non_modules():
    with pytest.raises(TypeError):
        register_converter(int, convert_my_low_pass)
    with pytest.raises(TypeError):
        register_converter(MyLowPass, "not callable")


def test_converter_error_names_module(tmp_path):
    def refuse(module, ctx):
        raise ValueError("this layer uses learned per-sample modes")

    register_converter(MyLowPass, refuse)
    try:
        with pytest.raises(ExportError, match=r"cannot convert module 'layer' \(.*MyLowPass\): this layer uses"):
            export(Net(MyLowPass(3, 3, 4)), torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False)
    finally:
        unregister_converter(MyLowPass)


def test_validation_failure_is_an_error_and_leaves_no_file(tmp_path):
    def wrong(module, ctx):  # drops one mode: a conversion bug the ORT check must catch
        weight = torch.view_as_real(module.w.detach().permute(1, 2, 0).contiguous())[:, :, :-1]
        return TurboSpectralConv(weight, None, [module.m - 1], [0], norm="ortho")

    register_converter(MyLowPass, wrong)
    try:
        with pytest.raises(ValidationError, match="does not match PyTorch") as info:
            export(Net(MyLowPass(3, 3, 4)), torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False,
                   layer_rtol=float("inf"))
        assert info.value.report.validation.rel_l2_err > 1e-3
        assert not any(p.suffix == ".onnx" for p in tmp_path.iterdir())
        # with validation off the same export goes through (the user asked for it)
        report = export(Net(MyLowPass(3, 3, 4)), torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False,
                        layer_rtol=float("inf"), validate=False)
        assert report.validation is None and (tmp_path / "m.onnx").exists()
    finally:
        unregister_converter(MyLowPass)


def test_static_batch_and_report(tmp_path, user_converter, capsys):
    model = Net(MyLowPass(3, 3, 4)).eval()
    x = torch.randn(3, 2, 16)
    report = export(model, x, tmp_path / "m.onnx", dynamic_batch=False, verbose=True, rtol=TOL)
    out = capsys.readouterr().out
    assert "converted 1 spectral layer" in out and "layer: " in out and "SpectralConv x1" in out
    assert report.validation.batch_checked == [3]
    proto = onnx.load(str(tmp_path / "m.onnx"))
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_value == 3
    assert report.node_counts["ai.turbofno::SpectralConv"] == 1
    with torch.no_grad():
        assert rel_l2(run_ort(tmp_path / "m.onnx", x.numpy())[0], model(x).numpy()) <= TOL


def test_original_model_untouched_and_multiple_outputs(tmp_path, user_converter):
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = Net(MyLowPass(3, 3, 4))

        def forward(self, x):
            y = self.net(x)
            return y, y.mean(dim=-1)

    model = TwoHeads()
    model.train()
    report = export(model, torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False, rtol=TOL)
    assert model.training and isinstance(model.net.layer, MyLowPass)
    assert report.validation.passed and len(onnx.load(str(tmp_path / "m.onnx")).graph.output) == 2


def test_bad_example_inputs(tmp_path):
    model = Net(MyLowPass(3, 3, 4))
    with pytest.raises(ExportError, match="float32"):
        export(model, torch.randn(1, 2, 16, dtype=torch.float64), tmp_path / "m.onnx", verbose=False)
    with pytest.raises(TypeError):
        export(model, "x", tmp_path / "m.onnx", verbose=False)


FACTORY = textwrap.dedent("""
    import torch
    from neuralop.models import FNO

    def build(width=8):
        return FNO(n_modes=(6, 6), in_channels=2, out_channels=1, hidden_channels=width, n_layers=2)
""")


def test_cli_end_to_end(tmp_path, capsys):
    pytest.importorskip("neuralop")
    (tmp_path / "my_fno.py").write_text(FACTORY)
    sys.path.insert(0, str(tmp_path))
    try:
        import my_fno
    finally:
        sys.path.pop(0)
    torch.manual_seed(seeding.torch_seed(3))
    trained = my_fno.build(width=6)
    torch.save({"epoch": 3, "model": trained.state_dict()}, tmp_path / "ckpt.pt")
    out = tmp_path / "out" / "fno.onnx"
    import turbofno

    # the subprocess must import the same turbofno as this test (installed package or source tree)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(turbofno.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [package_root, os.environ.get("PYTHONPATH", "")] if p))
    cmd = [sys.executable, "-m", "turbofno", "export", "--model", f"{tmp_path / 'my_fno.py'}:build",
           "--model-kwargs", json.dumps({"width": 6}), "--checkpoint", str(tmp_path / "ckpt.pt"),
           "--input-shape", "1,2,16,12", "--out", str(out), "--rtol", str(TOL)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "converted 2 spectral layer" in res.stdout and "-> ok" in res.stdout
    x = seeding.rng(0).standard_normal((3, 2, 16, 12)).astype(np.float32)
    with torch.no_grad():
        ref = trained.eval()(torch.from_numpy(x)).numpy()
    assert rel_l2(run_ort(out, x)[0], ref) <= TOL  # the checkpoint's weights, not the factory's init

    # a checkpoint that does not fit (in-process, through the same CLI entry point): clear error, exit 1, no file
    from turbofno.cli import main

    bad = [*cmd[3:-6], "--input-shape", "1,2,16,12", "--out", str(tmp_path / "bad.onnx")]
    bad[bad.index("--model-kwargs") + 1] = json.dumps({"width": 5})
    assert main(bad) == 1
    assert "does not fit the model" in capsys.readouterr().err
    assert not (tmp_path / "bad.onnx").exists()


def test_turbofno_export_is_callable(tmp_path):
    import turbofno
    import turbofno.export  # noqa: F401 - the attribute is now the package

    report = turbofno.export(nn.Sequential(TurboSpectralConv(torch.randn(2, 2, 3, 2), None, [3], [0])),
                             torch.randn(1, 2, 8), tmp_path / "m.onnx", verbose=False)
    assert report.spectral_nodes == 1
