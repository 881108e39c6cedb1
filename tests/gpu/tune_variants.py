"""Compare the kernel's algorithms and tuning switches at the benchmark shapes (GPU machine, one call):

    python3 tests/gpu/tune_variants.py [--set planner|col3d|tc|pdl_ring|ring|mix_flat|mix_flat_geom|mix_c2r|split|fft|fft_algo|fft_long|plane] [--config bench/configs/gpu.json] [--reps 10] [--out DIR]

For every fp32 shape: PyTorch CUDA-graph replay and our layer in each variant of the set, as CUDA
graphs of --reps back-to-back layer calls (time / reps: launch overhead amortised as inside a model)
and of one call; rel-L2 of every variant against a float64 layer, output poisoned with NaN first.
Sets: `planner` = the planner's choice only (to compare builds: TFNO_CAPI=<build>/libtfno_capi.so); `tc` = the fused plane, the separable passes on fp32 FMA and on 3xTF32 tensor cores (the
planner's choice of algorithm and pass units); `pdl_ring` = programmatic dependent launch x the
mixing weight ring; `ring` = the tiled mixing kernel without and with its weight ring, and the planner
(bench/configs/gpu_tune_ring.json); `mix_flat` = the tiled vs the flat mixing kernel (mixing_flat.cuh) and the
planner; `fft` = the separable algorithm (forced) with the DFT-as-GEMM last-axis passes vs the FFT
passes (fft_pass.cuh: last axes of 8..8192 points that are powers of two or
2 * 2^a 3^b 5^c; other shapes time the same kernels twice), and the planner; `fft_algo` = the fused
plane vs the separable algorithm with FFT passes, and the planner (bench/configs/gpu_model_layers.json
has the models' layer shapes, gpu_tune_fft_mixed.json mixed-radix ones); `fft_long` = 1D layers with the
DFT-as-GEMM passes, the row FFTs / DFT passes without the four-step long-axis FFT, the four-step FFT
(fft_pass_long.cuh) forced, and the planner (bench/configs/gpu_tune_1d_long.json); `mix_flat_geom` = the flat
mixing kernel at forced (batch items per thread, warps along o * Kall + m) and the planner; `mix_c2r` = the mixing
kernel vs the mixing inside a radix-2 C2R (mixing_c2r.cuh), and the planner (bench/configs/gpu_tune_mix_c2r.json); `col3d` = 3D
layers' leading axes on the DFT passes vs the column FFTs, and the planner (bench/configs/gpu_tune_3d.json); `plane` = small
2D layers on the fused plane, on the separable algorithm with one kernel per pass and with the plane kernels
(fft_plane.cuh) in 256- and 1024-thread blocks, and the planner (bench/configs/gpu_tune_plane.json). Writes tune_variants.json / .md into --out.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))
from gpu_bench import bench, graph_bench, graph_of, make_case, rel  # noqa: E402
from tfno import Layer, set_path, set_tuning  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
# name -> (tfno.PATHS path, pdl, ring, flat mixing); -1 = the planner's choice
SETS = {
    # the planner's choice alone: to compare two builds (TFNO_CAPI=<build>/libtfno_capi.so per run)
    "planner": {"planner": ("auto", -1, -1, -1)},
    "pdl_ring": {f"pdl{p} ring{q}": ("auto", p, q, -1) for p in (0, 1) for q in (0, 1)},
    # the tiled mixing kernel's weight ring off / on (mixing.cuh), and the planner
    "ring": {"no ring": ("auto", -1, 0, -1), "ring": ("auto", -1, 1, -1), "planner": ("auto", -1, -1, -1)},
    "tc": {"fused plane": ("fused", -1, -1, -1), "separable fma": ("separable-fma", -1, -1, -1),
           "separable tc": ("separable-tc", -1, -1, -1), "planner": ("auto", -1, -1, -1)},
    "mix_flat": {"tiled mixing": ("auto", -1, -1, 0), "flat mixing": ("auto", -1, -1, 1),
                 "planner": ("auto", -1, -1, -1)},
    # (path, pdl, ring, flat, split steps): the separable forward's k split at >= 4 / 2 / 1 steps per split
    "split": {f"split >= {s} steps": ("auto", -1, -1, -1, s) for s in (4, 2, 1)},
    # (path, pdl, ring, flat, split steps, fft passes)
    "fft_algo": {"fused plane": ("fused", -1, -1, -1, -1, -1), "separable fft": ("separable", -1, -1, -1, -1, 1),
                 "planner": ("auto", -1, -1, -1, -1, -1)},
    "fft": {"separable dft": ("separable", -1, -1, -1, -1, 0), "separable fft": ("separable", -1, -1, -1, -1, 1),
            "planner": ("auto", -1, -1, -1, -1, -1)},
    # (path, pdl, ring, flat, split steps, fft passes, four-step long axis)
    # (path, pdl, ring, flat, split steps, fft passes, four-step, (flat mixing batch per thread, warps along om))
    "mix_flat_geom": {f"flat nb{nb} w{w}": ("auto", -1, -1, 1, -1, -1, -1, (nb, w))
                      for nb, w in ((1, 4), (1, 2), (1, 1), (2, 2), (2, 1), (4, 1), (8, 1))} | {
                      "planner": ("auto", -1, -1, -1, -1, -1, -1, (0, 0))},
    "fft_long": {"separable dft": ("separable", -1, -1, -1, -1, 0, 0), "no four-step": ("separable", -1, -1, -1, -1, -1, 0),
                 "four-step": ("separable", -1, -1, -1, -1, -1, 1), "planner": ("auto", -1, -1, -1, -1, -1, -1)},
    # (..., flat mixing geometry, the mixing inside a radix-2 C2R)
    "mix_c2r": {"mixing kernel": ("auto", -1, -1, -1, -1, -1, -1, (0, 0), 0),
                "mixing in C2R": ("auto", -1, -1, -1, -1, -1, -1, (0, 0), 1),
                "planner": ("auto", -1, -1, -1, -1, -1, -1, (0, 0), -1)},
    # (..., the mixing inside a radix-2 C2R, column FFTs on 3D leading axes)
    "col3d": {"3d dft passes": ("separable", -1, -1, -1, -1, -1, -1, (0, 0), -1, 0),
              "3d column ffts": ("separable", -1, -1, -1, -1, -1, -1, (0, 0), -1, 1),
              "planner": ("auto", -1, -1, -1, -1, -1, -1, (0, 0), -1, -1)},
    # (..., column FFTs on 3D leading axes, the plane kernels): small 2D layers on the fused plane, on the separable
    # algorithm with one kernel per pass and with the plane kernels (fft_plane.cuh), and the planner
    "plane": {"fused plane": ("fused", -1, -1, -1, -1, -1, -1, (0, 0), -1, -1, -1),
              "separable passes": ("separable", -1, -1, -1, -1, -1, -1, (0, 0), -1, -1, 0),
              "separable plane 256": ("separable", -1, -1, -1, -1, -1, -1, (0, 0), -1, -1, 256),
              "separable plane 1024": ("separable", -1, -1, -1, -1, -1, -1, (0, 0), -1, -1, 1024),
              "planner": ("auto", -1, -1, -1, -1, -1, -1, (0, 0), -1, -1, -1)},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=sorted(SETS), default="tc")
    ap.add_argument("--config", default=str(ROOT / "bench" / "configs" / "gpu.json"))
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    cfg = json.loads(Path(args.config).read_text())
    iters, warm, R = 50, 10, args.reps
    variants = SETS[args.set]
    rows = []
    for spec in cfg["shapes"]:
        c = make_case(spec)
        x, w, b = c.x, c.w, c.b
        with torch.no_grad():
            r = dict(shape=c.label, torch_graph_ms=graph_bench(c.torch_fn, R, iters, warm))
        layer = Layer(x.shape, w.shape, True, c.low, c.high)
        y = torch.empty_like(x)
        for tag, (path, pdl, ring, flat, *extra) in variants.items():
            set_path(path)
            set_tuning(pdl, ring, mix_flat=flat, split_steps=extra[0] if extra else -1,
                       fft_pass=extra[1] if len(extra) > 1 else -1, fft_long=extra[2] if len(extra) > 2 else -1,
                       mix_flat_geometry=extra[3] if len(extra) > 3 else (0, 0), mix_c2r=extra[4] if len(extra) > 4 else -1,
                       fft_col3d=extra[5] if len(extra) > 5 else -1, fft_plane=extra[6] if len(extra) > 6 else -1)
            y.fill_(float("nan"))
            layer(x, w, b, y)
            torch.cuda.synchronize()
            r[f"{tag}_err"] = rel(y, c.ref)
            r[f"{tag}_ms"] = graph_bench(lambda: layer(x, w, b, y), R, iters, warm)
            g = graph_of(lambda: layer(x, w, b, y))
            r[f"{tag}_1call_ms"] = bench(g.replay, iters, warm)
            del g
        set_path("auto")
        set_tuning()
        rows.append(r)
        print(json.dumps(r), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tune_variants.json").write_text(json.dumps(rows, indent=1))
    head = "| shape | torch graph | " + " | ".join(variants) + " | best vs torch | max err |"
    lines = [f"Per-layer ms, CUDA graph of {R} back-to-back calls (/ {R}); 1-call graph in parentheses.", "", head,
             "|" + "---|" * (len(variants) + 4)]
    for r in rows:
        cells = [f"{r[f'{t}_ms']:.4f} ({r[f'{t}_1call_ms']:.4f})" for t in variants]
        best = min(r[f"{t}_ms"] for t in variants)
        err = max(r[f"{t}_err"] for t in variants)
        lines.append(f"| {r['shape']} | {r['torch_graph_ms']:.4f} | " + " | ".join(cells) +
                     f" | {r['torch_graph_ms'] / best:.2f}× | {err:.1e} |")
    (out / "tune_variants.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
