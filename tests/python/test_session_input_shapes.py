"""make_session(input_shapes=...) / fix_input_shapes: a model exported with dynamic axes, run at one
size, loses its CPU shape arithmetic (ORT folds it into constants), so ORT's CUDA graph can capture it.

CPU: the fixed model's optimized graph has no Shape node left and gives the dynamic model's result at
that size; bad input_shapes are refused naming the input. GPU (requires_cuda): the dynamic export runs
under enable_cuda_graph with input_shapes, replayed on new data, matching PyTorch.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
import torch

from export_util import TOL, rel_l2
from turbofno.export import export
from turbofno.session import fix_input_shapes, make_session

neuralop = pytest.importorskip("neuralop")
from neuralop.models import FNO  # noqa: E402


@pytest.fixture(scope="module")
def dynamic_fno(tmp_path_factory):
    torch.manual_seed(0)
    model = FNO(n_modes=(8, 8), in_channels=3, out_channels=1, hidden_channels=12, n_layers=2,
                positional_embedding="grid", domain_padding=0.25).eval()
    path = tmp_path_factory.mktemp("fixshape") / "fno.onnx"
    report = export(model, torch.randn(1, 3, 32, 32), path, verbose=False)
    assert report.axes.spatial(0) == [2, 3], report.summary()
    return model, path


def _shape_nodes(optimized_path) -> int:
    return sum(n.op_type == "Shape" for n in onnx.load(str(optimized_path)).graph.node)


def test_fixed_shapes_fold_the_shape_arithmetic(dynamic_fno, tmp_path):
    import onnxruntime as ort

    model, path = dynamic_fno
    x = torch.randn(2, 3, 48, 40)
    with torch.no_grad():
        want = model(x).numpy()
    results = {}
    for tag, shapes in (("dynamic", None), ("fixed", {"x": tuple(x.shape)})):
        opt = tmp_path / f"{tag}.onnx"
        sess = make_session(path, providers=["CPUExecutionProvider"], input_shapes=shapes, optimized_model_filepath=str(opt),
                            graph_optimization_level=ort.GraphOptimizationLevel.ORT_ENABLE_BASIC, intra_op_num_threads=1)
        results[tag] = sess.run(None, {"x": x.numpy()})[0]
        results[tag + "_shape_nodes"] = _shape_nodes(opt)
    assert results["dynamic_shape_nodes"] > 0, "the dynamic export computes sizes with Shape nodes"
    assert results["fixed_shape_nodes"] == 0, "fixed input sizes: every Shape node folded into a constant"
    assert rel_l2(results["fixed"], want) <= TOL
    np.testing.assert_allclose(results["fixed"], results["dynamic"], rtol=1e-6, atol=1e-6)


def test_fixed_shapes_sets_the_input_and_output_dims(dynamic_fno):
    _, path = dynamic_fno
    proto = onnx.load_from_string(fix_input_shapes(path, {"x": (4, 3, 64, 48)}))
    dims = [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [4, 3, 64, 48]
    out = proto.graph.output[0].type.tensor_type.shape.dim
    assert out[0].dim_value == 4 and not any(d.dim_param for d in out), "no symbolic output axis is left"


@pytest.mark.parametrize("shapes,match", [
    ({"y": (1, 3, 32, 32)}, r"names \['y'\].*inputs are \['x'\]"),
    ({"x": (1, 3, 32)}, r"input_shapes\['x'\] has 3 axes.*has 4"),
    ({"x": (1, 5, 32, 32)}, r"axis 1 is 5, but the model fixes it to 3"),
    ({"x": (1, 3, 0, 32)}, r"axis 2 is 0: sizes must be positive"),
])
def test_bad_input_shapes_are_refused(dynamic_fno, shapes, match):
    _, path = dynamic_fno
    with pytest.raises(ValueError, match=match):
        make_session(path, providers=["CPUExecutionProvider"], input_shapes=shapes)


@pytest.mark.requires_cuda
def test_dynamic_export_runs_in_a_cuda_graph_with_input_shapes(dynamic_fno):
    import onnxruntime as ort

    if hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
    model, path = dynamic_fno
    shape = (2, 3, 48, 40)
    sess = make_session(path, providers=[("CUDAExecutionProvider", {"enable_cuda_graph": "1"})], input_shapes={"x": shape},
                        log_severity_level=3)
    assert "CUDAExecutionProvider" in sess.get_providers()
    x_dev = ort.OrtValue.ortvalue_from_numpy(np.zeros(shape, np.float32), "cuda", 0)
    y_dev = ort.OrtValue.ortvalue_from_shape_and_type([2, 1, 48, 40], np.float32, "cuda", 0)
    binding = sess.io_binding()
    binding.bind_ortvalue_input("x", x_dev)
    binding.bind_ortvalue_output(sess.get_outputs()[0].name, y_dev)
    g = torch.Generator().manual_seed(3)
    for _ in range(3):  # first run captures the graph, later runs replay it on new data in the same buffers
        x = torch.randn(shape, generator=g)
        x_dev.update_inplace(x.numpy())
        sess.run_with_iobinding(binding)
        with torch.no_grad():
            want = model(x).numpy()
        assert rel_l2(y_dev.numpy(), want) <= TOL
