"""PointwiseMLP (one fused node) vs the unfused ONNX chain it replaces, ONNX Runtime CPU EP.

Chain (what exporters emit for neuraloperator's ChannelMLP + soft-gating skip):
    Gelu(Add(Mul(g, r), Conv1x1(Gelu(Conv1x1(x, W1, b1)), W2, b2)))   (ONNX Conv with bias, opset-20 Gelu;
    --activation relu: Relu instead, to separate the products from the GELU cost)
Fused:  PointwiseMLP(x, W1, b1, W2, b2, r, g, hidden_activation=act, activation=act).
Same weights and feeds; each graph in its own session with identical options (ORT's full graph
optimisations on, so the chain gets whatever fusions ORT does), runs alternating; both outputs are
first checked against the float64 reference. Reports the median (and min) time per run.

    TURBOFNO_LIB_DIR=build-dev PYTHONPATH=python python bench/mlp_cpu_bench.py --threads 1
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "python"))


ACT_OPS = {1: "Gelu", 3: "Relu"}  # activation value -> ONNX op of the chain


def chain_model(t, x_shape, act_op="Gelu"):
    from onnx import TensorProto, helper, numpy_helper

    cout, ch = t["w2"].shape
    spatial_ones = [1] * (len(x_shape) - 2)
    inits = [numpy_helper.from_array(t["w1"].reshape(*t["w1"].shape, *([1] * (len(x_shape) - 2))), "W1"),
             numpy_helper.from_array(t["b1"], "B1"),
             numpy_helper.from_array(t["w2"].reshape(cout, ch, *spatial_ones), "W2"),
             numpy_helper.from_array(t["b2"], "B2"),
             numpy_helper.from_array(t["gate"].reshape(cout, *spatial_ones), "G")]
    nodes = [helper.make_node("Conv", ["x", "W1", "B1"], ["h0"]),
             helper.make_node(act_op, ["h0"], ["h"]),
             helper.make_node("Conv", ["h", "W2", "B2"], ["o"]),
             helper.make_node("Mul", ["G", "residual"], ["gr"]),
             helper.make_node("Add", ["o", "gr"], ["s"]),
             helper.make_node(act_op, ["s"], ["y"])]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape),
                                               helper.make_tensor_value_info("residual", TensorProto.FLOAT,
                                                                             [x_shape[0], cout, *x_shape[2:]])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9)


def make_session(model, lib, threads):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def bench(spatial, cin, ch, cout, threads, reps, lib, act=1):
    from test_pointwise_mlp import make_mlp_model, mlp_reference, random_tensors

    rng = np.random.default_rng(0)
    t = random_tensors(rng, batch=1, cin=cin, ch=ch, cout=cout, spatial=spatial)
    x_shape = list(t["x"].shape)
    feeds = {"x": t["x"], "residual": t["residual"]}
    ref = mlp_reference(*(t[n] for n in ("x", "w1", "b1", "w2", "b2", "residual", "gate")),
                        hidden_activation=act, activation=act)
    sessions = {
        "fused": make_session(make_mlp_model(t, x_shape=x_shape, residual_shape=list(t["residual"].shape),
                                             hidden_activation=act, activation=act), lib, threads),
        "chain": make_session(chain_model(t, x_shape, ACT_OPS[act]), lib, threads),
    }
    for name, sess in sessions.items():
        y = sess.run(None, feeds)[0]
        err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
        assert err < 1e-5, f"{name}: rel L2 {err:.3g}"
    times = {k: [] for k in sessions}
    for _ in range(5):
        for sess in sessions.values():
            sess.run(None, feeds)
    for _ in range(reps):
        for name, sess in sessions.items():
            t0 = time.perf_counter()
            sess.run(None, feeds)
            times[name].append((time.perf_counter() - t0) * 1e3)
    return {k: (statistics.median(v), min(v)) for k, v in times.items()}


def main(argv=None) -> int:
    import turbofno

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--activation", choices=["gelu", "relu"], default="gelu",
                    help="both activations (the chain uses ONNX Gelu / Relu)")
    args = ap.parse_args(argv)
    lib = turbofno.get_library_path("ort")
    act = {"gelu": 1, "relu": 3}[args.activation]
    print(f"activation={args.activation}, threads={args.threads}, median (min) ms of {args.reps} runs each, alternating")
    print("| shape (N=1) | fused PointwiseMLP | unfused chain | chain / fused |")
    print("|---|---|---|---|")
    for spatial, label in (((64, 64), "C=64, Ch=32, P=64x64"), ((256,), "C=64, Ch=32, P=256")):
        r = bench(spatial, 64, 32, 64, args.threads, args.reps, lib, act)
        (fm, fmin), (cm, cmin) = r["fused"], r["chain"]
        print(f"| {label} | {fm:.3f} ({fmin:.3f}) | {cm:.3f} ({cmin:.3f}) | {cm / fm:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
