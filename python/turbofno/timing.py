"""Timing what a deployment runs: PyTorch eager / CUDA-graph replay, ONNX Runtime with host feeds,
IOBinding on device buffers, and ORT's own CUDA graph. Shared by `turbofno demo` and
bench/model_bench.py. Every runner returns a zero-argument callable that does one full inference
and waits for it (so wall-clock timing is what a caller waiting for the result sees), plus a way to
read its output for the accuracy checks.
"""
from __future__ import annotations

import time
from typing import Callable


def median_ms(fn: Callable[[], object], *, min_time: float = 1.0, min_reps: int = 5, max_reps: int = 1000,
              warmup: int = 3) -> float:
    """Median milliseconds per fn() call after `warmup` calls; runs for at least min_time seconds."""
    for _ in range(warmup):
        fn()
    times = []
    start = time.perf_counter()
    while len(times) < min_reps or (time.perf_counter() - start < min_time and len(times) < max_reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]


def set_torch_fp32_exact() -> None:
    """TF32 off for PyTorch's CUDA matmuls and cuDNN convolutions (cuDNN's default is on)."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def torch_eager(model, x) -> tuple[Callable[[], None], Callable[[], object]]:
    """(run, output): model(x) under inference_mode, synchronized on CUDA."""
    import torch

    box = {}

    def run():
        with torch.inference_mode():
            box["y"] = model(x)
        if x.is_cuda:
            torch.cuda.synchronize()

    return run, lambda: box["y"].float().cpu().numpy()


def torch_cuda_graph(model, x) -> tuple[Callable[[], None], Callable[[], object]]:
    """(replay, output): model(x) captured once in a CUDA graph (after warm-up on a side stream),
    replayed on the same static input buffer."""
    import torch

    static_x = x.clone()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.no_grad():
        for _ in range(3):
            model(static_x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        static_y = model(static_x)

    def replay():
        graph.replay()
        torch.cuda.synchronize()

    return replay, lambda: static_y.float().cpu().numpy()


def ort_host(session, x) -> tuple[Callable[[], None], Callable[[], object]]:
    """(run, output): session.run with a host numpy feed (copies included; what a CPU deployment does)."""
    name = session.get_inputs()[0].name
    box = {}

    def run():
        box["y"] = session.run(None, {name: x})[0]

    return run, lambda: box["y"]


def ort_iobinding(session, x, out_shape, device_id: int = 0) -> tuple[Callable[[], None], Callable[[], object]]:
    """(run, output): input and output bound to CUDA buffers allocated once (no host copies per run).
    The same call serves a session created with enable_cuda_graph=1: its first run captures the
    graph, later runs replay it on these fixed buffers."""
    import numpy as np
    import onnxruntime as ort

    x_dev = ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(x), "cuda", device_id)
    y_dev = ort.OrtValue.ortvalue_from_shape_and_type(list(out_shape), x.dtype, "cuda", device_id)
    binding = session.io_binding()
    binding.bind_ortvalue_input(session.get_inputs()[0].name, x_dev)
    binding.bind_ortvalue_output(session.get_outputs()[0].name, y_dev)

    def run():
        session.run_with_iobinding(binding)
        binding.synchronize_outputs()

    run._keep = (x_dev, y_dev, binding)  # buffers must outlive the session's captured graph
    return run, y_dev.numpy
