"""turbofno.trt and libturbofno_trt.so: exported symbols, the harness's CPU checks, the CLI without
TensorRT, and (requires_trt) real engines built from an exported SpectralConv model and from a
one-node PointwiseMLP model, compared with float64 references."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys

import numpy as np

import seeding
import pytest

from trt_harness_util import find_harness, trt_library_or_skip
from turbofno import reference, trt

HAVE_TRT = importlib.util.find_spec("tensorrt") is not None


def trt_lib() -> str:
    return trt_library_or_skip()


@pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) not installed")
def test_library_exports_only_the_loader_entry_points():
    out = subprocess.run(["nm", "-D", "--defined-only", trt_lib()], capture_output=True, text=True, check=True).stdout
    symbols = {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert symbols == {"getCreators", "setLoggerFinder"}, symbols


@pytest.mark.skipif(shutil.which("ldd") is None, reason="ldd not available")
def test_library_needs_no_tensorrt_or_cuda_runtime():
    out = subprocess.run(["ldd", trt_lib()], capture_output=True, text=True).stdout
    assert "libnvinfer" not in out and "libcudart" not in out, out


@pytest.mark.skipif(find_harness() is None, reason="trt_harness not built (-DTURBOFNO_BUILD_TESTS=ON with CUDA)")
def test_harness_cpu_checks_pass():
    res = subprocess.run([find_harness(), "--lib", trt_lib(), "--cpu-only"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert " 0 failed" in res.stdout and "GPU checks not run (--cpu-only)" in res.stdout


def test_parse_shapes_and_trtexec_command():
    shapes = trt.parse_shapes("x:1x1x64x64,4x1x64x64,8x1x64x64")
    assert shapes == {"x": ([1, 1, 64, 64], [4, 1, 64, 64], [8, 1, 64, 64])}
    assert trt.parse_shapes("x:2x3") == {"x": ([2, 3], [2, 3], [2, 3])}
    with pytest.raises(ValueError):
        trt.parse_shapes("1x2x3")
    cmd = trt.trtexec_command("m.onnx", "m.engine", fp16=True, shapes="x:1x1x8,2x1x8,4x1x8")
    assert f"--dynamicPlugins={trt_lib()}" in cmd and "--fp16" in cmd
    assert "--minShapes=x:1x1x8" in cmd and "--maxShapes=x:4x1x8" in cmd


def test_names_match_the_op_contract():
    from turbofno import _op

    assert trt.PLUGIN_NAME == _op.OP_TYPE and trt.PLUGIN_VERSION == _op.PLUGIN_VERSION
    assert trt.MLP_PLUGIN_NAME == _op.MLP_OP_TYPE == "PointwiseMLP"
    assert trt.PLUGIN_NAMESPACE == _op.PLUGIN_NAMESPACE


@pytest.mark.skipif(HAVE_TRT, reason="TensorRT is installed; this checks the behaviour without it")
def test_cli_without_tensorrt_says_so_and_fails(tmp_path):
    w = np.zeros((2, 2, 3, 2), np.float32)
    model = reference.make_model(w, modes_low=[3], modes_high=[0])
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    res = subprocess.run([sys.executable, "-m", "turbofno", "trt", "build", str(path)], capture_output=True, text=True)
    assert res.returncode != 0
    assert "TensorRT is not installed" in res.stderr
    assert "trtexec --onnx=" in res.stderr  # points at the alternative
    with pytest.raises(trt.TensorRTUnavailable, match="TensorRT is not installed"):
        trt.build_engine(str(path))


@pytest.mark.requires_trt
@pytest.mark.parametrize("fp16", [False, True])
def test_engine_matches_reference(tmp_path, fp16):
    """Exported-style model -> TensorRT engine (plugin via the ONNX parser) -> run -> float64 reference."""
    import tensorrt as tensorrt_mod
    import torch  # only for device buffers

    rng = seeding.rng(3)
    w = rng.uniform(-0.5, 0.5, (3, 4, 5, 6, 2)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (4,)).astype(np.float32)
    x = rng.uniform(-1, 1, (2, 3, 12, 15)).astype(np.float32)
    model = reference.make_model(w, b, modes_low=[3, 6], modes_high=[2, 0])
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    plan = trt.build_engine(str(path), fp16=fp16, shapes={"x": ([1, 3, 12, 15], [2, 3, 12, 15], [4, 3, 12, 15])})
    logger = tensorrt_mod.Logger(tensorrt_mod.Logger.WARNING)
    runtime = tensorrt_mod.Runtime(logger)
    engine = runtime.deserialize_cuda_engine(plan)
    ctx = engine.create_execution_context()
    ctx.set_input_shape("x", x.shape)
    xd = torch.from_numpy(x).cuda()
    yd = torch.empty((2, 4, 12, 15), device="cuda")
    ctx.set_tensor_address("x", xd.data_ptr())
    ctx.set_tensor_address(engine.get_tensor_name(engine.num_io_tensors - 1), yd.data_ptr())
    stream = torch.cuda.current_stream().cuda_stream
    assert ctx.execute_async_v3(stream)
    torch.cuda.synchronize()
    want = reference.spectral_conv(x, w, b, modes_low=[3, 6], modes_high=[2, 0])
    err = np.abs(yd.cpu().numpy() - want).max() / np.abs(want).max()
    assert err < (1e-2 if fp16 else 1e-4), err


def _mlp_reference(x, w1, b1, w2, b2, r, g, hidden_activation, activation):
    """PointwiseMLP in float64 (plugins/include/turbofno/pointwise_mlp.h); activations 0 and 1 only."""
    from math import erf

    gelu = np.vectorize(lambda v: 0.5 * v * (1.0 + erf(v / np.sqrt(2.0))))
    act = {0: lambda v: v, 1: gelu}
    x64 = x.astype(np.float64)
    h = act[hidden_activation](np.einsum("ji,ni...->nj...", w1, x64) + b1.reshape(1, -1, *([1] * (x.ndim - 2))))
    y = np.einsum("oj,nj...->no...", w2, h) + b2.reshape(1, -1, *([1] * (x.ndim - 2)))
    y = y + g.reshape(1, -1, *([1] * (x.ndim - 2))) * r
    return act[activation](y)


@pytest.mark.requires_trt
@pytest.mark.parametrize("fp16", [False, True])
def test_mlp_engine_matches_reference(tmp_path, fp16):
    """A one-node PointwiseMLP model (7 inputs; x and r dynamic, weights as initializers) -> TensorRT
    engine through the ONNX parser -> run -> float64 reference."""
    import tensorrt as tensorrt_mod
    import torch  # only for device buffers
    from onnx import TensorProto, helper, numpy_helper

    rng = seeding.rng(5)
    cin, ch, cout = 3, 16, 4
    w1 = rng.uniform(-0.5, 0.5, (ch, cin)).astype(np.float32)
    b1 = rng.uniform(-0.5, 0.5, (ch,)).astype(np.float32)
    w2 = rng.uniform(-0.5, 0.5, (cout, ch)).astype(np.float32)
    b2 = rng.uniform(-0.5, 0.5, (cout,)).astype(np.float32)
    g = rng.uniform(-1, 1, (cout,)).astype(np.float32)
    x = rng.uniform(-1, 1, (2, cin, 12, 15)).astype(np.float32)
    r = rng.uniform(-1, 1, (2, cout, 12, 15)).astype(np.float32)
    node = helper.make_node("PointwiseMLP", ["x", "w1", "b1", "w2", "b2", "r", "g"], ["y"], domain="ai.turbofno",
                            plugin_version="1", hidden_activation=1, activation=0)
    graph = helper.make_graph(
        [node], "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", cin, 12, 15]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, ["N", cout, 12, 15])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", cout, 12, 15])],
        initializer=[numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (g, "g"))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.turbofno", 2)])
    model.ir_version = 10
    path = tmp_path / "mlp.onnx"
    path.write_bytes(model.SerializeToString())
    plan = trt.build_engine(str(path), fp16=fp16, shapes={"x": ([1, cin, 12, 15], [2, cin, 12, 15], [4, cin, 12, 15]),
                                                          "r": ([1, cout, 12, 15], [2, cout, 12, 15], [4, cout, 12, 15])})
    runtime = tensorrt_mod.Runtime(tensorrt_mod.Logger(tensorrt_mod.Logger.WARNING))
    engine = runtime.deserialize_cuda_engine(plan)
    ctx = engine.create_execution_context()
    ctx.set_input_shape("x", x.shape)
    ctx.set_input_shape("r", r.shape)
    xd, rd = torch.from_numpy(x).cuda(), torch.from_numpy(r).cuda()
    yd = torch.empty((2, cout, 12, 15), device="cuda")
    ctx.set_tensor_address("x", xd.data_ptr())
    ctx.set_tensor_address("r", rd.data_ptr())
    ctx.set_tensor_address("y", yd.data_ptr())
    assert ctx.execute_async_v3(torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    want = _mlp_reference(x, w1, b1, w2, b2, r, g, 1, 0)
    err = np.abs(yd.cpu().numpy() - want).max() / np.abs(want).max()
    assert err < (1e-2 if fp16 else 1e-4), err
