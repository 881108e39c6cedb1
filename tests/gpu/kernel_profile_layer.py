"""GPU kernels of one SpectralConv layer call, ours vs PyTorch (GPU machine, no ORT needed):

    python3 tests/gpu/kernel_profile_layer.py [--config bench/configs/gpu_session.json] [--dtype f32]

For each shape of the benchmark config: our layer (planner's choice, tests/gpu/tfno.py) and the
PyTorch layer of bench/gpu_bench.py each run under torch.profiler (CUPTI); prints per side the summed
kernel time per call and the kernels grouped by name, plus the memory floor of the whole layer, so the
kernel that bounds each shape can be read off. TF32 off.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
from cuda_kernel_times import kernel_times  # noqa: E402
from tfno import Layer, set_path, set_tuning  # noqa: E402

RUNS = 10
BW = 4.11e12


def kernels(fn):
    """{kernel name: (count, total us)} per call of fn, from RUNS profiled calls."""
    return kernel_times(fn, RUNS, 110, "turbofno::cuda::")


def torch_layer(x, w_blocks, S, m):
    d = len(S)
    dims = tuple(range(-d, 0))
    X = torch.fft.rfftn(x, dim=dims)
    Y = torch.zeros(x.shape[0], w_blocks.shape[1], *X.shape[2:], dtype=X.dtype, device=x.device)
    # corner blocks on the leading axes, first m bins on the last axis
    import itertools
    for corner in itertools.product((0, 1), repeat=d - 1):
        sl = tuple(slice(0, m) if c == 0 else slice(S[i] - m, S[i]) for i, c in enumerate(corner)) + (slice(0, m),)
        wsl = tuple(slice(0, m) if c == 0 else slice(m, 2 * m) for c in corner) + (slice(0, m),)
        Y[(slice(None), slice(None)) + sl] = torch.einsum("bi...,io...->bo...", X[(slice(None), slice(None)) + sl],
                                                          w_blocks[(slice(None), slice(None)) + wsl])
    return torch.fft.irfftn(Y, s=S, dim=dims)


def report(label, ks):
    n = sum(c for c, _ in ks.values())
    t = sum(us for _, us in ks.values())
    print(f"  {label}: {n:.0f} kernels, {t:.1f} us of kernel time per call")
    for name, (c, us) in sorted(ks.items(), key=lambda kv: -kv[1][1])[:10]:
        print(f"    {us:8.1f} us  x{c:4.1f}  {name}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(ROOT / "bench" / "configs" / "gpu_session.json"))
    ap.add_argument("--dtype", default="f32")
    ap.add_argument("--only", default="", help="comma-separated shape indices")
    ap.add_argument("--path", default="auto", help="auto | fused | separable (tests/gpu/tfno.py set_path)")
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch side")
    ap.add_argument("--fft-direct", type=int, default=-1, help="row FFTs' direct first / last stage: -1 planner, 0, 1")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[a.dtype]
    shapes = json.loads(Path(a.config).read_text())["shapes"]
    set_path(a.path)
    set_tuning(fft_direct=a.fft_direct)
    only = {int(v) for v in a.only.split(",") if v}
    for idx, sh in enumerate(shapes):
        if only and idx not in only:
            continue
        B, C, S, m = sh["B"], sh["C"], sh["S"], sh["m"]
        d = len(S)
        K = [2 * m] * (d - 1) + [m]
        x = torch.randn(B, C, *S, device="cuda", dtype=dt)
        w = (torch.randn(C, C, *K, 2, device="cuda") / C).to(dt)
        b = torch.randn(C, device="cuda", dtype=dt)
        y = torch.empty_like(x)
        layer = Layer(x.shape, w.shape, True, [m] * d, [m] * (d - 1) + [0], dtype=dt)
        nbytes = (2 * x.numel() + w.numel() + C) * x.element_size()
        print(f"== {B}x{C}x{'x'.join(map(str, S))} m{m} {a.dtype} ({a.path}, fft_direct {a.fft_direct}): floor {nbytes / BW * 1e6:.1f} us", flush=True)
        report("ours", kernels(lambda: layer(x, w, b, y)))
        if dt == torch.float32 and not a.no_torch:
            wc = torch.view_as_complex(w.contiguous())
            report("PyTorch", kernels(lambda: torch_layer(x, wc, S, m)))
        del layer
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
