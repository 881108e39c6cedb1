"""Times the fused layer's skip GEMM with tensor cores (3xTF32, skip_gemm_tc.cuh; its 32- and 128-point
tiles forced) and with the fp32 FMA kernel (skip_gemm.cuh), GPU machine:

    python3 tests/gpu/skip_tc_bench.py [--iters 50]

For each shape: the whole fused layer (skip weight, bias, GELU) as a CUDA graph of 10 back-to-back
calls (ms per call, median), the skip kernel alone (torch.profiler, mean over the timed calls), and
cuDNN's fp32 1x1 convolution (TF32 off) of the same x and skip weight, which the unfused ORT chain
runs; and the whole layer with the skip GEMM and a radix-2 R2C as two launches and as one grid
(skip_r2c_colaunch.cuh; the 1D shapes, elsewhere both columns time the same launches); and the whole layer
without and with the plane kernels (fft_plane.cuh; the 2D shapes on their planes, which then lose the co-launch).
Output NaN-poisoned and checked finite first.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))
from gpu_bench import bench, graph_bench  # noqa: E402
from tfno import Layer, set_path, set_tuning  # noqa: E402

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
# (batch, channels, spatial, modes): the two large 2D benchmark shapes, then the bundled models' layers
# (burgers b32 / b1, darcy b32 / b1), where the 32-point tile runs
SHAPES = [(8, 64, (128, 128), 32), (4, 64, (256, 256), 64), (32, 64, (256,), 17), (1, 64, (256,), 17),
          (32, 32, (64, 64), 12), (1, 32, (64, 64), 12), (1, 32, (64, 64), 6), (4, 32, (64, 64), 6), (1, 8, (48, 48), 12)]
GELU = 1


def skip_kernel_ms(fn, iters):
    """Mean device time of the skipGemm* kernels per call of fn (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    us = [getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
          for e in prof.key_averages() if "skipGemm" in e.key]
    return sum(us) / iters / 1e3 if us else float("nan")  # nan: the profiler saw no skip kernel


def timed_run(call, y, ref, iters, path="auto", **tuning):
    """The fused layer on `path` with these tuning switches (tfno.set_tuning): its CUDA-graph ms, the rel-L2 of its
    output y (NaN-poisoned first) against ref, and whether every output was written."""
    set_path(path)
    set_tuning(**tuning)
    y.fill_(float("nan"))
    call()
    torch.cuda.synchronize()
    finite = bool(torch.isfinite(y).all())
    return graph_bench(call, 10, iters, 10), float((y - ref).norm() / ref.norm()), finite


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=50)
    args = ap.parse_args()
    print(f"device {torch.cuda.get_device_name()}", flush=True)
    set_path("auto")
    ok = True
    for n, c, spatial, m in SHAPES:
        d = len(spatial)
        low, high = [m] * d, [m] * (d - 1) + [0]
        kept = [2 * m] * (d - 1) + [m]
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(n, c, *spatial, device="cuda", generator=g)
        w = torch.randn(c, c, *kept, 2, device="cuda", generator=g) / c
        b = torch.randn(c, device="cuda", generator=g)
        s = torch.randn(c, c, device="cuda", generator=g) / c ** 0.5
        y = torch.empty_like(x)
        layer = Layer(x.shape, w.shape, True, low, high, has_skip=True, activation=GELU)
        call = lambda: layer(x, w, b, y, skip=s)  # noqa: E731
        res = {}
        for tc in (0, 2, 3):  # FMA, tensor cores with the 32- and with the 128-point tile
            set_tuning(skip_tc=tc)
            y.fill_(float("nan"))
            call()
            torch.cuda.synchronize()
            finite = bool(torch.isfinite(y).all())
            ok &= finite
            res[tc] = (graph_bench(call, 10, args.iters, 10), skip_kernel_ms(call, args.iters), y.clone(), finite)
        fma = res[0][2]
        # the skip GEMM and a radix-2 R2C as two launches / one grid (skip_r2c_colaunch.cuh; 1D layers)
        colaunch = {co: timed_run(call, y, fma, args.iters, skip_colaunch=co) for co in (0, 1)}
        # the plane kernels off / on (fft_plane.cuh; on the separable algorithm)
        plane = {pl: timed_run(call, y, fma, args.iters, "separable", fft_plane=pl) for pl in (0, 1)}
        ok &= all(r[2] for r in (*colaunch.values(), *plane.values()))
        set_path("auto")
        set_tuning()
        conv = bench(lambda: torch.nn.functional.conv2d(x, s[:, :, None, None]), args.iters, 10) if d == 2 else float("nan")
        diff = max(float((res[tc][2] - res[0][2]).norm() / res[0][2].norm()) for tc in (2, 3))
        name = f"{n}x{c}x{'x'.join(map(str, spatial))} m{m}"
        auto = "tc32" if res[2][0] <= res[3][0] else "tc128"
        print(f"{name:24s} layer ms: fma {res[0][0]:.4f} tc32 {res[2][0]:.4f} tc128 {res[3][0]:.4f} | "
              f"skip kernel ms: fma {res[0][1]:.4f} tc32 {res[2][1]:.4f} tc128 {res[3][1]:.4f} (faster tile: {auto}) | "
              f"cuDNN fp32 1x1 conv ms {conv:.4f} | rel-L2 tc vs fma {diff:.1e} finite {res[0][3]} {res[2][3]} {res[3][3]} | "
              f"co-launch layer ms: off {colaunch[0][0]:.4f} on {colaunch[1][0]:.4f} (rel-L2 vs fma {colaunch[1][1]:.1e}) | "
              f"separable, plane kernels off {plane[0][0]:.4f} on {plane[1][0]:.4f} (rel-L2 vs fma {plane[1][1]:.1e})", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
