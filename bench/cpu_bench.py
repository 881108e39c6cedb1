"""CPU benchmark: our ORT SpectralConv op vs PyTorch CPU (the classic FNO SpectralConv: rfftn, one einsum
per kept corner block, irfftn) for d = 1, 2, 3 spatial axes.

Same thread count on both sides (torch.set_num_threads(t); TURBOFNO_NUM_THREADS=t and ORT
intra-op threads t). Each shape is first checked against PyTorch (rel-L2), then timed: warm-up
runs, then PyTorch and ours alternately (one run each per repetition, so both see the same machine
load), medians reported. Results go to bench/results/cpu-<date>-t<threads>.{json,md}.

    python bench/cpu_bench.py [--threads 2] [--quick]
    (dev tree: TURBOFNO_LIB_DIR=build PYTHONPATH=python python bench/cpu_bench.py)
"""
from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_meta import cpu_model, git_commit  # noqa: E402  (one definition, shared with the model benchmarks)

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 1e-4  # rel-L2 of ours vs PyTorch, both fp32


def time_interleaved(fns, warmup: int, reps: int) -> list[list[float]]:
    """Times each of fns once per repetition, alternating; returns one list of ms per fn."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for fn, out in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t0) * 1e3)
    return times


def shape_name(n: int, c: int, size: list[int], m: int) -> str:
    return "x".join(str(v) for v in [n, c, *size]) + f" modes {m}"


def bench_shape(shape: dict, threads: int, warmup: int, reps: int, lib: str, seed: int) -> dict:
    import onnxruntime as ort
    import torch

    from turbofno.reference import make_model

    n, c, m = shape["batch"], shape["channels"], shape["modes"]
    size = list(shape["size"])
    d = len(size)
    if not 1 <= d <= 3:
        raise SystemExit(f"shape {shape}: 1 to 3 spatial axes")
    name = shape_name(n, c, size, m)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, *size)).astype(np.float32)
    scale = 1.0 / (c * c)
    # One weight block per corner: m low or m high frequencies on each full axis 1..d-1, m on the last.
    corners = list(itertools.product((0, 1), repeat=d - 1))
    blocks = {cr: (scale * rng.standard_normal((c, c, *([m] * d), 2))).astype(np.float32) for cr in corners}
    bias = rng.standard_normal(c).astype(np.float32)

    # PyTorch: the classic FNO SpectralConv forward (SpectralConv1d/2d/3d of the FNO reference code).
    xt = torch.from_numpy(x)
    wt = {cr: torch.view_as_complex(torch.from_numpy(b)) for cr, b in blocks.items()}
    bt = torch.from_numpy(bias).reshape(1, c, *([1] * d))
    dims = tuple(range(-d, 0))
    letters = "xyz"[:d]
    expr = f"bi{letters},io{letters}->bo{letters}"

    def corner_slices(cr):
        return (slice(None), slice(None), *[slice(None, m) if hi == 0 else slice(-m, None) for hi in cr],
                slice(None, m))

    def torch_layer():
        xf = torch.fft.rfftn(xt, dim=dims)
        out = torch.zeros(n, c, *size[:-1], size[-1] // 2 + 1, dtype=torch.cfloat)
        for cr in corners:
            sl = corner_slices(cr)
            out[sl] = torch.einsum(expr, xf[sl], wt[cr])
        return torch.fft.irfftn(out, s=size, dim=dims) + bt

    # Ours: weight [Cin, Cout, 2m (x 2m), m, 2], the low block then the high block on each full axis.
    weight = np.zeros((c, c, *([2 * m] * (d - 1)), m, 2), dtype=np.float32)
    for cr, b in blocks.items():
        weight[(slice(None), slice(None), *[slice(hi * m, hi * m + m) for hi in cr])] = b
    model = make_model(weight, bias, modes_low=[m] * d, modes_high=[m] * (d - 1) + [0], x_shape=[n, c, *size])
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
        torch_ms, ours_ms = time_interleaved([torch_layer, lambda: sess.run(None, {"x": x})], warmup, reps)

    t_med, o_med = statistics.median(torch_ms), statistics.median(ours_ms)
    nbytes = (x.nbytes * 2 + weight.nbytes + bias.nbytes)  # read x + weights, write y
    return {
        "shape": name, "class": shape.get("class", f"{d}D"), "batch": n, "channels": c, "size": size, "modes": m,
        "rel_l2_vs_torch": rel,
        "torch_ms": t_med, "ours_ms": o_med, "speedup": t_med / o_med,
        "torch_min_ms": min(torch_ms), "ours_min_ms": min(ours_ms), "speedup_min": min(torch_ms) / min(ours_ms),
        "torch_ms_all": torch_ms, "ours_ms_all": ours_ms,
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
        f"onnxruntime {meta['onnxruntime']}; median of {meta['reps']} runs after {meta['warmup']} warm-up, "
        "PyTorch and ours alternating.",
        "",
        f"Load average (1/5/15 min) at start {_fmt_load(meta.get('loadavg_start'))}, "
        f"at end {_fmt_load(meta.get('loadavg_end'))}: anything well above 0 means other work shared the CPUs.",
        "",
        "Median and minimum over the runs (on a shared machine the minimum is the closer estimate of the "
        "uncontended time; the ratio columns divide PyTorch's value by ours).",
        "",
        "| class | shape (NxCxS..., modes) | PyTorch ms | ours ms | PyTorch / ours | PyTorch min | ours min | "
        "ratio of min | ours GB/s | rel-L2 vs PyTorch |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    if meta.get("note"):
        lines[2:2] = [f"Note: {meta['note']}", ""]
    for r in results:
        lines.append(f"| {r['class']} | {r['shape']} | {r['torch_ms']:.2f} | {r['ours_ms']:.2f} | {r['speedup']:.1f}x | "
                     f"{r['torch_min_ms']:.2f} | {r['ours_min_ms']:.2f} | {r['speedup_min']:.1f}x | "
                     f"{r['ours_gbytes_per_s']:.1f} | {r['rel_l2_vs_torch']:.1e} |")
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
    parser.add_argument("--only", default=None, help="run only the shapes whose name contains this text")
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
    if args.only:
        shapes = [sh for sh in shapes if args.only in shape_name(sh["batch"], sh["channels"], sh["size"], sh["modes"])]
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
