"""ONNX parser compatibility of the TensorRT plugin, without TensorRT.

One-node models made by turbofno.reference.make_model (the same node the exporter writes) are turned
into plugin fields exactly as TensorRT's ONNX parser does it (trt_harness_util.parser_fields), and
the C++ harness creates both plugins from those fields, runs shape inference, workspace and
serialization, and - on a GPU - enqueues and compares with turbofno.reference.spectral_conv
(float64). Without a GPU the enqueue step prints SKIPPED and the rest still runs.
"""
from __future__ import annotations

import os
import re
import subprocess

import numpy as np

import seeding
import pytest

from trt_harness_util import (CREATOR_FIELDS, MLP_CREATOR_FIELDS, MLP_INPUTS, find_harness, narrow_int32,
                              parser_fields, plugin_key, trt_library_or_skip, write_case)
from turbofno import reference, trt

HARNESS = find_harness()
pytestmark = pytest.mark.skipif(
    HARNESS is None, reason="trt_harness not built (configure with -DTURBOFNO_BUILD_TESTS=ON and CUDA, "
                            "or set TURBOFNO_TRT_HARNESS)")


def trt_lib() -> str:
    return trt_library_or_skip()


def run_harness(*case_files) -> subprocess.CompletedProcess:
    args = [HARNESS, "--lib", trt_lib()]
    for f in case_files:
        args += ["--case-file", str(f)]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def model_case(tmp_path, name, *, n, cin, cout, spatial, modes_low, modes_high, norm=0, separable=0,
               bias=True, attributes=None, seed=0, output_size=None, skip=False, activation=0):
    rng = seeding.rng(seed)
    kept = [p + q for p, q in zip(modes_low, modes_high)]
    w = rng.uniform(-0.5, 0.5, (cin, 1 if separable else cout, *kept, 2)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (cout,)).astype(np.float32) if bias else None
    sk = rng.uniform(-0.5, 0.5, (cout, cin)).astype(np.float32) if skip else None
    x = rng.uniform(-1, 1, (n, cin, *spatial)).astype(np.float32)
    model = reference.make_model(w, b, modes_low=modes_low, modes_high=modes_high, norm=norm, separable=separable,
                                 attributes=attributes, output_size=output_size, skip_weight=sk, activation=activation)
    node = next(nd for nd in model.graph.node if nd.op_type == "SpectralConv")
    fields = parser_fields(node)
    shapes = {"x": x.shape, "weight": w.shape}
    if bias:
        shapes["bias"] = b.shape
    if skip:
        shapes["skip_weight"] = sk.shape
    data = tmp_path / f"{name}-data"
    data.mkdir()
    x.astype(np.float64).tofile(data / "x.bin")
    w.astype(np.float64).tofile(data / "weight.bin")
    if bias:
        b.astype(np.float64).tofile(data / "bias.bin")
    if skip:
        sk.astype(np.float64).tofile(data / "skip_weight.bin")
    y = reference.spectral_conv(x, w, b, sk, modes_low=modes_low, modes_high=modes_high, norm=norm, separable=separable,
                                output_size=output_size, activation=activation)
    np.asarray(y, dtype=np.float64).tofile(data / "expected.bin")
    case = tmp_path / f"{name}.case"
    write_case(case, name, fields, shapes, data_dir=data)
    return node, case


def test_harness_lists_the_parser_lookup_key():
    """The node's (op_type, plugin_version, plugin_namespace) is what the V3 creator advertises."""
    w = np.zeros((2, 3, 4, 3, 2), np.float32)
    model = reference.make_model(w, modes_low=[2, 3], modes_high=[2, 0])
    node = model.graph.node[0]
    out = subprocess.run([HARNESS, "--lib", trt_lib(), "--cpu-only"], capture_output=True, text=True, timeout=300)
    m = re.search(r'4 creators \(V3 version "([^"]*)", V2 version "([^"]*)"; '
                  r'PointwiseMLP V3 version "([^"]*)", V2 version "([^"]*)"\)', out.stdout)
    assert m, out.stdout[-2000:]
    assert plugin_key(node) == ("SpectralConv", m.group(1), "")
    assert m.group(2) != m.group(1)  # the legacy creator is reachable with plugin_version=<its version>
    # The node's domain (ai.turbofno) plays no part in the lookup; plugin_* attributes are not fields.
    assert node.domain == "ai.turbofno"
    assert {f[0] for f in parser_fields(node)} == set(CREATOR_FIELDS) - {"output_size", "activation"}  # absent here
    fused = reference.make_model(w, modes_low=[2, 3], modes_high=[2, 0], activation=1, output_size=[8, 6]).graph.node[0]
    assert {f[0] for f in parser_fields(fused)} == set(CREATOR_FIELDS)
    assert "output_size" in CREATOR_FIELDS


@pytest.mark.parametrize("spec", [
    dict(name="d2-bias-odd", n=2, cin=3, cout=5, spatial=(12, 15), modes_low=[3, 5], modes_high=[2, 0]),
    dict(name="d1-separable-nobias", n=3, cin=4, cout=4, spatial=(37,), modes_low=[9], modes_high=[0],
         separable=1, bias=False),
    dict(name="d3-ortho", n=1, cin=2, cout=3, spatial=(6, 5, 7), modes_low=[2, 2, 3], modes_high=[1, 2, 0], norm=2),
    dict(name="d2-norm-absent", n=1, cin=2, cout=2, spatial=(9, 10), modes_low=[2, 6], modes_high=[2, 0],
         attributes={"norm": None, "separable": None}),
    dict(name="d2-output-size", n=2, cin=3, cout=4, spatial=(12, 10), modes_low=[3, 4], modes_high=[2, 0], norm=1,
         output_size=(24, 7)),
    dict(name="d2-fused-skip-gelu", n=2, cin=3, cout=4, spatial=(12, 10), modes_low=[3, 4], modes_high=[2, 0],
         skip=True, activation=1),
    dict(name="d1-fused-relu-no-skip", n=2, cin=3, cout=2, spatial=(20,), modes_low=[6], modes_high=[0], activation=3),
], ids=lambda s: s["name"])
def test_exported_node_fields_build_and_run(tmp_path, spec):
    spec = dict(spec)
    name = spec.pop("name")
    node, case = model_case(tmp_path, name, **spec)
    if "attributes" in spec:
        # absent ONNX attributes -> absent fields -> the plugin applies the defaults
        assert [f[0] for f in parser_fields(node)] == ["modes_low", "modes_high"]
    res = run_harness(case)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert "0 failed" in res.stdout
    if os.environ.get("TURBOFNO_TRT_REQUIRE_GPU") == "1":  # tests/gpu/run_trt_harness.sh
        assert "SKIPPED" not in res.stdout, res.stdout[-2000:]
    if "SKIPPED" not in res.stdout and "the CUDA kernel refuses it" not in res.stdout:
        assert res.stdout.count("max|err|/max|ref|") == 2, res.stdout[-3000:]  # both plugins vs float64


@pytest.mark.parametrize("attributes,needle", [
    ({"norm": 5}, "norm = 5"),
    ({"separable": 3}, "separable = 3"),
    ({"activation": 6}, "activation = 6"),
    ({"modes_high": [2, 1]}, "must be 0"),
    ({"modes_low": [2, 3, 1]}, "entries"),
    ({"modes_low": None}, "modes_low' is missing"),
    ({"modes_low": [2, 9]}, "exceeds"),  # valid attributes, shape inference fails (9 > 10//2 + 1)
    ({"output_size": [16]}, "output_size has 1 entries"),
    ({"output_size": [16, 0]}, "output_size[1] = 0"),
], ids=["norm", "separable", "activation", "last-high", "length", "missing", "too-many-modes", "output-size-length", "output-size-0"])
def test_bad_nodes_are_rejected_with_the_reason(tmp_path, attributes, needle):
    w = np.zeros((2, 3, 4, 3, 2), np.float32)
    model = reference.make_model(w, modes_low=[2, 3], modes_high=[2, 0], attributes=attributes)
    fields = parser_fields(model.graph.node[0])
    case = tmp_path / "bad.case"
    write_case(case, "bad", fields, {"x": (1, 2, 8, 10), "weight": w.shape}, expect_error=needle)
    res = run_harness(case)
    assert res.returncode == 0 and "0 failed" in res.stdout, res.stdout[-3000:]


def test_int64_values_are_narrowed_like_the_parser():
    """INT/INTS values reach the plugin as int32 (static_cast); 2**32 + 3 becomes 3."""
    from onnx import helper

    node = helper.make_node("SpectralConv", ["x", "weight"], ["y"], domain="ai.turbofno",
                            modes_low=[2**32 + 3, 5], modes_high=[2, 0], norm=2**33 + 1)
    assert parser_fields(node) == [("modes_low", "INT32", [3, 5]), ("modes_high", "INT32", [2, 0]),
                                   ("norm", "INT32", [1])]
    assert narrow_int32(-1) == -1 and narrow_int32(2**31) == -(2**31)


# ---- PointwiseMLP -------------------------------------------------------------------------------------

def mlp_node(inputs=MLP_INPUTS, **attributes):
    """A PointwiseMLP node as the exporter writes it (domain ai.turbofno, plugin_version "1");
    attributes set to None are left out."""
    from onnx import helper

    attrs = {k: v for k, v in attributes.items() if v is not None}
    return helper.make_node("PointwiseMLP", list(inputs), ["y"], domain="ai.turbofno", plugin_version="1", **attrs)


def mlp_shapes(node, *, n=2, cin=3, ch=8, cout=4, spatial=(5, 7)) -> dict:
    """The input shapes TensorRT would hand the plugin: the node's non-empty inputs in order (an
    empty optional input name is left out here; whether TensorRT's parser drops or keeps it has not
    been checked, so the plugin must reject a shifted input list)."""
    full = {"x": (n, cin, *spatial), "w1": (ch, cin), "b1": (ch,), "w2": (cout, ch), "b2": (cout,),
            "residual": (n, cout, *spatial), "gate": (cout,)}
    return {name: full[slot] for slot, name in zip(MLP_INPUTS, node.input) if name}


def test_mlp_harness_lists_the_parser_lookup_key():
    out = subprocess.run([HARNESS, "--lib", trt_lib(), "--cpu-only"], capture_output=True, text=True, timeout=300)
    m = re.search(r'PointwiseMLP V3 version "([^"]*)", V2 version "([^"]*)"', out.stdout)
    assert m, out.stdout[-2000:]
    node = mlp_node(hidden_activation=1, activation=0)
    assert plugin_key(node) == (trt.MLP_PLUGIN_NAME, m.group(1), "") == ("PointwiseMLP", trt.PLUGIN_VERSION, "")
    assert m.group(2) != m.group(1)
    assert {f[0] for f in parser_fields(node, MLP_CREATOR_FIELDS)} == set(MLP_CREATOR_FIELDS)
    assert parser_fields(mlp_node(), MLP_CREATOR_FIELDS) == []  # absent attributes: the plugin's defaults


@pytest.mark.parametrize("spec", [
    dict(name="mlp-4in-defaults", inputs=MLP_INPUTS[:4], attrs={}),
    dict(name="mlp-5in-relu", inputs=MLP_INPUTS[:5], attrs=dict(hidden_activation=3, activation=0)),
    dict(name="mlp-6in-residual-silu", inputs=MLP_INPUTS[:6], attrs=dict(hidden_activation=1, activation=4),
         dtype="float16"),
    dict(name="mlp-7in-gated-tanh", inputs=MLP_INPUTS, attrs=dict(hidden_activation=2, activation=5)),
    dict(name="mlp-7in-rank0", inputs=MLP_INPUTS, attrs=dict(activation=3), spatial=()),
    dict(name="mlp-7in-rank3-bf16", inputs=MLP_INPUTS, attrs=dict(hidden_activation=0), spatial=(3, 4, 5),
         dtype="bfloat16"),
], ids=lambda s: s["name"])
def test_mlp_node_fields_build_and_run(tmp_path, spec):
    node = mlp_node(spec["inputs"], **spec["attrs"])
    case = tmp_path / f"{spec['name']}.case"
    write_case(case, spec["name"], parser_fields(node, MLP_CREATOR_FIELDS),
               mlp_shapes(node, spatial=spec.get("spatial", (5, 7))), dtype=spec.get("dtype", "float32"),
               op="PointwiseMLP")
    res = run_harness(case)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert "0 failed" in res.stdout, res.stdout[-4000:]
    if os.environ.get("TURBOFNO_TRT_REQUIRE_GPU") == "1":
        assert "SKIPPED" not in res.stdout, res.stdout[-2000:]
    if "SKIPPED" not in res.stdout:
        assert res.stdout.count("max|err|/max|ref|") == 2, res.stdout[-3000:]  # both plugins vs float64


@pytest.mark.parametrize("inputs,attrs,needle", [
    (MLP_INPUTS[:4], dict(activation=6), "PointwiseMLP 'bad': createPlugin"),
    (MLP_INPUTS[:4], dict(hidden_activation=-1), "PointwiseMLP 'bad': createPlugin"),
    # An absent B1 ("" in ONNX) cannot be expressed positionally: 3 tensors, or W2 in B1's slot.
    (("x", "w1", "", "w2"), {}, "expected 4 to 7 inputs"),
    (("x", "w1", "", "w2", "b2"), {}, "positional"),
    (("x", "w1", "b1", "w2", "", "residual"), {}, "positional"),
], ids=["activation", "hidden-activation", "no-b1", "no-b1-with-b2", "no-b2-before-r"])
def test_mlp_bad_nodes_are_rejected_with_the_reason(tmp_path, inputs, attrs, needle):
    node = mlp_node(inputs, **attrs)
    case = tmp_path / "bad.case"
    write_case(case, "bad", parser_fields(node, MLP_CREATOR_FIELDS), mlp_shapes(node), expect_error=needle,
               op="PointwiseMLP")
    res = run_harness(case)
    assert res.returncode == 0 and "0 failed" in res.stdout, res.stdout[-3000:]
