"""turbofno.export.fp16: an exported fp32 graph as a float16 graph (data path and weights in float16, the shape
arithmetic in float32), run in ONNX Runtime's CPU EP with our library against PyTorch's fp32 model."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

import seeding
from export_util import rel_l2, run_ort
from turbofno import _op
from turbofno.export.fp16 import Fp16ConversionError, check_fp16, convert_to_fp16

FP16_TOL = 5e-3  # relative L2 of a float16 model against PyTorch fp32 (measured 3e-4 to 4e-4 on the bundled models)


def _elem(vi) -> int:
    return vi.type.tensor_type.elem_type


def _export_bundled(name, tmp_path):
    pytest.importorskip("neuralop")
    from turbofno.export import export
    from turbofno.zoo.checkpoints import load_model

    model, cfg = load_model(name)
    d, size = len(cfg["fno"]["n_modes"]), cfg["recipe"]["size"]
    x = torch.randn(1, cfg["fno"]["in_channels"], *([size] * d), generator=torch.Generator().manual_seed(0))
    export(model, x, tmp_path / "m.onnx", verbose=False)
    return model.eval(), x


@pytest.mark.parametrize("name", ["burgers", "darcy"])
def test_bundled_model_in_fp16(name, tmp_path):
    model, x = _export_bundled(name, tmp_path)
    m16 = convert_to_fp16(tmp_path / "m.onnx", tmp_path / "m16.onnx")
    g = m16.graph
    assert [_elem(v) for v in g.input] == [TensorProto.FLOAT16] and [_elem(v) for v in g.output] == [TensorProto.FLOAT16]
    inits = {i.name: i for i in g.initializer}
    ours = [n for n in g.node if n.domain == _op.DOMAIN]
    assert len(ours) >= 8  # 4 SpectralConv + the PointwiseMLP nodes
    for n in ours:  # every weight of our nodes is a float16 initializer
        for name_in in n.input[1:]:
            if name_in in inits:
                assert inits[name_in].data_type == TensorProto.FLOAT16, (n.name, name_in)
    # the positional grid is computed in float32 (Range has no float16) and cast where it meets the data path
    assert any(n.op_type == "Range" for n in g.node)
    assert any(n.op_type == "Cast" and n.name.endswith("_to_fp16") for n in g.node)

    x2 = seeding.rng(7).standard_normal((2, *x.shape[1:])).astype(np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy(x2)).numpy()
    got = run_ort(tmp_path / "m16.onnx", x2.astype(np.float16))[0]
    assert got.dtype == np.float16
    assert rel_l2(got, ref) <= FP16_TOL

    # float32 inputs and outputs: the same numbers (the input cast rounds as astype does)
    convert_to_fp16(tmp_path / "m.onnx", tmp_path / "m16io.onnx", keep_io_types=True)
    kept = run_ort(tmp_path / "m16io.onnx", x2)[0]
    assert kept.dtype == np.float32 and np.array_equal(kept, got.astype(np.float32))
    assert check_fp16(tmp_path / "m.onnx", tmp_path / "m16.onnx", [x2]) <= FP16_TOL

    # the dynamic export stays dynamic: the float16 graph at another resolution (the grid island recomputed)
    x3 = seeding.rng(8).standard_normal((1, x.shape[1], *[s + 16 for s in x.shape[2:]])).astype(np.float32)
    with torch.no_grad():
        ref3 = model(torch.from_numpy(x3)).numpy()
    assert rel_l2(run_ort(tmp_path / "m16.onnx", x3.astype(np.float16))[0], ref3) <= FP16_TOL


def _tiny_graph(weight: np.ndarray, input_type=TensorProto.FLOAT):
    x = helper.make_tensor_value_info("x", input_type, [2, 3])
    y = helper.make_tensor_value_info("y", input_type, [2, 3])
    node = helper.make_node("Mul", ["x", "w"], ["y"], name="scale")
    graph = helper.make_graph([node], "g", [x], [y], [numpy_helper.from_array(weight.astype(
        np.float32 if input_type == TensorProto.FLOAT else np.int64), "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_overflowing_weight_is_refused_by_name():
    with pytest.raises(Fp16ConversionError, match="initializer 'w'.*overflow float16"):
        convert_to_fp16(_tiny_graph(np.full((2, 3), 1e6)))


def test_graph_without_float_input_is_refused():
    with pytest.raises(Fp16ConversionError, match="no float32 input"):
        convert_to_fp16(_tiny_graph(np.ones((2, 3)), TensorProto.INT64))


def test_shared_initializer_is_cast_not_converted():
    """An initializer read by a float32 node off the data path and by the data path: kept float32, cast once."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])
    nodes = [helper.make_node("Mul", ["x", "w"], ["y"], name="on_path"),
             helper.make_node("Add", ["w", "w"], ["z"], name="off_path")]
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y, z], [numpy_helper.from_array(w, "w")]),
                              opset_imports=[helper.make_opsetid("", 17)])
    m16 = convert_to_fp16(model)
    assert m16.graph.initializer[0].data_type == TensorProto.FLOAT
    assert [_elem(v) for v in m16.graph.output] == [TensorProto.FLOAT16, TensorProto.FLOAT]
    casts = [n for n in m16.graph.node if n.op_type == "Cast"]
    assert len(casts) == 1 and casts[0].input[0] == "w"
    import onnxruntime as ort

    sess = ort.InferenceSession(m16.SerializeToString(), providers=["CPUExecutionProvider"])
    xv = np.ones((2, 3), np.float16)
    got_y, got_z = sess.run(None, {"x": xv})
    assert np.array_equal(got_y, w.astype(np.float16)) and np.array_equal(got_z, 2 * w)


FACTORY = """
from neuralop.models import FNO

def build():
    return FNO(n_modes=(6, 6), in_channels=2, out_channels=1, hidden_channels=8, n_layers=2)
"""


def test_cli_fp16(tmp_path):
    pytest.importorskip("neuralop")
    (tmp_path / "fno_factory.py").write_text(FACTORY)
    out = tmp_path / "fno16.onnx"
    import turbofno

    package_root = os.path.dirname(os.path.dirname(os.path.abspath(turbofno.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [package_root, os.environ.get("PYTHONPATH", "")] if p))
    cmd = [sys.executable, "-m", "turbofno", "export", "--model", f"{tmp_path / 'fno_factory.py'}:build",
           "--input-shape", "1,2,16,12", "--out", str(out), "--fp16"]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "float16 graph written (relative L2" in res.stdout
    model = onnx.load(str(out))
    assert _elem(model.graph.input[0]) == TensorProto.FLOAT16
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".fp16.onnx")]  # no temporary file left
    x = seeding.rng(0).standard_normal((3, 2, 16, 12)).astype(np.float16)
    y = run_ort(out, x)[0]
    assert y.dtype == np.float16 and y.shape == (3, 1, 16, 12) and np.isfinite(y).all()
