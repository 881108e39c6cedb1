"""GPU benchmark of the SpectralConv layer against PyTorch, one command on the GPU machine:

    python3 bench/gpu_bench.py [--config bench/configs/gpu.json] [--no-compile] [--no-ort] [--no-ort-chain]
                               [--out DIR] [--paths fused,separable] [--shapes N] [--reps 10]

Per shape (d = 1, 2, 3; bench/configs/gpu.json), in the same run: PyTorch eager, PyTorch CUDA-graph
replay and torch.compile of the neuraloperator-style layer (rfftn -> one einsum per corner block ->
irfftn), our kernel called directly (core::launchCuda through tests/gpu/tfno_capi.cpp) as CUDA-graph
replay with the planner's choice and with each forced algorithm (--paths), fp16 / bf16 for the
low-precision rows, our op in an ONNX Runtime CUDA session (IOBinding, with and without ORT's CUDA
graph; needs onnxruntime-gpu and build-gpu/ort_op/libturbofno_ort.so, or $TURBOFNO_ORT_LIB), the memory
floor (x + y + weights + bias bytes / measured device copy bandwidth), and rel-L2 errors against a
float64 PyTorch layer on the same inputs. TF32 is off for PyTorch and ORT. Writes gpu_bench.json, .md and
.png into --out.

The graph columns replay --reps (default 10) back-to-back layer calls per CUDA graph and divide by
--reps. The plain ORT columns run one SpectralConv node per session run, so ORT's per-run host cost
(~15-20 us) lands on every layer. The "ORT ×N" columns (N = --reps; --no-ort-chain skips them; fp32 and
fp16) are the fair counterpart: one ONNX model of N chained SpectralConv nodes (make_chain_model; every
node shares one weight, scaled by chain_weights so N layers neither blow up nor vanish), one session run
(IOBinding, with / without ORT's CUDA graph) per N layers, reported as ms per layer = ms per run / N.
The chain's output is compared with the float64 layer applied N times (rel-L2 in the accuracy table);
above CHAIN_TOL it is not timed and the reason is listed under Errors. The summary gives geometric means
over shapes of PyTorch graph / ours for the direct kernel, ORT with one node per run and ORT chained
(both with ORT's CUDA graph). ort_columns also runs on ORT's CPU EP (device='cpu'), which
tests/python/test_ort_chain.py uses as a dry run of this code without a GPU.
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


NP_DTYPES = {torch.float32: np.float32, torch.float16: np.float16}
# rel-L2 of the chained model's output against the float64 layer applied n times, above which its timing
# is not recorded (a wrong chain must not time garbage); a correct chain is ~1e-7 (f32) / ~1e-3 (f16).
CHAIN_TOL = {"f32": 1e-4, "f16": 5e-2}


def ort_lib_path():
    return os.environ.get("TURBOFNO_ORT_LIB", str(ROOT / "build-gpu" / "ort_op" / "libturbofno_ort.so"))


def ort_session(model, cuda_graph=False, device="cuda", lib=None):
    """InferenceSession of the ModelProto `model` with our op library (lib, default $TURBOFNO_ORT_LIB or
    build-gpu/ort_op/libturbofno_ort.so): the CUDA EP on device 0 with TF32 off (cuda_graph: ORT's CUDA
    graph, enable_cuda_graph), or with device 'cpu' the CPU EP on one thread (a dry run of this code)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib or ort_lib_path())
    opts.log_severity_level = 3
    if device == "cpu":
        assert not cuda_graph, "ORT's CUDA graph needs the CUDA EP"
        opts.intra_op_num_threads = 1
        return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    prov = {"device_id": 0, "use_tf32": 0}
    if cuda_graph:
        prov["enable_cuda_graph"] = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=[("CUDAExecutionProvider", prov)])
    assert "CUDAExecutionProvider" in sess.get_providers()
    return sess


def ort_bind(sess, x, y):
    """run(): sess.run_with_iobinding with the model's input 'x' and output 'y' bound to the contiguous
    torch tensors x and y in place (CUDA or CPU memory, fp32 / fp16): no copies per run, fixed addresses
    (what ORT's CUDA graph replays on)."""
    npdt = NP_DTYPES[x.dtype]
    io = sess.io_binding()
    for bind, name, t in ((io.bind_input, "x", x), (io.bind_output, "y", y)):
        assert t.is_contiguous() and t.dtype == x.dtype and t.device == x.device
        bind(name, t.device.type, t.device.index or 0, npdt, list(t.shape), t.data_ptr())

    def run():
        sess.run_with_iobinding(io)

    run.keep = (sess, io, x, y)  # the binding's buffers must outlive the captured graph
    return run


def chain_weights(w, b, n):
    """The chained model's weights from a layer's w [Cin, Cout, K.., 2] and b (numpy): w scaled so the layer
    keeps the norm of a signal in its kept modes (expected |W x|^2 = |x|^2 per mode: Cin * mean |w|^2 = 1),
    b / sqrt(n) (the biases of n layers add up). Without the scaling n layers of the benchmark's
    w ~ randn / C shrink the signal by ~(2 / C)^(n/2) and the output is the biases alone; with it the
    chain's output depends on every kept mode, so the accuracy check sees a wrong one. Timing does not
    depend on the values."""
    w = np.asarray(w, dtype=np.float64)
    gain = w.shape[0] * float(np.mean(w[..., 0] ** 2 + w[..., 1] ** 2))
    return (w / math.sqrt(gain)).astype(np.float32), (np.asarray(b, dtype=np.float64) / math.sqrt(n)).astype(np.float32)


def ort_columns(r, tag, xs, w, b, ref, low, high, iters, warm, chain=None, device="cuda", lib=None, timer=None):
    """Our op in ONNX Runtime on xs (a torch tensor on `device`, fp32 / fp16 = tag 'f32' / 'f16'), IOBinding
    into a NaN-filled output, with (CUDA only) and without ORT's CUDA graph. Fills r with
      ort_{tag}[_cg]_{ms,err}:        one SpectralConv node per run (make_model(w, b)), rel-L2 vs ref;
      ort_{tag}_chain[_cg]_{ms,err}:  chain.n nodes per run (make_chain_model(chain.w, chain.b)), ms per layer
                                      (= per run / chain.n), rel-L2 vs chain.ref (the float64 layer applied
                                      chain.n times); not timed when that is above CHAIN_TOL[tag];
      ..._error:                      why a variant has no time.
    w, b: numpy float32; ref / chain.ref: float64 torch tensors on `device`. timer(fn, iters, warm) -> ms
    (default: bench, CUDA events)."""
    from turbofno.reference import make_chain_model, make_model

    timer = timer or bench
    npdt = NP_DTYPES[xs.dtype]
    out_shape = (xs.shape[0], w.shape[1], *xs.shape[2:])
    variants = [(f"ort_{tag}", 1, ref, None,
                 lambda: make_model(w.astype(npdt), b.astype(npdt), modes_low=low, modes_high=high))]
    if chain is not None:
        variants.append((f"ort_{tag}_chain", chain.n, chain.ref, CHAIN_TOL[tag],
                         lambda: make_chain_model(chain.w.astype(npdt), chain.b.astype(npdt), n_layers=chain.n,
                                                  modes_low=low, modes_high=high, x_shape=list(xs.shape))))
    for base, n, want, tol, build in variants:
        model = build()
        for cg in ((False, True) if device == "cuda" else (False,)):
            key = base + ("_cg" if cg else "")
            try:
                sess = ort_session(model, cg, device, lib)
                yo = torch.full(out_shape, float("nan"), dtype=xs.dtype, device=xs.device)
                run = ort_bind(sess, xs, yo)
                for _ in range(3):  # (ORT CUDA graph: a regular run, the capture, a replay)
                    run()
                if device == "cuda":
                    torch.cuda.synchronize()
                err = rel(yo, want)
                r[f"{key}_err"] = err
                if tol is not None and not err <= tol:
                    r[f"{key}_error"] = f"output rel-L2 {err:.2e} against the float64 layer applied {n} times > {tol:g}: not timed"
                else:
                    r[f"{key}_ms"] = timer(run, iters, warm) / n
            except Exception as ex:
                r[f"{key}_error"] = repr(ex)[:300]
            sess = run = None  # the session (and its CUDA graph) goes before the next one


def wall_bench(fn, iters=100, warm=20):
    """Median wall-clock ms per fn() call (the CPU dry run's timer)."""
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


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


def chain_case(c, n):
    """The chained ORT model's weights (chain_weights of the case's w, b; numpy) and its reference: the
    float64 PyTorch layer with those weights applied n times to c.x (on c.x's device)."""
    wch, bch = chain_weights(c.w.cpu().numpy(), c.b.cpu().numpy(), n)
    wt = torch.from_numpy(wch).to(c.x.device, torch.float64)
    bt = torch.from_numpy(bch).to(c.x.device, torch.float64).view((1, c.C) + (1,) * c.d)
    mod = TorchSpectral(torch.complex(wt[..., 0], wt[..., 1]), c.S, c.m)
    y = c.x.double()
    with torch.no_grad():
        for _ in range(n):
            y = mod(y) + bt
    return SimpleNamespace(n=n, w=wch, b=bch, ref=y)


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
    w_np, b_np = w.cpu().numpy(), b.cpu().numpy()
    chain = None
    if not (args.no_ort or args.no_ort_chain):
        try:
            chain = chain_case(c, args.reps)
        except Exception as ex:  # report, keep going without the chain columns
            r["ort_chain_error"] = repr(ex)[:300]
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
            ort_columns(r, tag, xs, w_np, b_np, ref, low, high, iters, warm, chain=chain)
    return r


def fmt(v, p=3):
    return "—" if v is None else f"{v:.{p}f}"


def geomean_line(what, ratios):
    if not ratios:
        return None
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    return f"{what}: geometric mean **{gm:.2f}×** (min {min(ratios):.2f}×, max {max(ratios):.2f}×, {len(ratios)} shapes)."


def write_outputs(res, out: Path):
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_bench.json").write_text(json.dumps(res, indent=1))
    meta, rows = res["meta"], res["rows"]
    paths = meta["paths"]
    n = meta.get("ort_chain") or 0
    chain_text = (f" ORT ×{n} = the same op as {n} chained SpectralConv nodes in one ONNX model (x → layer → … → layer → y, "
                  f"static shapes, every node sharing one weight and bias, scaled so the layer keeps the signal's norm), one "
                  f"session run (IOBinding; cg = ORT's CUDA graph) per {n} layers, shown as ms per layer = ms per run / {n}: "
                  f"ORT's per-run host cost shared by {n} layers as in a deployed model, the counterpart of the {n}-call graph "
                  f"columns (the 1-node ORT columns pay it per layer). Its output is checked against the float64 layer applied "
                  f"{n} times (accuracy table); a chain above rel-L2 {CHAIN_TOL['f32']:g} (f32) is not timed (Errors)."
                  if n else "")
    xn = f"×{n}"
    lines = [f"# SpectralConv layer on {meta['gpu']}: ours vs PyTorch ({meta['date']}, commit {meta['commit']})", "",
             f"Median ms per layer call (CUDA events). 'graph' = CUDA-graph replay of {meta.get('reps', 1)} back-to-back "
             f"calls / {meta.get('reps', 1)} (as layers run inside a captured model), for PyTorch and ours alike. "
             f"Ours direct = core::launchCuda in such a graph ('auto' = the planner's choice). ORT = our op in an ONNX Runtime CUDA session "
             f"with IOBinding (cg = ORT's CUDA graph), one SpectralConv node per session run.{chain_text} "
             f"Floor = (x + y + weights + bias bytes) / {meta['copy_bw_TBps']:.2f} TB/s "
             f"(measured copy bandwidth). TF32 off. Speed-up = PyTorch graph / ours.", "",
             "| shape | torch eager | torch graph | torch.compile | ours f32 (auto) |" + "".join(f" ours {p} |" for p in paths) +
             " ORT f32 | ORT f32 cg |" + (f" ORT f32 {xn} (per layer) | ORT f32 cg {xn} (per layer) |" if n else "") +
             " floor f32 | ours/floor | speed-up vs torch graph | ORT cg vs torch graph |" +
             (f" ORT cg {xn} vs torch graph |" if n else ""),
             "|---|---|---|---|---|" + "---|" * len(paths) + "---|---|" + ("---|---|" if n else "") + "---|---|---|---|" +
             ("---|" if n else "")]
    speed, speed_ort, speed_chain = [], [], []
    ratio = lambda r, k: r["torch_graph_ms"] / r[k] if r.get(k) else None  # noqa: E731
    x_ = lambda v: "—" if v is None else f"{v:.2f}×"  # noqa: E731
    for r in rows:
        ours = r["ours_f32_auto_ms"]
        sp = r["torch_graph_ms"] / ours
        speed.append(sp)
        so, sc = ratio(r, "ort_f32_cg_ms"), ratio(r, "ort_f32_chain_cg_ms")
        if so:
            speed_ort.append(so)
        if sc:
            speed_chain.append(sc)
        lines.append(f"| {r['shape']} | {fmt(r['torch_eager_ms'])} | {fmt(r['torch_graph_ms'])} | {fmt(r.get('torch_compile_ms'))} | "
                     f"{fmt(ours)} |" + "".join(f" {fmt(r.get(f'ours_f32_{p}_ms'))} |" for p in paths) +
                     f" {fmt(r.get('ort_f32_ms'))} | {fmt(r.get('ort_f32_cg_ms'))} |" +
                     (f" {fmt(r.get('ort_f32_chain_ms'))} | {fmt(r.get('ort_f32_chain_cg_ms'))} |" if n else "") +
                     f" {fmt(r['floor_f32_ms'], 4)} | {ours / r['floor_f32_ms']:.1f}× | {sp:.2f}× | {x_(so)} |" +
                     (f" {x_(sc)} |" if n else ""))
    gm = math.exp(sum(map(math.log, speed)) / len(speed))
    lines += ["", f"Geometric mean speed-up of ours (direct, graph) over PyTorch CUDA-graph replay: **{gm:.2f}×** "
              f"(min {min(speed):.2f}×, max {max(speed):.2f}×)."]
    for line in (geomean_line("Our op in ORT with CUDA graph, one node per session run, over PyTorch CUDA-graph replay", speed_ort),
                 geomean_line(f"Our op in ORT with CUDA graph, {n} chained nodes per session run (ms per layer), over PyTorch "
                              f"CUDA-graph replay", speed_chain)):
        if line:
            lines.append(line)
    lp = [r for r in rows if r.get("ours_f16_auto_ms")]
    if lp:
        lines += ["", "Low precision (ours direct, graph, ms; speed-up over our own fp32):", "",
                  "| shape | f32 | f16 | bf16 | f16 vs f32 | bf16 vs f32 | ORT f16 cg |" + (f" ORT f16 cg {xn} (per layer) |" if n else "") +
                  " floor f16 |", "|---|---|---|---|---|---|---|" + ("---|" if n else "") + "---|"]
        for r in lp:
            f32, f16, bf = r["ours_f32_auto_ms"], r["ours_f16_auto_ms"], r.get("ours_bf16_auto_ms")
            lines.append(f"| {r['shape']} | {fmt(f32)} | {fmt(f16)} | {fmt(bf)} | {f32 / f16:.2f}× | "
                         f"{'—' if not bf else f'{f32 / bf:.2f}×'} | {fmt(r.get('ort_f16_cg_ms'))} |" +
                         (f" {fmt(r.get('ort_f16_chain_cg_ms'))} |" if n else "") + f" {fmt(r.get('floor_f16_ms'), 4)} |")
    lines += ["", "Accuracy (rel-L2 against a float64 PyTorch layer on the same inputs" +
              (f"; the ORT {xn} columns: the chain's output against the float64 layer applied {n} times with the chain's "
               "weights" if n else "") + "):", "",
              "| shape | torch fp32 | ours f32 |" + "".join(f" ours {p} |" for p in paths) + " ours f16 | ours bf16 | ORT f32 cg |" +
              (f" ORT f32 cg {xn} | ORT f16 cg {xn} |" if n else ""),
              "|---|---|---|" + "---|" * len(paths) + "---|---|---|" + ("---|---|" if n else "")]
    e = lambda v: "—" if v is None else f"{v:.1e}"  # noqa: E731
    for r in rows:
        lines.append(f"| {r['shape']} | {e(r.get('torch_f32_err'))} | {e(r.get('ours_f32_auto_err'))} |" +
                     "".join(f" {e(r.get(f'ours_f32_{p}_err'))} |" for p in paths) +
                     f" {e(r.get('ours_f16_auto_err'))} | {e(r.get('ours_bf16_auto_err'))} | {e(r.get('ort_f32_cg_err'))} |" +
                     (f" {e(r.get('ort_f32_chain_cg_err'))} | {e(r.get('ort_f16_chain_cg_err'))} |" if n else ""))
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
                ("ort_f32_chain_cg_ms", f"ours in ORT, {n} nodes per run (cuda graph, per layer)"),
                ("ours_f16_auto_ms", "ours f16"), ("floor_f32_ms", "floor f32")]
        if not n:
            keys = [k for k in keys if k[0] != "ort_f32_chain_cg_ms"]
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
    ap.add_argument("--no-ort-chain", action="store_true",
                    help="skip the ORT columns of --reps chained SpectralConv nodes per session run (ms per layer)")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench" / "results")))
    ap.add_argument("--reps", type=int, default=10, help="layer calls per CUDA graph in the graph columns (time / reps); also the nodes per "
                         "session run of the ORT chain columns")
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
                torch=torch.__version__, copy_bw_TBps=bw / 1e12, config=cfg, paths=args.paths, ort=not args.no_ort, reps=args.reps,
                ort_chain=0 if args.no_ort or args.no_ort_chain else args.reps)
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
