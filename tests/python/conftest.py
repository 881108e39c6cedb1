"""Shared pytest setup: markers requires_cuda / requires_trt (skipped with a visible reason), the
`ort_lib` fixture (the op library path; a missing library is an error, never a skip), and the random
seed (seeding.py): fixtures `test_seed` / `rng`, printed in the report of every failed test."""
from __future__ import annotations

import functools
import importlib.util
import zlib

import pytest

import seeding


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_cuda: needs a CUDA GPU, onnxruntime's CUDA provider and CUDA ops in the library")
    config.addinivalue_line("markers", "requires_trt: needs TensorRT (python module and libturbofno_trt.so) and a GPU")


@functools.lru_cache(maxsize=None)
def gpu_skip_reason() -> str | None:
    import shutil
    import subprocess

    smi = shutil.which("nvidia-smi")
    if not smi or subprocess.run([smi, "-L"], capture_output=True).returncode != 0:
        return "no NVIDIA GPU visible (nvidia-smi -L failed)"
    return None


@functools.lru_cache(maxsize=None)
def cuda_skip_reason() -> str | None:
    try:
        import onnxruntime as ort
    except ImportError:
        return "onnxruntime is not installed"
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        return "onnxruntime has no CUDAExecutionProvider (install onnxruntime-gpu)"
    import turbofno
    from turbofno._info import build_info

    try:
        info = build_info(turbofno.get_library_path("ort")) or {}
    except FileNotFoundError as err:
        return str(err)
    if not info.get("ort_cuda_ops"):
        return "libturbofno_ort was built without CUDA ops"
    return gpu_skip_reason()


@functools.lru_cache(maxsize=None)
def trt_skip_reason() -> str | None:
    if importlib.util.find_spec("tensorrt") is None:
        return "the tensorrt Python package is not installed"
    import turbofno

    try:
        turbofno.get_library_path("trt")
    except FileNotFoundError as err:
        return str(err)
    return gpu_skip_reason()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "requires_cuda" in item.keywords and cuda_skip_reason():
            item.add_marker(pytest.mark.skip(reason=f"requires_cuda: {cuda_skip_reason()}"))
        if "requires_trt" in item.keywords and trt_skip_reason():
            item.add_marker(pytest.mark.skip(reason=f"requires_trt: {trt_skip_reason()}"))


@pytest.fixture(scope="session")
def ort_lib() -> str:
    """Path of libturbofno_ort.so (set TURBOFNO_LIB_DIR to test a build folder)."""
    import turbofno

    return turbofno.get_library_path("ort")


@pytest.fixture(scope="session")
def test_seed() -> int:
    """The run's seed (TURBOFNO_TEST_SEED; see seeding.py)."""
    return seeding.SEED


@pytest.fixture
def rng(request):
    """A NumPy generator from the run's seed, on a stream of its own per test (by test id)."""
    return seeding.rng(zlib.crc32(request.node.nodeid.encode()))


def pytest_report_header(config):
    return f"TURBOFNO_TEST_SEED={seeding.SEED}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.sections.append(("seed", f"reproduce with TURBOFNO_TEST_SEED={seeding.SEED} "
                                        f"pytest '{item.nodeid}'"))
