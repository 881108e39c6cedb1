"""Pointwise Conv1d nodes exported as MatMul + Add (turbofno.export.conv1x1): the rewrite keeps the
numbers (ORT CPU against PyTorch), takes exactly the pointwise rank-3 convolutions, is off with
conv1x1_as_matmul=False, and by default (None) takes only the Conv1d nodes whose flattened length on
the example is >= conv1x1.MATMUL_FROM_LENGTH. The exports here pass fuse_mlp=False: the neuraloperator
models' Conv1d nodes are all channel MLPs, which the MLP fusion (test_export_fuse_mlp.py) would
otherwise fold into PointwiseMLP nodes before the rewrite sees them."""
from __future__ import annotations

import collections

import numpy as np
import onnx
import pytest
import torch
from onnx import helper, numpy_helper

from export_util import TOL, rel_l2, run_ort
from turbofno.export import export
from turbofno.export.conv1x1 import conv1x1_to_matmul


def _ops(path) -> collections.Counter:
    return collections.Counter(n.op_type for n in onnx.load(str(path)).graph.node)


def _small_fno():
    """A neuraloperator FNO with pointwise Conv1d lifting / MLP / projection over 20 x 18 = 360 points,
    its example input and PyTorch's output."""
    neuralop = pytest.importorskip("neuralop")
    torch.manual_seed(0)
    model = neuralop.models.FNO(n_modes=(6, 6), in_channels=2, out_channels=1, hidden_channels=8, n_layers=2).eval()
    x = torch.randn(2, 2, 20, 18)
    with torch.no_grad():
        return model, x, model(x).numpy()


def test_neuralop_fno_conv1d_become_matmul(tmp_path):
    model, x, want = _small_fno()
    report = export(model, x, tmp_path / "mm.onnx", verbose=False, fuse_mlp=False, conv1x1_as_matmul=True)
    plain = export(model, x, tmp_path / "conv.onnx", verbose=False, fuse_mlp=False, conv1x1_as_matmul=False)
    mm, conv = _ops(tmp_path / "mm.onnx"), _ops(tmp_path / "conv.onnx")
    assert conv["Conv"] > 0 and mm["Conv"] == 0, (conv, mm)
    assert report.conv1x1_as_matmul == conv["Conv"] and plain.conv1x1_as_matmul == 0
    assert mm["MatMul"] == conv["Conv"] + conv["MatMul"]
    assert "written as MatMul + Add" in report.summary()
    for name in ("mm.onnx", "conv.onnx"):
        assert rel_l2(run_ort(tmp_path / name, x.numpy())[0], want) <= TOL


def test_default_rewrites_only_long_conv1d(tmp_path, monkeypatch):
    """The default keeps short Conv1d (faster as Conv on the GPU) and rewrites long ones; the length is
    the example's flattened spatial size (here 20 x 18 = 360 points, the threshold moved around it)."""
    from turbofno.export import conv1x1

    model, x, want = _small_fno()
    short = export(model, x, tmp_path / "short.onnx", verbose=False, fuse_mlp=False)   # 360 < 8192: every Conv1d stays
    assert short.conv1x1_as_matmul == 0 and short.conv1x1_kept == _ops(tmp_path / "short.onnx")["Conv"] > 0
    assert "kept as Conv" in short.summary()
    monkeypatch.setattr(conv1x1, "MATMUL_FROM_LENGTH", 360)              # now every one is long enough
    long = export(model, x, tmp_path / "long.onnx", verbose=False, fuse_mlp=False)
    assert long.conv1x1_as_matmul == short.conv1x1_kept and long.conv1x1_kept == 0
    assert _ops(tmp_path / "long.onnx")["Conv"] == 0
    monkeypatch.setattr(conv1x1, "MATMUL_FROM_LENGTH", 361)              # one point more: none is
    assert export(model, x, tmp_path / "edge.onnx", verbose=False, fuse_mlp=False).conv1x1_as_matmul == 0
    for name in ("short.onnx", "long.onnx"):
        assert rel_l2(run_ort(tmp_path / name, x.numpy())[0], want) <= TOL


def test_default_keeps_conv_when_lengths_cannot_be_measured(tmp_path, monkeypatch):
    """If the length probe cannot run, nothing is rewritten and the summary says why."""
    from turbofno.export import conv1x1

    model, x, want = _small_fno()

    def fail(proto, feeds):
        raise RuntimeError("probe failed")
    monkeypatch.setattr(conv1x1, "pointwise_conv1d_lengths", fail)
    report = export(model, x, tmp_path / "m.onnx", verbose=False, fuse_mlp=False)
    assert report.conv1x1_as_matmul == 0 and "probe failed" in report.summary()
    assert _ops(tmp_path / "m.onnx")["Conv"] > 0
    assert rel_l2(run_ort(tmp_path / "m.onnx", x.numpy())[0], want) <= TOL


def test_lengths_are_measured_per_node():
    """pointwise_conv1d_lengths: one ORT run gives each Conv1d's input length."""
    from turbofno.export.conv1x1 import pointwise_conv1d_lengths

    w = np.random.default_rng(0).standard_normal((5, 3, 1)).astype(np.float32)
    model = _conv_model(w, kernel_shape=[1])
    x = np.random.default_rng(1).standard_normal((2, 3, 7)).astype(np.float32)
    assert pointwise_conv1d_lengths(model, {"x": x}) == {"y": 7}


def _conv_model(w, b=None, **attrs):
    inputs = ["x", "w"] + (["b"] if b is not None else [])
    node = helper.make_node("Conv", inputs, ["y"], name="c", **attrs)
    inits = [numpy_helper.from_array(w, "w")] + ([numpy_helper.from_array(b, "b")] if b is not None else [])
    rank = w.ndim
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, w.shape[1]] + [7] * (rank - 2))
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, w.shape[0]] + [7] * (rank - 2))
    graph = helper.make_graph([node], "g", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


@pytest.mark.parametrize("bias", [False, True])
def test_rewrite_matches_conv_in_ort(tmp_path, bias):
    rng = np.random.default_rng(int(bias))
    w = rng.standard_normal((5, 3, 1)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32) if bias else None
    model = _conv_model(w, b, kernel_shape=[1])
    onnx.save(model, str(tmp_path / "conv.onnx"))
    assert conv1x1_to_matmul(model) == 1
    assert [n.op_type for n in model.graph.node] == (["MatMul", "Add"] if bias else ["MatMul"])
    assert {i.name for i in model.graph.initializer}.isdisjoint({"w", "b"})   # the old weights are dropped
    onnx.checker.check_model(model)
    onnx.save(model, str(tmp_path / "mm.onnx"))
    x = rng.standard_normal((2, 3, 7)).astype(np.float32)
    assert rel_l2(run_ort(tmp_path / "mm.onnx", x)[0], run_ort(tmp_path / "conv.onnx", x)[0]) <= 1e-6


@pytest.mark.parametrize("w_shape, attrs", [
    ((5, 3, 3), dict(kernel_shape=[3])),              # not pointwise
    ((5, 3, 1), dict(kernel_shape=[1], pads=[1, 1])),  # padded
    ((5, 3, 1), dict(kernel_shape=[1], strides=[2])),  # strided
    ((6, 1, 1), dict(kernel_shape=[1], group=3)),      # grouped
    ((5, 3, 1, 1), dict(kernel_shape=[1, 1])),         # Conv2d: MatMul would mix the wrong axes
])
def test_other_convolutions_stay(w_shape, attrs):
    model = _conv_model(np.ones(w_shape, np.float32), **attrs)
    assert conv1x1_to_matmul(model) == 0
    assert [n.op_type for n in model.graph.node] == ["Conv"]
