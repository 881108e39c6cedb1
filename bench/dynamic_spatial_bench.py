"""Cost of dynamic spatial axes: one FNO exported with symbolic spatial sizes vs static exports, ORT CPU.

The model is the Darcy-sized neuraloperator FNO (n_modes 16x16, 32 channels, 4 layers, grid embedding).
It is exported once with dynamic spatial axes (at 64x64) and once statically at each measured size,
then each file runs in ORT CPU (our op library) at that size: median ms over repeats, after warm-up.
The dynamic file is also checked against PyTorch at every size. Writes bench/results/dynamic-spatial-
<date>.{json,md}.

    TURBOFNO_LIB_DIR=build/ci PYTHONPATH=python python bench/dynamic_spatial_bench.py [--threads 2]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def session(path, threads):
    import onnxruntime as ort

    import turbofno

    opts = ort.SessionOptions()
    opts.register_custom_ops_library(turbofno.get_library_path())
    opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def timed(sess, x, repeats, warmup=3):
    name = sess.get_inputs()[0].name
    for _ in range(warmup):
        sess.run(None, {name: x})
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        sess.run(None, {name: x})
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), sess.run(None, {name: x})[0]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--sizes", default="64,128,256")
    args = ap.parse_args()
    os.environ["TURBOFNO_NUM_THREADS"] = str(args.threads)
    import torch
    from neuralop.models import FNO

    from turbofno.export import export

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = FNO(n_modes=(16, 16), in_channels=3, out_channels=1, hidden_channels=32, n_layers=4).eval()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        dyn = Path(tmp) / "dynamic.onnx"
        export(model, torch.randn(1, 3, 64, 64), dyn, verbose=False, dynamic_spatial=True)
        dyn_sess = session(dyn, args.threads)
        for s in sizes:
            st = Path(tmp) / f"static{s}.onnx"
            export(model, torch.randn(1, 3, s, s), st, verbose=False, dynamic_spatial=False)
            x = np.random.default_rng(s).standard_normal((1, 3, s, s)).astype(np.float32)
            with torch.no_grad():
                want = model(torch.from_numpy(x)).numpy()
            st_sess = session(st, args.threads)
            # interleave to share the machine's noise
            d_ms, s_ms = [], []
            for _ in range(3):
                d_ms.append(timed(dyn_sess, x, args.repeats)[0])
                s_ms.append(timed(st_sess, x, args.repeats)[0])
            y = timed(dyn_sess, x, 1, warmup=0)[1]
            err = float(np.linalg.norm(y - want) / np.linalg.norm(want))
            rows.append({"size": s, "static_ms": statistics.median(s_ms), "dynamic_ms": statistics.median(d_ms),
                         "dynamic_rel_l2_vs_torch": err})
            print(rows[-1], flush=True)
    date = dt.date.today().isoformat()
    out = ROOT / "bench" / "results" / f"dynamic-spatial-{date}"
    meta = {"date": date, "threads": args.threads, "model": "neuralop FNO n_modes 16x16, 32 ch, 4 layers, grid",
            "batch": 1, "repeats": f"3 x {args.repeats} (median of medians)", "cpu": os.cpu_count(), "rows": rows}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    lines = [f"# Dynamic vs static spatial axes, ORT CPU ({date}, {args.threads} threads, batch 1)", "",
             "One dynamic export (at 64x64) vs a static export per size; neuraloperator FNO, n_modes 16x16, "
             "32 channels, 4 layers, grid embedding. Median ms per run.", "",
             "| size | static ms | dynamic ms | dynamic / static | dynamic rel-L2 vs PyTorch |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['size']}x{r['size']} | {r['static_ms']:.2f} | {r['dynamic_ms']:.2f} | "
                     f"{r['dynamic_ms'] / r['static_ms']:.2f} | {r['dynamic_rel_l2_vs_torch']:.1e} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
