"""Exporting a model whose last forward ran on another device (issue 10: `turbofno demo --device
cuda` failed with "Expected all tensors to be on the same device ... (wrapper_CUDA_cat)").

neuraloperator caches its positional grid in plain attributes on the device of the last forward;
`model.cpu()` does not move it. The CPU tests simulate a foreign device with PyTorch's "meta"
device (as unusable for a CPU forward as a CUDA tensor on a CPU-only run); the requires-CUDA test
runs the real case.
"""
from __future__ import annotations

import copy

from collections import namedtuple

import numpy as np
import pytest
import torch
from torch import nn

from export_util import TOL, rel_l2, run_ort
from turbofno.export.devices import move_cached_tensors


class Cache(nn.Module):
    Pair = namedtuple("Pair", "a b")

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer("buf", torch.ones(2))
        self._grid = None


def test_move_cached_tensors_everywhere():
    m = Cache()
    m._grid = (torch.zeros(3), [torch.ones(2), {"k": torch.ones(1)}])
    m._single = torch.zeros(1)
    m._pair = Cache.Pair(torch.zeros(1), 5)
    m._text = "not a tensor"
    assert move_cached_tensors(m, "meta") == 3
    assert m._grid[0].is_meta and m._grid[1][0].is_meta and m._grid[1][1]["k"].is_meta
    assert m._single.is_meta and m._pair.a.is_meta and m._pair.b == 5 and isinstance(m._pair, Cache.Pair)
    assert not m.lin.weight.is_meta and not m.buf.is_meta  # parameters / buffers are .to()'s job
    assert move_cached_tensors(m, "meta") == 0  # idempotent


def test_export_after_foreign_device_forward(tmp_path, monkeypatch):
    """The grid cache of neuraloperator's positional embedding sits on a foreign device (meta here,
    CUDA in the bug): a CPU forward fails, and export() still works because it moves such caches
    to the CPU. Meta tensors hold no data, so the copy back is simulated: moving a meta tensor
    returns the real grid (what .to("cpu") of a CUDA tensor returns)."""
    neuralop = pytest.importorskip("neuralop")
    from turbofno.export import devices, export

    torch.manual_seed(0)
    model = neuralop.models.FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=4, n_layers=2).eval()
    x = torch.randn(1, 1, 8, 8)
    with torch.no_grad():
        ref = model(torch.cat([x, x])).numpy()
    emb = model.positional_embedding
    real_grid = [g.clone() for g in emb._grid]
    emb._grid = [g.to("meta") for g in emb._grid]  # as a forward on another device leaves it
    with pytest.raises(Exception):
        with torch.no_grad():
            model(x)  # the failure the demo hit

    copies = []
    real_moved = devices._moved

    def moved(value, device, seen):
        if isinstance(value, torch.Tensor) and value.is_meta:
            copies.append(value.shape)
            return real_grid[len(copies) - 1]
        return real_moved(value, device, seen)

    monkeypatch.setattr(devices, "_moved", moved)
    export(model, x, tmp_path / "m.onnx", verbose=False)
    assert len(copies) == 2  # both grid tensors were moved to the CPU copy
    got = run_ort(tmp_path / "m.onnx", torch.cat([x, x]).numpy())[0]
    assert rel_l2(got, ref) <= TOL
    assert all(g.is_meta for g in emb._grid)  # the user's model is left as it was


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs PyTorch with a CUDA device")
def test_export_after_cuda_forward(tmp_path):
    """The real case (GPU machine): forward on CUDA, then export (which works on a CPU copy)."""
    neuralop = pytest.importorskip("neuralop")
    from turbofno.export import export

    torch.manual_seed(0)
    model = neuralop.models.FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=4, n_layers=2).eval()
    x = torch.randn(2, 1, 8, 8)
    # reference: PyTorch's CPU forward. cuFFT's fp32 C2R resolves the mixed spectrum's non-Hermitian
    # k = 0 column differently from pocketfft / float64 (tests/gpu/fft_fp32_probe.py): the CUDA forward
    # was 1.5e-5 away from both on the H200, which is not an export error.
    cpu_model = copy.deepcopy(model)
    with torch.no_grad():
        ref = cpu_model(x).numpy()
        on_cuda = model.cuda()(x.cuda()).cpu().numpy()
    export(model, x[:1], tmp_path / "m.onnx", verbose=False)  # the model stays on CUDA; export copies it
    assert rel_l2(run_ort(tmp_path / "m.onnx", x.numpy())[0], ref) <= TOL
    assert np.isfinite(on_cuda).all() and rel_l2(on_cuda, ref) <= 1e-4
