"""turbofno.trt and libturbofno_trt.so: exported symbols, the harness's CPU checks, the CLI without
TensorRT, and (requires_trt) a real engine built from an exported model and compared with the
float64 reference."""
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
