"""CPU benchmark: our ORT SpectralConv op vs PyTorch CPU (rfft2 + einsum on two corner blocks + irfft2).

Same thread count on both sides (torch.set_num_threads(t); TURBOFNO_NUM_THREADS=t and ORT
intra-op threads t). Each shape is first checked against PyTorch (rel-L2), then timed: warm-up
runs, then the median of several runs. Results go to bench/results/cpu-<date>-t<threads>.{json,md}.

    python bench/cpu_bench.py [--threads 2] [--quick]
    (dev tree: TURBOFNO_LIB_DIR=build PYTHONPATH=python python bench/cpu_bench.py)
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 1e-4  # rel-L2 of ours vs PyTorch, both fp32


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit() -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                               text=True).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def flops(n: int, c: int, h: int, w: int, m: int) -> float:
    """Work of the truncated-DFT formulation our kernel runs (multiply-add = 2 flops)."""
    k, k0 = m, 2 * m
    fwd = n * c * (2 * h * w * 2 * k + 2 * (2 * k0) * h * 2 * k)
    mix = 8 * n * c * c * k0 * k
    inv = n * c * (2 * (2 * h) * k0 * 2 * k + 2 * h * 2 * k * w)
    return float(fwd + mix + inv)


def time_runs(fn, warmup: int, reps: int) -> list[float]:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def bench_shape(shape: dict, threads: int, warmup: int, reps: int, lib: str, seed: int) -> dict:
    import onnxruntime as ort
    import torch

    from turbofno.reference import make_model

    n, c, m = shape["batch"], shape["channels"], shape["modes"]
    h, w = shape["size"]
    name = f"{n}x{c}x{h}x{w} modes {m}"
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    scale = 1.0 / (c * c)
    w1 = (scale * rng.standard_normal((c, c, m, m, 2))).astype(np.float32)  # rows [:m]
    w2 = (scale * rng.standard_normal((c, c, m, m, 2))).astype(np.float32)  # rows [-m:]
    bias = rng.standard_normal(c).astype(np.float32)

    # PyTorch: the classic FNO SpectralConv2d forward.
    xt = torch.from_numpy(x)
    w1c, w2c = torch.view_as_complex(torch.from_numpy(w1)), torch.view_as_complex(torch.from_numpy(w2))
    bt = torch.from_numpy(bias).reshape(1, c, 1, 1)

    def torch_layer():
        xf = torch.fft.rfft2(xt)
        out = torch.zeros(n, c, h, w // 2 + 1, dtype=torch.cfloat)
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m, :m], w1c)
        out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, -m:, :m], w2c)
        return torch.fft.irfft2(out, s=(h, w)) + bt

    # Ours: weight [Cin, Cout, 2m, m, 2] = low rows then high rows; modes_low (m, m), modes_high (m, 0).
    weight = np.ascontiguousarray(np.concatenate([w1, w2], axis=2))
    model = make_model(weight, bias, modes_low=[m, m], modes_high=[m, 0], x_shape=[n, c, h, w])
    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])

    with torch.inference_mode():
        ref = torch_layer().numpy()
        got = sess.run(None, {"x": x})[0]
        rel = float(np.linalg.norm(got.astype(np.float64) - ref) / np.linalg.norm(ref.astype(np.float64)))
        if not np.isfinite(rel) or rel > TOLERANCE:
            raise SystemExit(f"{name}: ours differs from PyTorch, rel-L2 {rel:.3e} > {TOLERANCE:.0e}")
        print(f"  {name}: check ok (rel-L2 vs PyTorch {rel:.2e}); timing ...", flush=True)
        torch_ms = time_runs(torch_layer, warmup, reps)
        ours_ms = time_runs(lambda: sess.run(None, {"x": x}), warmup, reps)

    t_med, o_med = statistics.median(torch_ms), statistics.median(ours_ms)
    nbytes = (x.nbytes * 2 + weight.nbytes + bias.nbytes)  # read x + weights, write y
    return {
        "shape": name, "batch": n, "channels": c, "size": [h, w], "modes": m,
        "rel_l2_vs_torch": rel,
        "torch_ms": t_med, "ours_ms": o_med, "speedup": t_med / o_med,
        "torch_ms_all": torch_ms, "ours_ms_all": ours_ms,
        "ours_gflops": flops(n, c, h, w, m) / o_med * 1e-6,
        "ours_gbytes_per_s": nbytes / o_med * 1e-6,
    }


def _fmt_load(load) -> str:
    return "/".join(f"{v:.1f}" for v in load) if load else "n/a"


def write_results(results: list[dict], meta: dict, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"cpu-{meta['date'][:10]}-t{meta['threads']}" + ("-quick" if meta["quick"] else "")
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    json_path.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    lines = [
        f"# CPU SpectralConv: TurboFNO ORT op vs PyTorch ({meta['date']})",
        "",
        f"CPU: {meta['cpu']}; threads: {meta['threads']}; commit {meta['commit']}; torch {meta['torch']}, "
        f"onnxruntime {meta['onnxruntime']}; median of {meta['reps']} runs after {meta['warmup']} warm-up.",
        "",
        f"Load average (1/5/15 min) at start {_fmt_load(meta.get('loadavg_start'))}, "
        f"at end {_fmt_load(meta.get('loadavg_end'))}: anything well above 0 means other work shared the CPUs.",
        "",
        "| shape (NxCxHxW, modes) | PyTorch ms | ours ms | PyTorch / ours | ours GFLOP/s | ours GB/s | rel-L2 vs PyTorch |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    if meta.get("note"):
        lines[2:2] = [f"Note: {meta['note']}", ""]
    for r in results:
        lines.append(f"| {r['shape']} | {r['torch_ms']:.2f} | {r['ours_ms']:.2f} | {r['speedup']:.1f}x | "
                     f"{r['ours_gflops']:.0f} | {r['ours_gbytes_per_s']:.1f} | {r['rel_l2_vs_torch']:.1e} |")
    md_path.write_text("\n".join(lines) + "\n")
    return json_path, md_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2, help="threads for both PyTorch and our op (default 2)")
    parser.add_argument("--quick", action="store_true", help="fewer runs (smoke test, noisy numbers)")
    parser.add_argument("--reps", type=int, default=None, help="timed runs per shape (default 20, quick 5)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up runs per shape (default 3, quick 1)")
    parser.add_argument("--config", type=Path, default=ROOT / "bench" / "configs" / "cpu.json")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--lib", default=None, help="libturbofno_ort path (default: turbofno.get_library_path())")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--note", default="", help="free text stored with the results (e.g. machine state)")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error("--threads must be >= 1")
    reps = args.reps or (5 if args.quick else 20)
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)

    os.environ["TURBOFNO_NUM_THREADS"] = str(args.threads)  # read by the op on every run
    sys.path.insert(0, str(ROOT / "python"))
    import onnxruntime as ort
    import torch

    from turbofno._library import get_library_path

    torch.set_num_threads(args.threads)
    lib = args.lib or get_library_path("ort")
    shapes = json.loads(args.config.read_text())["shapes"]
    meta = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu": cpu_model(), "logical_cpus": os.cpu_count(), "threads": args.threads,
        "commit": git_commit(), "torch": torch.__version__, "onnxruntime": ort.__version__,
        "python": platform.python_version(), "library": lib, "reps": reps, "warmup": warmup, "quick": args.quick,
        "cpu_isa_cap": os.environ.get("TURBOFNO_CPU_ISA", "auto"),
        "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "note": args.note,
    }
    print(f"CPU bench: {meta['cpu']}, {args.threads} thread(s), {len(shapes)} shapes, lib {lib}", flush=True)
    results = []
    for i, shape in enumerate(shapes):
        print(f"[{i + 1}/{len(shapes)}]", flush=True)
        r = bench_shape(shape, args.threads, warmup, reps, lib, args.seed + i)
        print(f"  PyTorch {r['torch_ms']:.2f} ms, ours {r['ours_ms']:.2f} ms -> {r['speedup']:.1f}x", flush=True)
        results.append(r)
    meta["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    json_path, md_path = write_results(results, meta, args.out_dir)
    print(md_path.read_text())
    print(f"wrote {json_path} and {md_path}")
    slower = [r["shape"] for r in results if r["speedup"] < 1.0]
    if slower:
        print(f"WARNING: slower than PyTorch at {', '.join(slower)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
