"""GPU benchmark of the fused SpectralConv layer vs PyTorch, one command on the GPU machine:

    python3 bench/gpu_bench.py [--config bench/configs/gpu.json] [--no-compile] [--no-ort] [--out DIR] [--dft fma,tc]

Per shape, in the same run: PyTorch eager, PyTorch CUDA-graph replay, torch.compile (the
neuraloperator-style layer of ../shared/anchors: rfft2 -> two corner einsums -> irfft2), our kernel
called directly (core::launchCuda through tests/gpu/tfno_capi.cpp; per-call and CUDA-graph replay,
hot L2 and with inputs rotated through > 2x L2), our op in an ONNX Runtime CUDA session (IOBinding,
device tensors; needs onnxruntime-gpu and build-gpu/ort_op/libturbofno_ort.so), and the memory floor
(x + y + weights [+ bias] bytes / measured device copy bandwidth); plus fp16 for our kernel.
"ours" columns use the default truncated-DFT path (TURBOFNO_CUDA_DFT or the built-in default); --dft
also measures each listed path (fma: CUDA-core kernels, tc: tensor-core kernels) by graph replay.
Writes gpu_bench.json, gpu_bench.md and gpu_bench.png into --out (default $OUT or bench/results).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
sys.path.insert(0, str(ROOT / "python"))
from tfno import Layer, set_dft  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False


def bench(fn, iters=100, warm=20):
    """Median of per-call CUDA-event times (ms), as the anchor scripts measure."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2]


def copy_bw():
    n = 1 << 30
    a = torch.empty(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    t = bench(lambda: b.copy_(a), iters=20, warm=3)
    del a, b
    return 2 * n / (t * 1e-3)


class TorchSpectral(torch.nn.Module):
    """The anchors' PyTorch layer: keep [:m, :m] and [-m:, :m] of rfft2, einsum, irfft2."""

    def __init__(self, w1, w2, m):
        super().__init__()
        self.w1, self.w2, self.m = w1, w2, m

    def forward(self, x):
        B, C, H, W = x.shape
        xf = torch.fft.rfft2(x)
        out = torch.zeros(B, self.w1.shape[1], H, W // 2 + 1, dtype=xf.dtype, device=x.device)
        m = self.m
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m, :m], self.w1)
        out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, -m:, :m], self.w2)
        return torch.fft.irfft2(out, s=(H, W))


def graph_of(fn, reps=1):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    return g


def ort_session(w, b, m, dtype):
    import onnxruntime as ort
    from turbofno.reference import make_model

    lib = os.environ.get("TURBOFNO_ORT_LIB", str(ROOT / "build-gpu" / "ort_op" / "libturbofno_ort.so"))
    model = make_model(w, b, modes_low=[m, m], modes_high=[m, 0])
    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=[("CUDAExecutionProvider", {"device_id": 0})])
    assert "CUDAExecutionProvider" in sess.get_providers()
    return sess


def run_shape(B, C, H, W, m, cfg, bw, args):
    iters, warm = cfg["iters"], cfg["warmup"]
    torch.manual_seed(0)
    K1, k = 2 * m, m
    r = dict(B=B, C=C, H=H, W=W, modes=m)
    x = torch.randn(B, C, H, W, device="cuda")
    w = torch.randn(C, C, K1, k, 2, device="cuda") / C  # our layout [Cin, Cout, K1, k, 2]
    b = torch.randn(C, device="cuda")
    wc = torch.complex(w[..., 0], w[..., 1])
    w1, w2 = wc[:, :, :m].contiguous(), wc[:, :, m:].contiguous()
    mod = TorchSpectral(w1, w2, m)
    with torch.no_grad():
        # float64 reference (complex128 weights): the error columns say how far each fp32 path is from exact
        mod64 = TorchSpectral(w1.to(torch.complex128), w2.to(torch.complex128), m)
        ref = (mod64(x.double()) + b.double().view(1, C, 1, 1))
        y_t = mod(x) + b.view(1, C, 1, 1)
        r["torch_f32_rel_err_vs_f64"] = float((y_t.double() - ref).norm() / ref.norm())
        del mod64, y_t
        r["torch_eager_ms"] = bench(lambda: mod(x), iters, warm)
        g = graph_of(lambda: mod(x))
        r["torch_graph_ms"] = bench(g.replay, iters, warm)
        del g
        if not args.no_compile:
            try:
                comp = torch.compile(mod, mode=cfg.get("compile_mode", "default"))
                comp(x)
                r["torch_compile_ms"] = bench(lambda: comp(x), iters, warm)
            except Exception as ex:  # report, keep going
                r["torch_compile_ms"] = None
                r["torch_compile_error"] = repr(ex)[:300]
            torch._dynamo.reset()

    # ours, fp32 (and fp16): direct per call, CUDA-graph replay, rotated inputs
    for dt, tag in [(torch.float32, "f32")] + ([(torch.float16, "f16")] if cfg.get("fp16") else []):
        xs, ws_, bs = x.to(dt), w.to(dt), b.to(dt)
        layer = Layer(xs.shape, ws_.shape, True, [m, m], [m, 0], dtype=dt)
        y = torch.full((B, C, H, W), float("nan"), dtype=dt, device="cuda")
        layer(xs, ws_, bs, y)
        torch.cuda.synchronize()
        r[f"ours_{tag}_rel_err_vs_f64"] = float((y.double() - ref).norm() / ref.norm())
        r[f"ours_{tag}_ms"] = bench(lambda: layer(xs, ws_, bs, y), iters, warm)
        g = graph_of(lambda: layer(xs, ws_, bs, y))
        r[f"ours_{tag}_graph_ms"] = bench(g.replay, iters, warm)
        del g
        esz = xs.element_size()
        nbytes = esz * (x.numel() + y.numel() + w.numel() + b.numel())
        r[f"floor_{tag}_ms"] = nbytes / bw * 1e3
        r[f"bytes_{tag}"] = nbytes
        # cold L2: rotate through enough (x, w, y) sets to exceed 2x the 60 MB L2
        sets = max(2, min(16, int(np.ceil(2 * 60e6 / nbytes)) + 1))
        rot = [(xs.clone(), ws_.clone(), torch.empty_like(y)) for _ in range(sets)]
        g = graph_of(lambda: [layer(a, c, bs, o) for a, c, o in rot])
        r[f"ours_{tag}_graph_cold_ms"] = bench(g.replay, max(10, iters // sets), 3) / sets
        del g, rot
        for path in args.dft_paths:  # each truncated-DFT path, CUDA-graph replay
            set_dft(path)
            y.fill_(float("nan"))
            layer(xs, ws_, bs, y)
            torch.cuda.synchronize()
            r[f"ours_{tag}_{path}_rel_err_vs_f64"] = float((y.double() - ref).norm() / ref.norm())
            g = graph_of(lambda: layer(xs, ws_, bs, y))
            r[f"ours_{tag}_{path}_graph_ms"] = bench(g.replay, iters, warm)
            del g
        set_dft("env")
        if not args.no_ort:
            try:
                npdt = np.float32 if dt is torch.float32 else np.float16
                sess = ort_session(ws_.cpu().numpy().astype(npdt), bs.cpu().numpy().astype(npdt), m, dt)
                yo = torch.full_like(y, float("nan"))
                io = sess.io_binding()
                io.bind_input("x", "cuda", 0, npdt, list(xs.shape), xs.data_ptr())
                io.bind_output("y", "cuda", 0, npdt, list(yo.shape), yo.data_ptr())
                sess.run_with_iobinding(io)
                torch.cuda.synchronize()
                r[f"ort_{tag}_rel_err_vs_direct"] = float((yo.float() - y.float()).norm() / y.float().norm())
                r[f"ort_{tag}_ms"] = bench(lambda: sess.run_with_iobinding(io), iters, warm)
            except Exception as ex:
                r[f"ort_{tag}_ms"] = None
                r[f"ort_{tag}_error"] = repr(ex)[:300]
    return r


def fmt(v, p=3):
    return "—" if v is None else f"{v:.{p}f}"


def write_outputs(res, out: Path):
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_bench.json").write_text(json.dumps(res, indent=1))
    lines = [f"# GPU benchmark: fused SpectralConv vs PyTorch ({res['meta']['gpu']}, {res['meta']['date']}, commit {res['meta']['commit']})",
             "",
             f"Copy bandwidth {res['meta']['copy_bw_TBps']:.2f} TB/s. Times: median ms per layer call (CUDA events around each call; "
             "'graph' = CUDA-graph replay; 'cold' = graph replay with inputs/weights rotated through > 2x L2). "
             "Floor = (x + y + weights + bias bytes) / copy bandwidth.",
             "",
             "| B | C | H×W | m | torch eager | torch graph | torch.compile | ours f32 | ours f32 graph | ours f32 cold | ORT op f32 | floor f32 | ours/floor | graph speedup vs torch graph | ours f16 graph | ORT op f16 | floor f16 | f16/floor |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        best32 = r["ours_f32_graph_ms"]
        lines.append(
            f"| {r['B']} | {r['C']} | {r['H']}×{r['W']} | {r['modes']} | {fmt(r['torch_eager_ms'])} | {fmt(r['torch_graph_ms'])} | "
            f"{fmt(r.get('torch_compile_ms'))} | {fmt(r['ours_f32_ms'])} | {fmt(best32)} | {fmt(r['ours_f32_graph_cold_ms'])} | "
            f"{fmt(r.get('ort_f32_ms'))} | {fmt(r['floor_f32_ms'], 4)} | {best32 / r['floor_f32_ms']:.1f}x | "
            f"{r['torch_graph_ms'] / best32:.1f}x | {fmt(r.get('ours_f16_graph_ms'))} | {fmt(r.get('ort_f16_ms'))} | "
            f"{fmt(r.get('floor_f16_ms'), 4)} | {(r['ours_f16_graph_ms'] / r['floor_f16_ms']) if r.get('ours_f16_graph_ms') else float('nan'):.1f}x |")
    paths = res["meta"].get("dft_paths") or []
    if paths:
        lines += ["", "Per truncated-DFT path (CUDA-graph replay, ms; rel-L2 error vs a float64 PyTorch reference in brackets):", "",
                  "| B | C | H×W | m | " + " | ".join(f"{p} f32 | {p} f16" for p in paths) + " | floor f32 |",
                  "|---|---|---|---|" + "---|---|" * len(paths) + "---|"]
        for r in res["rows"]:
            cells = []
            for p in paths:
                for tag in ("f32", "f16"):
                    t, e = r.get(f"ours_{tag}_{p}_graph_ms"), r.get(f"ours_{tag}_{p}_rel_err_vs_f64")
                    cells.append("—" if t is None else f"{t:.3f} [{e:.1e}]")
            lines.append(f"| {r['B']} | {r['C']} | {r['H']}×{r['W']} | {r['modes']} | " + " | ".join(cells) +
                         f" | {fmt(r['floor_f32_ms'], 4)} |")
    lines += ["", "Accuracy (rel-L2 vs the float64 PyTorch layer on the same inputs):", "",
              "| B | C | H×W | m | torch fp32 | ours f32 | ours f16 |", "|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        e = [r.get(k) for k in ("torch_f32_rel_err_vs_f64", "ours_f32_rel_err_vs_f64", "ours_f16_rel_err_vs_f64")]
        lines.append(f"| {r['B']} | {r['C']} | {r['H']}×{r['W']} | {r['modes']} | " +
                     " | ".join("—" if v is None else f"{v:.1e}" for v in e) + " |")
    (out / "gpu_bench.md").write_text("\n".join(lines) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        labels = [f"{r['B']}x{r['C']}x{r['H']}x{r['W']}\nm{r['modes']}" for r in res["rows"]]
        keys = [("torch_eager_ms", "torch eager"), ("torch_graph_ms", "torch graph"), ("torch_compile_ms", "torch.compile"),
                ("ort_f32_ms", "ours ORT op f32"), ("ours_f32_graph_ms", "ours f32 (graph)"),
                ("ours_f16_graph_ms", "ours f16 (graph)"), ("floor_f32_ms", "floor f32")]
        xs = np.arange(len(labels))
        fig, ax = plt.subplots(figsize=(12, 5))
        wdt = 0.12
        for i, (k, name) in enumerate(keys):
            vals = [r.get(k) or np.nan for r in res["rows"]]
            ax.bar(xs + (i - len(keys) / 2) * wdt, vals, wdt, label=name)
        ax.set_yscale("log")
        ax.set_xticks(xs, labels, fontsize=8)
        ax.set_ylabel("ms per layer (log)")
        ax.set_title(f"SpectralConv on {res['meta']['gpu']}")
        ax.legend(fontsize=8, ncol=4)
        fig.tight_layout()
        fig.savefig(out / "gpu_bench.png", dpi=110)
    except Exception as ex:
        print("plot failed:", ex)
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(ROOT / "bench" / "configs" / "gpu.json"))
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--no-ort", action="store_true")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--shapes", type=int, default=0, help="only the first N shapes")
    ap.add_argument("--dft", default="fma,tc", help="truncated-DFT paths to measure besides the default ('' for none)")
    args = ap.parse_args()
    args.dft_paths = [p for p in args.dft.split(",") if p]
    assert all(p in ("fma", "tc") for p in args.dft_paths), "--dft takes fma and/or tc"
    cfg = json.loads(Path(args.config).read_text())
    if not args.no_ort:
        try:
            import onnxruntime as ort
            ort.preload_dlls()
            if "CUDAExecutionProvider" not in ort.get_available_providers():
                print("onnxruntime has no CUDAExecutionProvider: ORT columns skipped")
                args.no_ort = True
        except Exception as ex:
            print("onnxruntime unavailable:", ex)
            args.no_ort = True
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except Exception:
        commit = ""
    commit = os.environ.get("TFNO_COMMIT", commit or "unknown")
    bw = copy_bw()
    meta = dict(gpu=torch.cuda.get_device_name(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit=commit,
                torch=torch.__version__, copy_bw_TBps=bw / 1e12, config=cfg,
                dft_default=os.environ.get("TURBOFNO_CUDA_DFT", "built-in default"), dft_paths=args.dft_paths)
    print(json.dumps(meta), flush=True)
    rows = []
    shapes = cfg["shapes"][: args.shapes] if args.shapes else cfg["shapes"]
    for B, C, H, W, m in shapes:
        r = run_shape(B, C, H, W, m, cfg, bw, args)
        rows.append(r)
        print(json.dumps(r), flush=True)
    write_outputs(dict(meta=meta, rows=rows), Path(args.out))


if __name__ == "__main__":
    main()
