"""GPU benchmark of the SpectralConv layer against PyTorch, one command on the GPU machine:

    python3 bench/gpu_bench.py [--config bench/configs/gpu.json] [--no-compile] [--no-ort] [--out DIR]
                               [--paths fused,separable] [--shapes N]

Per shape (d = 1, 2, 3; bench/configs/gpu.json), in the same run: PyTorch eager, PyTorch CUDA-graph
replay and torch.compile of the neuraloperator-style layer (rfftn -> one einsum per corner block ->
irfftn), our kernel called directly (core::launchCuda through tests/gpu/tfno_capi.cpp) as CUDA-graph
replay with the planner's choice and with each forced algorithm (--paths), fp16 / bf16 for the
low-precision rows, our op in an ONNX Runtime CUDA session (IOBinding, with and without ORT's CUDA
graph; needs onnxruntime-gpu and build-gpu/ort_op/libturbofno_ort.so), the memory floor (x + y +
weights + bias bytes / measured device copy bandwidth), and rel-L2 errors against a float64 PyTorch
layer on the same inputs. TF32 is off for PyTorch. Writes gpu_bench.json, .md and .png into --out.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
sys.path.insert(0, str(ROOT / "python"))
from tfno import PATHS, Layer, set_path  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def bench(fn, iters=100, warm=20):
    """Median of per-call CUDA-event times (ms)."""
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


def graph_of(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g


def graph_bench(fn, reps, iters, warm):
    """ms per call of fn, timed as CUDA-graph replay of `reps` back-to-back calls (/ reps), the way
    layers run inside a captured model (the graph's own launch cost is shared by the calls)."""
    g = graph_of(lambda: [fn() for _ in range(reps)])
    t = bench(g.replay, iters, warm) / reps
    del g
    return t


def corner_slices(S, m):
    """Per leading axis the low block [:m] and the high block [-m:]; the last axis keeps [:m]."""
    lead = [[slice(0, m), slice(s - m, s)] for s in S[:-1]]
    return [tuple(c) + (slice(0, m),) for c in itertools.product(*lead)] if lead else [(slice(0, m),)]


class TorchSpectral(torch.nn.Module):
    """The neuraloperator-style layer: rfftn, one einsum per corner block of kept modes, irfftn."""

    def __init__(self, wc, S, m):  # wc: complex [Cin, Cout, K_1.., k] in our kept-mode order
        super().__init__()
        self.S, self.m, self.d = tuple(S), m, len(S)
        self.blocks = []
        for corner in itertools.product(*[[0, 1]] * (self.d - 1)):
            idx = tuple(slice(0, m) if c == 0 else slice(m, 2 * m) for c in corner) + (slice(0, m),)
            self.blocks.append(wc[(slice(None), slice(None)) + idx].contiguous())
        letters = "xyz"[: self.d]
        self.eq = f"bi{letters},io{letters}->bo{letters}"

    def forward(self, x):
        dims = tuple(range(2, 2 + self.d))
        xf = torch.fft.rfftn(x, dim=dims)
        out = torch.zeros(x.shape[0], self.blocks[0].shape[1], *self.S[:-1], self.S[-1] // 2 + 1, dtype=xf.dtype, device=x.device)
        for sl, w in zip(corner_slices(self.S, self.m), self.blocks):
            idx = (slice(None), slice(None)) + sl
            out[idx] = torch.einsum(self.eq, xf[idx], w)
        return torch.fft.irfftn(out, s=self.S, dim=dims)


def ort_session(w, b, low, high, npdt, cuda_graph):
    import onnxruntime as ort
    from turbofno.reference import make_model

    lib = os.environ.get("TURBOFNO_ORT_LIB", str(ROOT / "build-gpu" / "ort_op" / "libturbofno_ort.so"))
    model = make_model(w.astype(npdt), b.astype(npdt), modes_low=low, modes_high=high)
    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.log_severity_level = 3
    prov = {"device_id": 0, "use_tf32": 0}
    if cuda_graph:
        prov["enable_cuda_graph"] = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=[("CUDAExecutionProvider", prov)])
    assert "CUDAExecutionProvider" in sess.get_providers()
    return sess


def rel(a, ref):
    return float((a.double() - ref).norm() / ref.norm())


def make_case(spec):
    """One config shape on the GPU (seed 0): inputs x, w (re/im last), b; our attributes low / high; the
    PyTorch fp32 layer with the bias added (torch_fn, as our layer adds it) and its float64 result ref."""
    B, C, S, m = spec["B"], spec["C"], list(spec["S"]), spec["m"]
    d = len(S)
    K = [2 * m] * (d - 1) + [m]
    torch.manual_seed(0)
    x = torch.randn(B, C, *S, device="cuda")
    w = torch.randn(C, C, *K, 2, device="cuda") / C
    b = torch.randn(C, device="cuda")
    wc = torch.complex(w[..., 0], w[..., 1])
    bshape = (1, C) + (1,) * d
    mod = TorchSpectral(wc, S, m)
    with torch.no_grad():
        ref = TorchSpectral(wc.to(torch.complex128), S, m)(x.double()) + b.double().view(bshape)
    return SimpleNamespace(B=B, C=C, S=S, m=m, d=d, x=x, w=w, b=b, ref=ref, low=[m] * d, high=[m] * (d - 1) + [0],
                           torch_fn=lambda: mod(x) + b.view(bshape), label=f"{B}×{C}×{'×'.join(map(str, S))} m{m}")


def run_shape(spec, cfg, bw, args):
    c = make_case(spec)
    B, C, S, m, x, w, b, ref, low, high = c.B, c.C, c.S, c.m, c.x, c.w, c.b, c.ref, c.low, c.high
    iters, warm = cfg["iters"], cfg["warmup"]
    r = dict(B=B, C=C, S=S, modes=m, shape=c.label)
    with torch.no_grad():
        r["torch_f32_err"] = rel(c.torch_fn(), ref)
        fn = c.torch_fn
        r["torch_eager_ms"] = bench(fn, iters, warm)
        r["torch_graph_ms"] = graph_bench(fn, args.reps, iters, warm)
        if not args.no_compile:
            try:
                comp = torch.compile(fn, mode=cfg.get("compile_mode", "default"))
                comp()
                r["torch_compile_ms"] = bench(comp, iters, warm)
            except Exception as ex:  # report, keep going
                r["torch_compile_error"] = repr(ex)[:300]
            torch._dynamo.reset()

    nbytes32 = 4 * (x.numel() * 2 + w.numel() + b.numel())
    r["floor_f32_ms"] = nbytes32 / bw * 1e3
    dtypes = [(torch.float32, "f32")]
    if spec.get("low_precision"):
        dtypes += [(torch.float16, "f16"), (torch.bfloat16, "bf16")]
    for dt, tag in dtypes:
        xs, ws_, bs = x.to(dt), w.to(dt), b.to(dt)
        layer = Layer(xs.shape, ws_.shape, True, low, high, dtype=dt)
        y = torch.empty(B, C, *S, dtype=dt, device="cuda")
        for path in ["auto"] + (args.paths if tag == "f32" else []):
            set_path(path)
            y.fill_(float("nan"))
            layer(xs, ws_, bs, y)
            torch.cuda.synchronize()
            r[f"ours_{tag}_{path}_err"] = rel(y, ref)
            r[f"ours_{tag}_{path}_ms"] = graph_bench(lambda: layer(xs, ws_, bs, y), args.reps, iters, warm)
        set_path("auto")
        if tag != "f32":
            r[f"floor_{tag}_ms"] = nbytes32 / 2 / bw * 1e3
        if not args.no_ort and dt is not torch.bfloat16:
            npdt = np.float32 if dt is torch.float32 else np.float16
            for cg in (False, True):
                key = f"ort_{tag}{'_cg' if cg else ''}"
                try:
                    sess = ort_session(w.cpu().numpy(), b.cpu().numpy(), low, high, npdt, cg)
                    yo = torch.full_like(y, float("nan"))
                    io = sess.io_binding()
                    io.bind_input("x", "cuda", 0, npdt, list(xs.shape), xs.data_ptr())
                    io.bind_output("y", "cuda", 0, npdt, list(yo.shape), yo.data_ptr())
                    sess.run_with_iobinding(io)  # (ORT CUDA graph: the first run captures)
                    sess.run_with_iobinding(io)
                    torch.cuda.synchronize()
                    r[f"{key}_err"] = rel(yo, ref)
                    r[f"{key}_ms"] = bench(lambda: sess.run_with_iobinding(io), iters, warm)
                    del sess, io
                except Exception as ex:
                    r[f"{key}_error"] = repr(ex)[:300]
    return r


def fmt(v, p=3):
    return "—" if v is None else f"{v:.{p}f}"


def write_outputs(res, out: Path):
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_bench.json").write_text(json.dumps(res, indent=1))
    meta, rows = res["meta"], res["rows"]
    paths = meta["paths"]
    lines = [f"# SpectralConv layer on {meta['gpu']}: ours vs PyTorch ({meta['date']}, commit {meta['commit']})", "",
             f"Median ms per layer call (CUDA events). 'graph' = CUDA-graph replay of {meta.get('reps', 1)} back-to-back "
             f"calls / {meta.get('reps', 1)} (as layers run inside a captured model), for PyTorch and ours alike. "
             f"Ours direct = core::launchCuda in such a graph ('auto' = the planner's choice). ORT = our op in an ONNX Runtime CUDA session "
             f"with IOBinding (cg = ORT's CUDA graph). Floor = (x + y + weights + bias bytes) / {meta['copy_bw_TBps']:.2f} TB/s "
             f"(measured copy bandwidth). TF32 off. Speed-up = PyTorch graph / ours.", "",
             "| shape | torch eager | torch graph | torch.compile | ours f32 (auto) |" + "".join(f" ours {p} |" for p in paths) +
             " ORT f32 | ORT f32 cg | floor f32 | ours/floor | speed-up vs torch graph | ORT cg vs torch graph |",
             "|---|---|---|---|---|" + "---|" * len(paths) + "---|---|---|---|---|---|"]
    speed, speed_ort = [], []
    for r in rows:
        ours = r["ours_f32_auto_ms"]
        sp = r["torch_graph_ms"] / ours
        speed.append(sp)
        so = r["torch_graph_ms"] / r["ort_f32_cg_ms"] if r.get("ort_f32_cg_ms") else None
        if so:
            speed_ort.append(so)
        lines.append(f"| {r['shape']} | {fmt(r['torch_eager_ms'])} | {fmt(r['torch_graph_ms'])} | {fmt(r.get('torch_compile_ms'))} | "
                     f"{fmt(ours)} |" + "".join(f" {fmt(r.get(f'ours_f32_{p}_ms'))} |" for p in paths) +
                     f" {fmt(r.get('ort_f32_ms'))} | {fmt(r.get('ort_f32_cg_ms'))} | {fmt(r['floor_f32_ms'], 4)} | "
                     f"{ours / r['floor_f32_ms']:.1f}× | {sp:.2f}× | {'—' if so is None else f'{so:.2f}×'} |")
    gm = math.exp(sum(map(math.log, speed)) / len(speed))
    lines += ["", f"Geometric mean speed-up of ours (direct, graph) over PyTorch CUDA-graph replay: **{gm:.2f}×** "
              f"(min {min(speed):.2f}×, max {max(speed):.2f}×)."]
    if speed_ort:
        gmo = math.exp(sum(map(math.log, speed_ort)) / len(speed_ort))
        lines.append(f"Our op in ORT with CUDA graph over PyTorch CUDA-graph replay: geometric mean **{gmo:.2f}×** "
                     f"(min {min(speed_ort):.2f}×, max {max(speed_ort):.2f}×, {len(speed_ort)} shapes).")
    lp = [r for r in rows if r.get("ours_f16_auto_ms")]
    if lp:
        lines += ["", "Low precision (ours direct, graph, ms; speed-up over our own fp32):", "",
                  "| shape | f32 | f16 | bf16 | f16 vs f32 | bf16 vs f32 | ORT f16 cg | floor f16 |", "|---|---|---|---|---|---|---|---|"]
        for r in lp:
            f32, f16, bf = r["ours_f32_auto_ms"], r["ours_f16_auto_ms"], r.get("ours_bf16_auto_ms")
            lines.append(f"| {r['shape']} | {fmt(f32)} | {fmt(f16)} | {fmt(bf)} | {f32 / f16:.2f}× | "
                         f"{'—' if not bf else f'{f32 / bf:.2f}×'} | {fmt(r.get('ort_f16_cg_ms'))} | {fmt(r.get('floor_f16_ms'), 4)} |")
    lines += ["", "Accuracy (rel-L2 against a float64 PyTorch layer on the same inputs):", "",
              "| shape | torch fp32 | ours f32 |" + "".join(f" ours {p} |" for p in paths) + " ours f16 | ours bf16 | ORT f32 cg |",
              "|---|---|---|" + "---|" * len(paths) + "---|---|---|"]
    e = lambda v: "—" if v is None else f"{v:.1e}"  # noqa: E731
    for r in rows:
        lines.append(f"| {r['shape']} | {e(r.get('torch_f32_err'))} | {e(r.get('ours_f32_auto_err'))} |" +
                     "".join(f" {e(r.get(f'ours_f32_{p}_err'))} |" for p in paths) +
                     f" {e(r.get('ours_f16_auto_err'))} | {e(r.get('ours_bf16_auto_err'))} | {e(r.get('ort_f32_cg_err'))} |")
    errs = [f"{r['shape']}: {k} {v}" for r in rows for k, v in r.items() if k.endswith("_error")]
    if errs:
        lines += ["", "Errors:", ""] + [f"- {x}" for x in errs]
    (out / "gpu_bench.md").write_text("\n".join(lines) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        labels = [r["shape"].replace(" m", "\nm") for r in rows]
        keys = [("torch_eager_ms", "torch eager"), ("torch_graph_ms", "torch graph"), ("torch_compile_ms", "torch.compile"),
                ("ours_f32_auto_ms", "ours f32 (graph)"), ("ort_f32_cg_ms", "ours in ORT (cuda graph)"),
                ("ours_f16_auto_ms", "ours f16"), ("floor_f32_ms", "floor f32")]
        xs = np.arange(len(labels))
        fig, ax = plt.subplots(figsize=(16, 5.5))
        wdt = 0.12
        for i, (k, name) in enumerate(keys):
            ax.bar(xs + (i - len(keys) / 2) * wdt, [r.get(k) or np.nan for r in rows], wdt, label=name)
        ax.set_yscale("log")
        ax.set_xticks(xs, labels, fontsize=7)
        ax.set_ylabel("ms per layer (log)")
        ax.set_title(f"SpectralConv on {meta['gpu']} (commit {meta['commit']})")
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
    ap.add_argument("--reps", type=int, default=10, help="layer calls per CUDA graph in the graph columns (time / reps)")
    ap.add_argument("--shapes", default="", help="comma-separated indices of the config's shapes (default: all)")
    ap.add_argument("--paths", default="fused,separable", help="forced algorithms to time besides the planner's choice")
    args = ap.parse_args()
    args.paths = [p for p in args.paths.split(",") if p]
    assert all(p in PATHS for p in args.paths), f"--paths takes {sorted(PATHS)}"
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
                torch=torch.__version__, copy_bw_TBps=bw / 1e12, config=cfg, paths=args.paths, ort=not args.no_ort, reps=args.reps)
    print(json.dumps(meta), flush=True)
    shapes = cfg["shapes"]
    if args.shapes:
        shapes = [shapes[int(i)] for i in args.shapes.split(",")]
    rows = []
    for spec in shapes:
        t0 = time.time()
        r = run_shape(spec, cfg, bw, args)
        rows.append(r)
        print(f"[{time.time() - t0:.1f} s] " + json.dumps(r), flush=True)
    write_outputs(dict(meta=meta, rows=rows), Path(args.out))


if __name__ == "__main__":
    main()
