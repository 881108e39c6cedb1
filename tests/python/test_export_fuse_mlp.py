"""Exporter MLP fusion (turbofno.export.fuse_mlp): 1x1 Conv + act + 1x1 Conv [+ Add(R | Mul(R, G))] [+ act]
-> one ai.turbofno::PointwiseMLP node (opset 2).

Two levels, so the matching is tested with or without a library that runs the op:
- always: neuraloperator FNO / TFNO exported with fuse_mlp=False, then fuse_mlp.fuse with the float64
  NumPy reference as the fused node's evaluator; the fused graph (run by onnx.reference with the
  reference SpectralConv / PointwiseMLP) matches the unfused graph in ORT at another batch and size
  (<= 1e-5), and hand-built graphs that must not match are left alone;
- with the op in the loaded library (skipped only when it lacks PointwiseMLP): export(fuse_mlp=True)
  validates against PyTorch (<= 1e-5) and equals the fuse_mlp=False file in ORT (<= 1e-5).
"""
from __future__ import annotations

import copy
import functools

import numpy as np
import onnx
import pytest
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

from export_util import TOL, export_and_check, rel_l2, run_ort
from turbofno import _op
from turbofno import reference as ref
from turbofno.export import fuse_mlp
from turbofno.export.report import count_nodes

neuralop = pytest.importorskip("neuralop")
from neuralop.models import FNO, TFNO  # noqa: E402


@functools.lru_cache(maxsize=None)
def _op_missing() -> str | None:
    from turbofno.session import pointwise_mlp_error

    return pointwise_mlp_error(["CPUExecutionProvider"])


requires_mlp_op = pytest.mark.skipif(_op_missing() is not None,
                                     reason=f"the loaded TurboFNO library cannot run PointwiseMLP: {_op_missing()}")


# --- onnx.reference evaluators of our ops (the float64 references, cast back to float32) -----------

def _evaluator(model):
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.op_run import OpRun

    class SpectralConv(OpRun):
        op_domain = _op.DOMAIN

        def _run(self, x, w, b=None, sk=None, modes_low=None, modes_high=None, norm=0, separable=0,
                 output_size=None, activation=0, plugin_version=None, plugin_namespace=None):
            return (ref.spectral_conv(x, w, b, sk, modes_low=modes_low, modes_high=modes_high, norm=norm,
                                      separable=separable, output_size=output_size,
                                      activation=activation).astype(np.float32),)

    class PointwiseMLP(OpRun):
        op_domain = _op.DOMAIN

        def _run(self, x, w1, b1=None, w2=None, b2=None, r=None, g=None, hidden_activation=1, activation=0,
                 plugin_version=None, plugin_namespace=None):
            return (ref.pointwise_mlp(x, w1, b1, w2, b2, r, g, hidden_activation=hidden_activation,
                                      activation=activation).astype(np.float32),)

    return ReferenceEvaluator(model, new_ops=[SpectralConv, PointwiseMLP])


def _ort(model, feeds):
    from turbofno.session import make_session

    return make_session(model.SerializeToString(), providers=["CPUExecutionProvider"], log_severity_level=3,
                        intra_op_num_threads=1).run(None, feeds)[0]


# --- neuraloperator models -----------------------------------------------------------------------

def _blocks(n, residual, act="gelu"):
    """The FNO blocks' MLPs: every block's activation except the last's."""
    return [(residual, act)] * (n - 1) + [(residual, "identity")]


LIFT = PROJ = ("none", "identity")
CASES = {
    "fno1d": (lambda: FNO(n_modes=(4,), in_channels=2, out_channels=1, hidden_channels=8, n_layers=2), (1, 2, 16),
              [LIFT, *_blocks(2, "gated"), PROJ]),
    "fno2d-soft-gating": (lambda: FNO(n_modes=(4, 4), in_channels=1, out_channels=2, hidden_channels=8, n_layers=2),
                          (1, 1, 12, 12), [LIFT, *_blocks(2, "gated"), PROJ]),
    "fno2d-identity": (lambda: FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                                   channel_mlp_skip="identity"), (1, 1, 12, 10), [LIFT, *_blocks(2, "tensor"), PROJ]),
    "fno2d-linear": (lambda: FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                                 channel_mlp_skip="linear"), (1, 1, 12, 12), [LIFT, *_blocks(2, "tensor"), PROJ]),
    "fno2d-no-channel-mlp": (lambda: FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                                         use_channel_mlp=False), (1, 1, 12, 12), [LIFT, PROJ]),
    "fno1d-silu": (lambda: FNO(n_modes=(4,), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                               non_linearity=F.silu), (2, 1, 16), None),
    "tfno2d": (lambda: TFNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                            factorization="tucker", rank=0.5), (1, 1, 12, 12), [LIFT, *_blocks(2, "gated"), PROJ]),
}


def _exported(case: str, fuse: bool = True):
    """(model, example input, ONNX proto exported with fuse_mlp=False), once per case and `fuse`."""
    return _exported_once(case, fuse)


@functools.lru_cache(maxsize=None)
def _exported_once(case: str, fuse: bool):
    import tempfile

    from turbofno.export import export

    factory, shape, _ = CASES[case]
    torch.manual_seed(0)
    model = factory().eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1))
    with tempfile.TemporaryDirectory() as tmp:
        report = export(model, x, f"{tmp}/m.onnx", verbose=False, rtol=TOL, fuse=fuse, fuse_mlp=False)
        proto = onnx.load(f"{tmp}/m.onnx")
    assert report.mlp_fused == [] and "MLP fusion off" in report.summary()
    return model, x, proto


def _expected(case: str):
    expect = CASES[case][2]
    if expect is None:  # silu: the block activation and every ChannelMLP's are the model's non_linearity
        expect = [("none", "identity"), ("gated", "silu"), ("gated", "identity"), ("none", "identity")]
    return expect


def _check_fused_proto(proto, fused, expect, before):
    assert [(f.residual, f.activation) for f in fused] == expect, fused
    assert all(f.layer_rel_err <= 1e-5 for f in fused)
    after = count_nodes(proto)
    assert after.get(f"{_op.DOMAIN}::{_op.MLP_OP_TYPE}", 0) == len(expect)
    assert before.get("::Conv", 0) - after.get("::Conv", 0) == 2 * len(expect)
    assert {o.domain: o.version for o in proto.opset_import}[_op.DOMAIN] == _op.MLP_OPSET_VERSION
    for n in proto.graph.node:
        if n.op_type == _op.MLP_OP_TYPE:
            assert n.domain == _op.DOMAIN and all(n.input) and len(n.input) in (5, 6, 7)
    onnx.checker.check_model(proto)


STRUCTURE = [pytest.param(c, True, id=c) for c in CASES] + [
    pytest.param(c, False, id=f"{c}-plain-spectral") for c in ("fno1d", "fno2d-soft-gating")]


@pytest.mark.parametrize("case,fuse", STRUCTURE)
def test_structure_against_reference(case, fuse):
    """fuse_mlp.fuse with the NumPy reference: the right MLPs fold, and the fused graph equals the unfused one
    (after the SpectralConv fusion, and with plain SpectralConv nodes: export(fuse=False))."""
    _, x, proto = _exported(case, fuse)
    expect = _expected(case)
    fused_proto = copy.deepcopy(proto)
    feeds = {proto.graph.input[0].name: x.numpy()}
    fused, notes = fuse_mlp.fuse(fused_proto, feeds, evaluate=fuse_mlp.reference_evaluate)
    assert notes == []
    _check_fused_proto(fused_proto, fused, expect, count_nodes(proto))
    # neuraloperator 2.0: lifting / projection use the model's non_linearity, the blocks' ChannelMLPs gelu
    outer = "silu" if case.endswith("silu") else "gelu"
    assert [f.hidden_activation for f in fused] == [outer] + ["gelu"] * (len(fused) - 2) + [outer]
    if case == "fno2d-soft-gating":  # lifting: Reshape+Conv+Gelu+Conv+Reshape; block 0 also folds Mul+Add+Gelu
        assert fused[0].folded == ["Reshape", "Conv", "Gelu", "Conv", "Reshape"]
        assert fused[1].folded == ["Reshape", "Conv", "Gelu", "Conv", "Reshape", "Mul", "Add", "Gelu"]
        assert fused[1].channels == (8, 4, 8) and fused[0].channels == (3, 16, 8)
    # whole graph at another batch (and spatial size where dynamic): reference-evaluated fused == ORT unfused
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    shape = [3] + [d.dim_value if d.HasField("dim_value") else x.shape[i + 1] + 4 for i, d in enumerate(dims[1:])]
    x2 = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    name = proto.graph.input[0].name
    want = _ort(proto, {name: x2})
    got = _evaluator(fused_proto).run(None, {name: x2})[0]
    assert rel_l2(got, want) <= TOL


# --- with the op in the library ----------------------------------------------------------------

@requires_mlp_op
@pytest.mark.parametrize("case", ["fno1d", "fno2d-soft-gating", "fno2d-identity", "fno2d-linear", "tfno2d"])
def test_export_fused_in_ort(case, tmp_path):
    model, x, plain = _exported(case)
    report = export_and_check(model, x, tmp_path / "fused.onnx", n_spectral=2)
    expect = _expected(case)
    assert [(f.residual, f.activation) for f in report.mlp_fused] == expect, report.summary()
    assert report.mlp_nodes == len(expect)
    assert f"fused {len(expect)} pointwise MLP(s) into PointwiseMLP" in report.summary()
    proto = onnx.load(str(tmp_path / "fused.onnx"))
    assert {o.domain: o.version for o in proto.opset_import}[_op.DOMAIN] == _op.MLP_OPSET_VERSION
    x2 = np.random.default_rng(3).standard_normal((2, *x.shape[1:])).astype(np.float32)
    assert rel_l2(run_ort(tmp_path / "fused.onnx", x2)[0], _ort(plain, {plain.graph.input[0].name: x2})) <= TOL


@requires_mlp_op
def test_fused_convs_are_not_rewritten_as_matmul(tmp_path):
    """conv1x1_as_matmul=True after the MLP fusion: only the Convs left (the linear channel-MLP skips)."""
    from turbofno.export import export

    model, x, _ = _exported("fno2d-linear")
    report = export(model, x, tmp_path / "m.onnx", verbose=False, rtol=TOL, conv1x1_as_matmul=True)
    assert report.mlp_nodes == 4 and report.conv1x1_as_matmul == 2, report.summary()
    assert report.node_counts.get("::Conv", 0) == 0


@requires_mlp_op
def test_no_fuse_keeps_mlp_fusion(tmp_path):
    """fuse=False does not turn the MLP fusion off (opset 2 then); both off gives a version-1 file."""
    from turbofno.export import export

    model, x, _ = _exported("fno1d")
    report = export(model, x, tmp_path / "a.onnx", verbose=False, rtol=TOL, fuse=False)
    assert report.fused == [] and report.mlp_nodes == 4
    report = export(model, x, tmp_path / "b.onnx", verbose=False, rtol=TOL, fuse=False, fuse_mlp=False)
    assert report.mlp_nodes == 0
    assert {o.domain: o.version for o in onnx.load(str(tmp_path / "b.onnx")).opset_import}[_op.DOMAIN] == 1


def test_fuse_mlp_false_leaves_graph_unchanged():
    """fuse_mlp=False: the Convs / Gelus / gate Muls of every MLP are there, no PointwiseMLP node."""
    _, _, proto = _exported("fno2d-soft-gating")
    counts = count_nodes(proto)
    assert counts.get(f"{_op.DOMAIN}::{_op.MLP_OP_TYPE}", 0) == 0
    assert counts["::Conv"] == 8  # lifting, 2 channel MLPs, projection (the fno skips are in SpectralConv)


def test_cli_flag():
    import argparse

    from turbofno.export import cli

    parser = argparse.ArgumentParser()
    cli.add_parser(parser.add_subparsers())
    base = ["export", "--model", "m:f", "--input-shape", "1,1,8", "--out", "o.onnx"]
    assert parser.parse_args(base).no_fuse_mlp is False
    assert parser.parse_args(base + ["--no-fuse-mlp"]).no_fuse_mlp is True


# --- hand-built graphs: what must (not) match ----------------------------------------------------

C, CH, H, W = 4, 6, 5, 4  # W == C: a per-column factor of C values (test_gate_not_per_channel...)


def _graph(nodes, inits, outputs=("y",), extra_inputs=()):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", C, H, W]),
                                        *[helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in extra_inputs]],
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
                          initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid(_op.DOMAIN, 1)])
    m.ir_version = 10
    return m


def _weights(rng, k1=1):
    return {"w1": (rng.standard_normal((CH, C, k1, k1)) / 2).astype(np.float32),
            "b1": rng.standard_normal(CH).astype(np.float32),
            "w2": (rng.standard_normal((C, CH, 1, 1)) / 2).astype(np.float32),
            "b2": rng.standard_normal(C).astype(np.float32)}


def _mlp_nodes(hidden="Gelu", k1=1, out="t2"):
    conv1 = helper.make_node("Conv", ["x", "w1", "b1"], ["t0"], name="c1",
                             **({"pads": [k1 // 2] * 4} if k1 > 1 else {}))
    act = [helper.make_node(hidden, ["t0"], ["t1"], name="a1")]
    if hidden == "SiLU":
        act = [helper.make_node("Sigmoid", ["t0"], ["s0"], name="sig"), helper.make_node("Mul", ["t0", "s0"], ["t1"])]
    return [conv1, *act, helper.make_node("Conv", ["t1", "w2", "b2"], [out], name="c2")]


def _fuse(model, feeds, **kw):
    before = count_nodes(model)
    fused, notes = fuse_mlp.fuse(model, feeds, evaluate=fuse_mlp.reference_evaluate, **kw)
    return before, fused, notes


def _feeds(rng, *extra):
    feeds = {"x": rng.standard_normal((2, C, H, W)).astype(np.float32)}
    for name, shape in extra:
        feeds[name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def _same(model, fused_model, feeds):
    assert rel_l2(_evaluator(fused_model).run(None, feeds)[0], _ort(model, feeds)) <= TOL


@pytest.mark.parametrize("hidden,code", [("Gelu", 1), ("Relu", 3), ("Tanh", 5), ("SiLU", 4)])
def test_conv2d_mlp_with_gate_and_activation(rng, hidden, code):
    inits = _weights(rng)
    inits["gate"] = rng.standard_normal((1, C, 1, 1)).astype(np.float32)
    nodes = _mlp_nodes(hidden) + [helper.make_node("Mul", ["r", "gate"], ["m"]),
                                  helper.make_node("Add", ["m", "t2"], ["a"]), helper.make_node("Relu", ["a"], ["y"])]
    model = _graph(nodes, inits, extra_inputs=["r"])
    feeds = _feeds(rng, ("r", (2, C, H, W)))
    fused_model = copy.deepcopy(model)
    _, fused, notes = _fuse(fused_model, feeds)
    assert notes == [] and len(fused) == 1
    f = fused[0]
    assert (f.hidden_activation, f.residual, f.activation) == (_op.ACTIVATION_NAMES[code], "gated", "relu")
    assert [n.op_type for n in fused_model.graph.node] == [_op.MLP_OP_TYPE]
    node = fused_model.graph.node[0]
    assert list(node.input[5:]) == ["r", f"{node.name}.gate"]
    _same(model, fused_model, feeds)


def test_residual_tensor_without_gate_and_no_bias(rng):
    inits = _weights(rng)
    del inits["b1"], inits["b2"]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["t0"]), helper.make_node("Gelu", ["t0"], ["t1"], approximate="tanh"),
             helper.make_node("Conv", ["t1", "w2"], ["t2"]), helper.make_node("Add", ["x", "t2"], ["y"])]
    model = _graph(nodes, inits)
    feeds = _feeds(rng)
    fused_model = copy.deepcopy(model)
    _, fused, notes = _fuse(fused_model, feeds)
    assert notes == [] and [(f.hidden_activation, f.residual, f.activation) for f in fused] == [
        ("gelu_tanh", "tensor", "identity")]
    node = fused_model.graph.node[0]
    assert len(node.input) == 6 and node.input[5] == "x"  # zero biases written (positional inputs for TensorRT)
    _same(model, fused_model, feeds)


def test_kernel3_conv_is_left_alone(rng):
    model = _graph(_mlp_nodes(k1=3, out="y"), _weights(rng, k1=3))
    assert fuse_mlp.find_candidates(model) == []


def test_grouped_or_strided_conv_is_left_alone(rng):
    inits = _weights(rng)
    inits["w1"] = inits["w1"][:, :2].copy()
    nodes = _mlp_nodes(out="y")
    nodes[0] = helper.make_node("Conv", ["x", "w1", "b1"], ["t0"], group=2)
    assert fuse_mlp.find_candidates(_graph(nodes, inits)) == []
    nodes = _mlp_nodes(out="y")
    nodes[-1] = helper.make_node("Conv", ["t1", "w2", "b2"], ["y"], strides=[2, 2])
    assert fuse_mlp.find_candidates(_graph(nodes, _weights(rng))) == []


def test_shared_intermediate_is_left_alone(rng):
    # the hidden activation is also a graph output, then also read by another node
    model = _graph(_mlp_nodes(out="y"), _weights(rng), outputs=("y", "t1"))
    assert fuse_mlp.find_candidates(model) == []
    nodes = _mlp_nodes(out="y") + [helper.make_node("Neg", ["t0"], ["z"])]
    assert fuse_mlp.find_candidates(_graph(nodes, _weights(rng), outputs=("y", "z"))) == []


def test_no_hidden_activation_is_left_alone(rng):
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["t1"]), helper.make_node("Conv", ["t1", "w2", "b2"], ["y"])]
    assert fuse_mlp.find_candidates(_graph(nodes, _weights(rng))) == []


def test_mlp_output_read_twice_keeps_the_add(rng):
    """The second Conv's output has two readers: the MLP alone is fused, the Add stays."""
    nodes = _mlp_nodes() + [helper.make_node("Add", ["x", "t2"], ["y"]), helper.make_node("Neg", ["t2"], ["z"])]
    model = _graph(nodes, _weights(rng), outputs=("y", "z"))
    feeds = _feeds(rng)
    fused_model = copy.deepcopy(model)
    _, fused, notes = _fuse(fused_model, feeds)
    assert [(f.residual, f.activation) for f in fused] == [("none", "identity")]
    assert [n.op_type for n in fused_model.graph.node] == [_op.MLP_OP_TYPE, "Add", "Neg"]
    _same(model, fused_model, feeds)


def test_constant_or_broadcast_residual_is_not_folded(rng):
    inits = _weights(rng)
    inits["c"] = rng.standard_normal((1, C, 1, 1)).astype(np.float32)
    model = _graph(_mlp_nodes() + [helper.make_node("Add", ["t2", "c"], ["y"])], inits)
    fused_model = copy.deepcopy(model)
    _, fused, _ = _fuse(fused_model, _feeds(rng))
    assert [f.residual for f in fused] == ["none"]
    assert [n.op_type for n in fused_model.graph.node] == [_op.MLP_OP_TYPE, "Add"]
    # a run-time residual that broadcasts ([1, C, 1, 1]): the op does not broadcast, so nothing is fused
    model = _graph(_mlp_nodes() + [helper.make_node("Add", ["t2", "r"], ["y"])], _weights(rng), extra_inputs=["r"])
    before, fused, notes = _fuse(model, _feeds(rng, ("r", (1, C, 1, 1))))
    assert fused == [] and "does not broadcast" in notes[0] and count_nodes(model) == before


def test_gate_not_per_channel_is_not_fused(rng):
    inits = _weights(rng)
    nodes = _mlp_nodes() + [helper.make_node("Mul", ["gate", "r"], ["m"]), helper.make_node("Add", ["t2", "m"], ["y"])]
    feeds = _feeds(rng, ("r", (2, C, H, W)))
    # a factor per row (H values): not a gate; the Mul stays and its output is the residual
    inits["gate"] = rng.standard_normal((1, 1, H, 1)).astype(np.float32)
    model = _graph(nodes, inits, extra_inputs=["r"])
    fused_model = copy.deepcopy(model)
    _, fused, notes = _fuse(fused_model, feeds)
    assert [f.residual for f in fused] == ["tensor"] and notes == []
    assert [n.op_type for n in fused_model.graph.node] == ["Mul", _op.MLP_OP_TYPE]
    _same(model, fused_model, feeds)
    # a factor per column with C values: matched as a gate, refused by the per-channel check
    inits["gate"] = rng.standard_normal((1, 1, 1, W)).astype(np.float32)
    model = _graph(nodes, inits, extra_inputs=["r"])
    before, fused, notes = _fuse(model, feeds)
    assert fused == [] and "not per channel" in notes[0] and count_nodes(model) == before


def test_three_layer_mlp_folds_one_pair(rng):
    inits = _weights(rng)
    inits["w3"] = rng.standard_normal((2, C, 1, 1)).astype(np.float32)
    nodes = _mlp_nodes() + [helper.make_node("Relu", ["t2"], ["t3"]), helper.make_node("Conv", ["t3", "w3"], ["y"])]
    model = _graph(nodes, inits)
    feeds = _feeds(rng)
    fused_model = copy.deepcopy(model)
    _, fused, _ = _fuse(fused_model, feeds)
    assert [(f.channels, f.activation) for f in fused] == [((C, CH, C), "relu")]
    assert [n.op_type for n in fused_model.graph.node] == [_op.MLP_OP_TYPE, "Conv"]
    _same(model, fused_model, feeds)


def test_numeric_mismatch_is_kept_unfused(rng):
    model = _graph(_mlp_nodes(out="y"), _weights(rng))
    feeds = _feeds(rng)

    def wrong(node, inits, f):
        return fuse_mlp.reference_evaluate(node, inits, f) * 1.001

    before = count_nodes(model)
    fused, notes = fuse_mlp.fuse(model, feeds, evaluate=wrong)
    assert fused == [] and "differs from the unfused graph" in notes[0] and count_nodes(model) == before


def test_library_without_the_op_skips_with_a_note(rng, monkeypatch):
    import turbofno.session

    monkeypatch.setattr(turbofno.session, "pointwise_mlp_error", lambda providers: "not registered")
    model = _graph(_mlp_nodes(out="y"), _weights(rng))
    before = count_nodes(model)
    fused, notes = fuse_mlp.fuse(model, _feeds(rng))
    assert fused == [] and "cannot run PointwiseMLP (not registered)" in notes[0] and count_nodes(model) == before


def test_reference_rules():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5))
    w1, w2 = rng.standard_normal((6, 3)), rng.standard_normal((2, 6))
    r, g = rng.standard_normal((2, 2, 4, 5)), rng.standard_normal(2)
    y = ref.pointwise_mlp(x, w1, None, w2, None, r, g, hidden_activation=3, activation=5)
    h = np.maximum(np.einsum("ji,nihw->njhw", w1, x), 0)
    assert np.allclose(y, np.tanh(np.einsum("oj,njhw->nohw", w2, h) + g[None, :, None, None] * r))
    assert ref.pointwise_mlp(x[:, :, 0, 0], w1, None, w2).shape == (2, 2)  # spatial rank 0
    for bad in (dict(gate=g), dict(residual=r[:1]), dict(residual=r, gate=g[:1]), dict(b1=np.zeros(5)),
                dict(hidden_activation=9)):
        kw = dict(residual=None, gate=None, b1=None, hidden_activation=1)
        kw.update(bad)
        with pytest.raises(ValueError):
            ref.pointwise_mlp(x, w1, kw["b1"], w2, None, kw["residual"], kw["gate"],
                              hidden_activation=kw["hidden_activation"])
    with pytest.raises(ValueError):
        ref.pointwise_mlp(x, w1.T, None, w2)


@pytest.mark.parametrize("name", ["burgers", "darcy"])
def test_bundled_models(name, tmp_path):
    """The bundled checkpoints: lifting, the 4 blocks (gated residual; gelu but the last) and the projection
    become 6 PointwiseMLP nodes, no Conv is left, and the fused graph computes what the unfused one does."""
    from turbofno.export import export
    from turbofno.zoo.checkpoints import load_model

    model, cfg = load_model(name)
    d, size = len(cfg["fno"]["n_modes"]), cfg["recipe"]["size"]
    x = torch.randn(1, cfg["fno"]["in_channels"], *([size] * d), generator=torch.Generator().manual_seed(0))
    export(model, x, tmp_path / "m.onnx", verbose=False, fuse_mlp=False, conv1x1_as_matmul=False)
    proto = onnx.load(str(tmp_path / "m.onnx"))
    fused_proto = copy.deepcopy(proto)
    name_in = proto.graph.input[0].name
    fused, notes = fuse_mlp.fuse(fused_proto, {name_in: x.numpy()}, evaluate=fuse_mlp.reference_evaluate)
    assert notes == [] and [(f.residual, f.activation) for f in fused] == [LIFT, *_blocks(4, "gated"), PROJ]
    _check_fused_proto(fused_proto, fused, [LIFT, *_blocks(4, "gated"), PROJ], count_nodes(proto))
    assert count_nodes(fused_proto).get("::Conv", 0) == 0
    x2 = np.random.default_rng(1).standard_normal((2, *x.shape[1:])).astype(np.float32)
    assert rel_l2(_evaluator(fused_proto).run(None, {name_in: x2})[0], _ort(proto, {name_in: x2})) <= TOL


# --- nn.Linear heads on channels-last data (classic Li et al., PhysicsNeMo-style decoder) ---------

class _PointsDecoder(torch.nn.Module):
    """A PhysicsNeMo-style FNO: spectral layer, then the grid as points [N*H*W, C] through a Linear-SiLU-Linear
    decoder, back to [N, Cout, H, W] (written here from the description, not PhysicsNeMo's code)."""

    def __init__(self, width=8, hidden=16, out=2):
        super().__init__()
        import test_export_classic as classic

        self.lift = torch.nn.Conv2d(1, width, 1)
        self.conv = classic.SpectralConv2d(width, width, 4, 4)
        self.fc1, self.fc2 = torch.nn.Linear(width, hidden), torch.nn.Linear(hidden, out)

    def forward(self, x):
        y = self.conv(self.lift(x))
        n, c, h, w = y.shape
        points = y.permute(0, 2, 3, 1).reshape(-1, c)
        out = self.fc2(F.silu(self.fc1(points)))
        return out.reshape(n, h, w, -1).permute(0, 3, 1, 2)


def _classic():
    import test_export_classic as classic

    return classic.FNO2d(4, 4, 8), (1, 16, 16, 1)


LINEAR_CASES = {
    # fc1 / fc2 after permute(0, 2, 3, 1): PointwiseMLP on the channels-first tensor, then the Transpose
    "classic-fno2d": (_classic, ["Transpose", "MatMul", "Add", "Gelu", "MatMul", "Add"], 1),
    # [P, C] points: channels last is channels on axis 1, no Transpose needed
    "points-decoder": (lambda: (_PointsDecoder(), (1, 1, 12, 12)), None, 1),
}


@pytest.mark.parametrize("case", list(LINEAR_CASES))
def test_linear_head_against_reference(case, tmp_path):
    from turbofno.export import export

    factory, folded, n = LINEAR_CASES[case]
    torch.manual_seed(0)
    model, shape = factory()
    model = model.eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(2))
    export(model, x, tmp_path / "m.onnx", verbose=False, rtol=TOL, fuse_mlp=False)
    proto = onnx.load(str(tmp_path / "m.onnx"))
    fused_proto = copy.deepcopy(proto)
    name = proto.graph.input[0].name
    fused, notes = fuse_mlp.fuse(fused_proto, {name: x.numpy()}, evaluate=fuse_mlp.reference_evaluate)
    assert notes == [] and len(fused) == n and all(f.layout == "channels-last" for f in fused), (fused, notes)
    if folded:
        assert fused[0].folded == folded
    onnx.checker.check_model(fused_proto)
    x2 = np.random.default_rng(4).standard_normal((2, *shape[1:])).astype(np.float32)
    assert rel_l2(_evaluator(fused_proto).run(None, {name: x2})[0], _ort(proto, {name: x2})) <= TOL


@requires_mlp_op
@pytest.mark.parametrize("case", list(LINEAR_CASES))
def test_linear_head_in_ort(case, tmp_path):
    factory, _, n = LINEAR_CASES[case]
    torch.manual_seed(0)
    model, shape = factory()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(2))
    n_spectral = 3 if case.startswith("classic") else 1
    report = export_and_check(model.eval(), x, tmp_path / "m.onnx", n_spectral=n_spectral)
    assert report.mlp_nodes == n and "channels-last" in report.summary()


def test_gemm_mlp_on_points(rng):
    """Gemm (transB) layers on a rank-2 [P, C] tensor: fused without a Transpose."""
    inits = {"w1": rng.standard_normal((CH, C)).astype(np.float32), "b1": rng.standard_normal(CH).astype(np.float32),
             "w2": rng.standard_normal((CH, 3)).astype(np.float32), "b2": rng.standard_normal(3).astype(np.float32)}
    nodes = [helper.make_node("Gemm", ["p", "w1", "b1"], ["t0"], transB=1), helper.make_node("Tanh", ["t0"], ["t1"]),
             helper.make_node("Gemm", ["t1", "w2", "b2"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("p", TensorProto.FLOAT, ["P", C])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 10
    feeds = {"p": rng.standard_normal((7, C)).astype(np.float32)}
    fused_model = copy.deepcopy(model)
    fused, notes = fuse_mlp.fuse(fused_model, feeds, evaluate=fuse_mlp.reference_evaluate)
    assert notes == [] and [(f.channels, f.hidden_activation) for f in fused] == [((C, CH, 3), "tanh")]
    assert [n.op_type for n in fused_model.graph.node] == [_op.MLP_OP_TYPE]
    assert {o.domain: o.version for o in fused_model.opset_import}[_op.DOMAIN] == _op.MLP_OPSET_VERSION
    assert rel_l2(_evaluator(fused_model).run(None, feeds)[0], _ort(model, feeds)) <= TOL


def test_matmul_mlp_on_rank3_without_transpose_is_not_fused(rng):
    """MatMul layers on [N, S, C] with no Transpose in front: channels are not on axis 1, nothing fused."""
    inits = {"w1": rng.standard_normal((C, CH)).astype(np.float32), "w2": rng.standard_normal((CH, C)).astype(np.float32)}
    nodes = [helper.make_node("MatMul", ["x3", "w1"], ["t0"]), helper.make_node("Relu", ["t0"], ["t1"]),
             helper.make_node("MatMul", ["t1", "w2"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x3", TensorProto.FLOAT, ["N", 5, C])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 10
    before = count_nodes(model)
    fused, notes = fuse_mlp.fuse(model, {"x3": rng.standard_normal((2, 5, C)).astype(np.float32)},
                                 evaluate=fuse_mlp.reference_evaluate)
    assert fused == [] and "channels-last MLP on a rank-3 tensor" in notes[0] and count_nodes(model) == before
