"""Whole model in ORT's CUDA EP with its pointwise Conv1d nodes as Conv (cuDNN) and as MatMul + Add
(turbofno.export.conv1x1), same export otherwise (GPU machine):

    python3 tests/gpu/conv_vs_matmul.py MODEL BATCH [MODEL BATCH ...]

MODEL is a name from bench/configs/model_bench.json. Static export (ORT CUDA graph), IOBinding; prints
the median ms per batch of each variant and their relative L2 difference.
"""
import copy
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from model_bench import build, find_spec  # noqa: E402
from turbofno import timing  # noqa: E402
from turbofno.export import export  # noqa: E402
from turbofno.export.conv1x1 import conv1x1_to_matmul  # noqa: E402
from turbofno.session import make_session  # noqa: E402

args = sys.argv[1:]
for name, batch in zip(args[::2], map(int, args[1::2])):
    model, shape = build(find_spec(name))
    x = torch.randn(batch, *shape)
    tmp = Path(tempfile.mkdtemp())
    export(model, x, tmp / "conv.onnx", dynamic_batch=False, dynamic_spatial=False, validate=False, verbose=False,
           conv1x1_as_matmul=False)
    proto = onnx.load(str(tmp / "conv.onnx"))
    mm = copy.deepcopy(proto)
    n = conv1x1_to_matmul(mm)
    onnx.save(mm, str(tmp / "matmul.onnx"))
    with torch.no_grad():
        out_shape = list(model(x[:1]).shape)
    out_shape[0] = batch
    res = {}
    for tag in ("conv", "matmul"):
        for graph in (False, True):
            sess = make_session(tmp / f"{tag}.onnx", providers=[("CUDAExecutionProvider", {"enable_cuda_graph": "1" if graph else "0"})])
            run, out = timing.ort_iobinding(sess, x.numpy(), out_shape)
            run()
            res[(tag, graph)] = (timing.median_ms(run, min_time=0.3), np.asarray(out()))
            del sess, run
    diff = float(np.linalg.norm(res[("matmul", True)][1] - res[("conv", True)][1]) / np.linalg.norm(res[("conv", True)][1]))
    print(f"{name} b{batch}: {n} Conv1d rewritten | ms IOBinding conv {res[('conv', False)][0]:.3f} matmul "
          f"{res[('matmul', False)][0]:.3f} | ms CUDA graph conv {res[('conv', True)][0]:.3f} matmul "
          f"{res[('matmul', True)][0]:.3f} | rel diff {diff:.1e}", flush=True)
