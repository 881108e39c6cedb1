"""The rough edges a new user hits first (issue 11), each with its exact symptom:
a missing checkpoint does not suggest --unsafe-load; malformed --model-kwargs JSON is one line, no
traceback; a model whose only spectral layer is an unregistered custom one names it (path, class) and
the next step; rewrite() takes bytes (and refuses other types clearly); conversion errors end with the
next step."""
from __future__ import annotations

import subprocess
import sys

import onnx
import pytest
import torch
from torch import nn

from turbofno.export import ConversionError, ExportError, export
from turbofno.export.rewrite import rewrite


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "turbofno", "export", *args], capture_output=True, text=True,
                          timeout=300)


def test_missing_checkpoint_is_not_an_unsafe_load_problem(tmp_path):
    res = _cli("--model", "torch.nn:Conv1d", "--model-kwargs", '{"in_channels": 1, "out_channels": 1, '
               '"kernel_size": 1}', "--checkpoint", str(tmp_path / "nope.pt"), "--input-shape", "1,1,8",
               "--out", str(tmp_path / "m.onnx"))
    assert res.returncode == 1
    assert "checkpoint" in res.stderr and "nope.pt not found" in res.stderr
    assert "--unsafe-load" not in res.stderr and "Traceback" not in res.stderr


class Opaque:  # an object weights_only=True refuses to unpickle
    pass


def test_checkpoint_that_needs_unpickling_still_suggests_unsafe_load(tmp_path):
    torch.save({"w": Opaque()}, tmp_path / "opaque.pt")
    from turbofno.export import loading

    with pytest.raises(loading.LoadError, match="--unsafe-load"):
        loading.load_checkpoint(nn.Conv1d(1, 1, 1), str(tmp_path / "opaque.pt"))
    (tmp_path / "garbage.pt").write_bytes(b"not a torch file")
    with pytest.raises(loading.LoadError) as info:
        loading.load_checkpoint(nn.Conv1d(1, 1, 1), str(tmp_path / "garbage.pt"))
    assert "--unsafe-load" not in str(info.value) and "torch.save" in str(info.value)


@pytest.mark.parametrize("text", ['{"n_modes": [16, 16]', "{'n_modes': 4}", "n_modes=4"])
def test_malformed_model_kwargs_is_one_line(tmp_path, text):
    res = _cli("--model", "torch.nn:Conv1d", "--model-kwargs", text, "--input-shape", "1,1,8",
               "--out", str(tmp_path / "m.onnx"))
    assert res.returncode == 1
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--model-kwargs is not valid JSON" in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_factory_error_is_one_line(tmp_path):
    res = _cli("--model", "torch.nn:Conv1d", "--model-kwargs", '{"bogus": 1}', "--input-shape", "1,1,8",
               "--out", str(tmp_path / "m.onnx"))
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "torch.nn:Conv1d(**{'bogus': 1}) failed: TypeError" in res.stderr


class MySpectral(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(2, 2, 3, dtype=torch.cfloat))

    def forward(self, x):
        s = torch.fft.rfft(x)
        out = torch.zeros_like(s)
        out[..., :3] = torch.einsum("bik,iok->bok", s[..., :3], self.w)
        return torch.fft.irfft(out, n=x.shape[-1])


def test_only_an_unregistered_custom_layer_is_named(tmp_path):
    model = nn.Sequential(nn.Conv1d(2, 2, 1), MySpectral())
    with pytest.raises(ExportError) as info:
        export(model, torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False)
    msg = str(info.value)
    assert "module '1' (test_export_errors.MySpectral) computes torch.fft.irfft, torch.fft.rfft" in msg
    assert "register_converter" in msg and "MySpectral" in msg.splitlines()[-1]
    assert not (tmp_path / "m.onnx").exists()
    with pytest.raises(ExportError, match="computes no FFT"):
        export(nn.Conv1d(2, 2, 1), torch.randn(1, 2, 16), tmp_path / "m.onnx", verbose=False)


def test_conversion_errors_name_the_next_step(tmp_path):
    neuralop = pytest.importorskip("neuralop")
    from neuralop.layers.spectral_convolution import SpectralConv

    with pytest.raises(ConversionError) as info:
        export(nn.Sequential(SpectralConv(2, 2, n_modes=(4, 4))), torch.randn(1, 2, 9, 8), tmp_path / "m.onnx",
               verbose=False)
    msg = str(info.value)
    assert msg.startswith("cannot convert module '0' (neuralop.layers.spectral_convolution.SpectralConv)")
    assert "\nnext step: " in msg and "register_converter" in msg
    del neuralop


def test_rewrite_accepts_bytes_and_refuses_other_types(tmp_path):
    from test_export_rewrite import Net, _plain_onnx

    torch.manual_seed(0)
    model = Net(1, 1, 2, (3,)).eval()
    src = _plain_onnx(model, torch.randn(2, 1, 16), tmp_path / "plain.onnx")
    data = src.read_bytes()
    from_bytes, report = rewrite(data, None, verbose=False)
    from_path, _ = rewrite(str(src), None, verbose=False)
    assert len(report.rewritten) == 1
    assert from_bytes.graph.SerializeToString() == from_path.graph.SerializeToString()
    _, again = rewrite(onnx.load(str(src)), None, verbose=False)
    assert len(again.rewritten) == 1
    with pytest.raises(TypeError, match="bytes that are not a serialized ONNX model"):
        rewrite(b"\x00\x01garbage", None, verbose=False)
    with pytest.raises(TypeError, match="takes a path, an onnx.ModelProto or serialized model bytes, got int"):
        rewrite(42, None, verbose=False)


def test_cli_spatial_flags(tmp_path):
    pytest.importorskip("neuralop")
    common = ["--model", "neuralop.models:FNO", "--model-kwargs",
              '{"n_modes": [4, 4], "in_channels": 1, "out_channels": 1, "hidden_channels": 4, "n_layers": 1}',
              "--input-shape", "1,1,16,16"]
    res = _cli(*common, "--out", str(tmp_path / "d.onnx"), "--dynamic-spatial")
    assert res.returncode == 0 and "dynamic axes: x: 0 (batch), 2, 3" in res.stdout, res.stdout + res.stderr
    res = _cli(*common, "--out", str(tmp_path / "s.onnx"), "--static-spatial")
    assert res.returncode == 0 and "dynamic axes: x: 0 (batch)\n" in res.stdout, res.stdout + res.stderr
