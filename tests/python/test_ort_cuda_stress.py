"""Stress test of the CUDA op's scratch memory (KernelContext_GetScratchBuffer): concurrent Run calls
on several streams must never see a workspace another stream still uses.

- 8 threads x 2 sessions on one device, mixed shapes (each shape needs a different workspace size,
  so the arena keeps handing chunks between streams), every result bitwise equal to the sequential
  run of the same input;
- two sessions, each on its own user CUDA stream (provider option user_compute_stream), run at once.

Marked requires_cuda (skipped with the reason without a GPU / the CUDA EP). TURBOFNO_STRESS_ITERS
(default 40) sets the runs per thread; tests/gpu/run_suite.sh also runs this file under
compute-sanitizer memcheck and racecheck with few iterations.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from test_ort_cuda import cuda_session  # noqa: E402
from turbofno.reference import make_model, random_case  # noqa: E402

pytestmark = pytest.mark.requires_cuda

ITERS = int(os.environ.get("TURBOFNO_STRESS_ITERS", "40"))
LOW, HIGH = [6, 5], [5, 0]
CIN, COUT = 16, 12
# Batch and spatial sizes vary: the workspace grows with N x max(Cin, Cout) x spectrum.
SHAPES = [(1, CIN, 24, 20), (8, CIN, 64, 48), (3, CIN, 40, 33), (16, CIN, 32, 32), (2, CIN, 96, 80), (5, CIN, 17, 11)]


def _model(rng):
    _, w, b = random_case(rng, (24, 20), LOW, HIGH, batch=1, cin=CIN, cout=COUT)
    return make_model(w, b, modes_low=LOW, modes_high=HIGH, x_shape=["N", CIN, "H", "W"])


def _run_threads(jobs):
    """Runs every job (a callable) on its own thread; returns the exceptions raised."""
    errors = []

    def wrap(job):
        try:
            job()
        except Exception as err:  # noqa: BLE001 - reported by the test
            errors.append(err)

    threads = [threading.Thread(target=wrap, args=(j,)) for j in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_eight_threads_two_sessions_mixed_shapes(ort_lib, rng):
    model = _model(rng)
    sessions = [cuda_session(model, ort_lib), cuda_session(model, ort_lib)]
    inputs = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    expected = [sessions[0].run(None, {"x": x})[0] for x in inputs]  # sequential reference
    mismatches = []
    orders = [rng.permutation(np.resize(np.arange(len(inputs)), ITERS)) for _ in range(8)]

    def job(t):
        def run():
            sess = sessions[t % 2]
            for i in orders[t]:
                y = sess.run(None, {"x": inputs[i]})[0]
                if not np.array_equal(y, expected[i]):
                    mismatches.append((t, int(i), float(np.max(np.abs(y - expected[i])))))
        return run

    errors = _run_threads([job(t) for t in range(8)])
    assert not errors, errors
    assert not mismatches, f"{len(mismatches)} results differ from the sequential run, e.g. {mismatches[:5]}"


def _cuda_runtime():
    """ctypes handle on the CUDA runtime (the one onnxruntime-gpu loads), or None."""
    import onnxruntime as ort

    if hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
    names = ["libcudart.so.12", "libcudart.so.13", "libcudart.so", ctypes.util.find_library("cudart")]
    for name in filter(None, names):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def test_two_sessions_on_separate_user_streams(ort_lib, rng):
    cudart = _cuda_runtime()
    if cudart is None:
        pytest.skip("cannot load the CUDA runtime (libcudart) to create user streams")
    streams = []
    for _ in range(2):
        s = ctypes.c_void_p()
        assert cudart.cudaStreamCreateWithFlags(ctypes.byref(s), 1) == 0  # cudaStreamNonBlocking
        streams.append(s)
    try:
        model = _model(rng)
        sessions = [cuda_session(model, ort_lib, user_compute_stream=str(s.value)) for s in streams]
        inputs = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
        expected = [sessions[0].run(None, {"x": x})[0] for x in inputs]
        mismatches = []

        def job(k):
            def run():
                for it in range(ITERS):
                    i = (it * (k + 1)) % len(inputs)
                    y = sessions[k].run(None, {"x": inputs[i]})[0]
                    if not np.array_equal(y, expected[i]):
                        mismatches.append((k, i))
            return run

        errors = _run_threads([job(0), job(1), job(0), job(1)])
        assert not errors, errors
        assert not mismatches, f"{len(mismatches)} results differ from the sequential run, e.g. {mismatches[:5]}"
    finally:
        for s in streams:
            cudart.cudaStreamSynchronize(s)
            cudart.cudaStreamDestroy(s)
