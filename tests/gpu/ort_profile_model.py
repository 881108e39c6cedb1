"""Where a whole exported model spends its time in ONNX Runtime's CUDA EP (GPU machine):

    python3 tests/gpu/ort_profile_model.py MODEL BATCH [--fuse 0|1]

MODEL is a name from bench/configs/model_bench.json. Exports it statically at BATCH, runs it with
IOBinding and ORT's profiler, and prints the time per op type and the slowest nodes (kernel time as
ORT records it, summed over the timed runs).
"""
import argparse
import collections
import json
import tempfile
from pathlib import Path

import torch
from model_export import export_static
from turbofno import timing
from turbofno.session import make_session

ap = argparse.ArgumentParser()
ap.add_argument("model")
ap.add_argument("batch", type=int)
ap.add_argument("--fuse", type=int, default=1)
ap.add_argument("--runs", type=int, default=5)
a = ap.parse_args()
tmp = Path(tempfile.mkdtemp())
model, x, path = export_static(a.model, a.batch, a.fuse, folder=tmp)
with torch.no_grad():
    out_shape = list(model(x).shape)
sess = make_session(path, providers=["CUDAExecutionProvider"], enable_profiling=True,
                    profile_file_prefix=str(tmp / "prof"))
run, _ = timing.ort_iobinding(sess, x.numpy(), out_shape)
for _ in range(a.runs + 2):
    run()
prof = json.loads(Path(sess.end_profiling()).read_text())
by_type, by_node = collections.Counter(), collections.Counter()
for ev in prof:
    if ev.get("cat") == "Node" and ev["name"].endswith("_kernel_time"):
        op = ev.get("args", {}).get("op_name", "?")
        by_type[op] += ev["dur"]
        by_node[(ev["name"][: -len("_kernel_time")], op)] += ev["dur"]
total = sum(by_type.values())
runs = a.runs + 2
print(f"{a.model} batch {a.batch} fuse={a.fuse}: {total / runs / 1e3:.3f} ms of node time per run")
for op, us in by_type.most_common():
    print(f"  {op:20s} {us / runs / 1e3:8.3f} ms  {100 * us / total:5.1f} %")
print("slowest nodes:")
for (name, op), us in by_node.most_common(12):
    print(f"  {name[:60]:60s} {op:14s} {us / runs / 1e3:8.3f} ms")
