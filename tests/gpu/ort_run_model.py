"""Runs one exported model in ORT's CUDA EP (IOBinding, no CUDA graph) RUNS times, for ncu
(tests/gpu/ncu_model.sh): the kernels of the last forward are then the model's kernels, each timed alone.

    python3 tests/gpu/ort_run_model.py MODEL BATCH [--runs 3] [--fuse 0|1]
"""
import argparse

import torch
from model_export import export_static
from turbofno import timing
from turbofno.session import make_session

ap = argparse.ArgumentParser()
ap.add_argument("model")
ap.add_argument("batch", type=int)
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--fuse", type=int, default=1)
a = ap.parse_args()
model, x, path = export_static(a.model, a.batch, a.fuse)
with torch.no_grad():
    out_shape = list(model(x).shape)
sess = make_session(path, providers=["CUDAExecutionProvider"])
run, _ = timing.ort_iobinding(sess, x.numpy(), out_shape)
for _ in range(a.runs):
    torch.full((1,), 3.0, device="cuda")  # a FillFunctor kernel: ncu_model.sh's marker between forwards
    run()
torch.cuda.synchronize()
print(f"ran {a.model} batch {a.batch} {a.runs} times")
