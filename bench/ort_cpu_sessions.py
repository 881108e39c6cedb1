"""Throughput of concurrent ORT CPU sessions running one SpectralConv layer.

One session (intra_op_num_threads=1) on one Python thread, then K sessions on K threads at once;
prints calls/s and the ratio. On a machine with >= K free cores the ratio should approach K: each
call runs on its own session's pool, with no lock shared between sessions.

    python bench/ort_cpu_sessions.py [--lib libturbofno_ort.so] [--sessions 2] [--seconds 5] [--out FILE.md]
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import threading
import time

import numpy as np


def make_session(lib: str, model_bytes: bytes, threads: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(model_bytes, opts, providers=["CPUExecutionProvider"])


def throughput(sessions, x, seconds: float) -> tuple[float, float]:
    """(total calls/s of all sessions, each driven by its own thread for `seconds`; CPU cores the
    process used meanwhile: CPU seconds / wall seconds, which stays near 1 if the calls serialise)."""
    counts = [0] * len(sessions)
    start = threading.Barrier(len(sessions) + 1)
    stop = threading.Event()

    def work(i):
        start.wait()
        while not stop.is_set():
            sessions[i].run(None, {"x": x})
            counts[i] += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    start.wait()
    t0, c0 = time.perf_counter(), time.process_time()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return sum(counts) / wall, (time.process_time() - c0) / wall


def main() -> None:
    import onnxruntime as ort

    import turbofno
    from turbofno.reference import make_model, random_case

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=None, help="libturbofno_ort.so (default: turbofno.get_library_path())")
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--repeats", type=int, default=3, help="alternate single / concurrent this many times")
    ap.add_argument("--shape", default="4,32,64,64", help="N,C,H,W")
    ap.add_argument("--modes", type=int, default=16)
    ap.add_argument("--out", default=None, help="also write the result as Markdown here")
    args = ap.parse_args()

    lib = args.lib or turbofno.get_library_path()
    n, c, h, w = (int(v) for v in args.shape.split(","))
    m = args.modes
    x, weight, bias = random_case(np.random.default_rng(0), (h, w), [m, m], [m, 0], batch=n, cin=c, cout=c)
    model = make_model(weight, bias, modes_low=[m, m], modes_high=[m, 0])
    model.ir_version = min(model.ir_version, 10)
    model_bytes = model.SerializeToString()
    single = [make_session(lib, model_bytes, 1)]
    multi = [make_session(lib, model_bytes, 1) for _ in range(args.sessions)]
    for s in single + multi:  # warm up (tables, arenas)
        s.run(None, {"x": x})

    rows = []
    for r in range(args.repeats):
        one, cores1 = throughput(single, x, args.seconds)
        many, coresN = throughput(multi, x, args.seconds)
        rows.append((one, many, many / one, cores1, coresN))
        print(f"repeat {r}: 1 session {one:.1f} calls/s ({cores1:.2f} cores), {args.sessions} sessions "
              f"{many:.1f} calls/s ({coresN:.2f} cores), ratio {many / one:.2f}", flush=True)

    ratios = sorted(r[2] for r in rows)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    lines = [
        f"# ORT CPU sessions: {args.sessions} concurrent sessions vs one (intra_op_num_threads=1)",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, commit {commit}, library {lib}",
        f"- onnxruntime {ort.__version__}, Python {platform.python_version()}, CPUs usable: "
        f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}, "
        f"load average at the end: {', '.join(str(v) for v in load)}",
        f"- layer: x {n}x{c}x{h}x{w}, modes ({m}+{m}) x {m}, fp32; {args.seconds:g} s per measurement",
        "",
        f"| repeat | 1 session (calls/s) | {args.sessions} sessions (calls/s) | ratio | CPU cores used, 1 session | "
        f"CPU cores used, {args.sessions} sessions |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {i} | {a:.1f} | {b:.1f} | {q:.2f} | {c1:.2f} | {cn:.2f} |" for i, (a, b, q, c1, cn) in enumerate(rows)]
    lines += ["", f"median ratio: {ratios[len(ratios) // 2]:.2f}"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
