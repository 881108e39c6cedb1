"""Fused FNO layer vs the unfused chain, in ONNX Runtime, same weights, same session options.

y_fused = SpectralConv(x, W, b, W_skip, activation=gelu) (op version 2) against
y_chain = Gelu(Add(SpectralConv(x, W, b), Conv1x1(x, W_skip))), the graph an FNO layer exports to
without fusion. Both branches are built in one model; each is timed in its own session holding
only that branch (ORT runs every node of a session whatever output is fetched: measured with
`--check-pruning`, fetching one of two branches cost the sum of both). Sessions are created with
identical options in one process, and alternate run by run. Both outputs are first checked against
the float64 reference (rel-L2 <= 1e-5 fp32), then timed (median after warm-up).

CPU: host numpy feeds (what a CPU deployment does). CUDA (--device cuda): IOBinding with device
buffers, TF32 off, with and without ORT's CUDA graph.

--depth L (default 10 on CUDA, 1 on CPU; 1 = off) adds rows for L layers chained in one model (x -> layer -> ... ->
layer, every layer sharing the weights; fused: L nodes, unfused: 4 L nodes), one session run per L layers,
shown per layer (ms per run / L): ORT's per-run host cost shared by L layers as in a deployed model (the
one-layer rows pay it per layer). Checked against the float64 layer applied L times.

    python bench/fused_layer_bench.py --device cpu --threads 2 --out bench/results/fused-cpu
    python bench/fused_layer_bench.py --device cuda --out $OUT/fused-cuda
    (dev tree: TURBOFNO_LIB_DIR=build PYTHONPATH=python python bench/fused_layer_bench.py ...)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_meta import run_meta  # noqa: E402

GELU = 1
TOLERANCE = {np.float32: 1e-5, np.float16: 3e-3}


def build_model(n, c, h, w, p, q, k, dtype, rng, depth=1):
    """Weights plus the two-branch model, each branch `depth` layers deep (sharing the weights); returns (model,
    x, reference of y)."""
    from onnx import TensorProto, helper, numpy_helper

    from turbofno import _op
    from turbofno.reference import spectral_conv

    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    weight = (rng.standard_normal((c, c, p + q, k, 2)) / c).astype(dtype)
    bias = rng.standard_normal(c).astype(dtype)
    skip = (rng.standard_normal((c, c)) / np.sqrt(c)).astype(dtype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    attrs = {_op.ATTR_MODES_LOW: [p, k], _op.ATTR_MODES_HIGH: [q, 0], _op.ATTR_PLUGIN_VERSION: _op.PLUGIN_VERSION,
             _op.ATTR_PLUGIN_NAMESPACE: _op.PLUGIN_NAMESPACE}
    nodes = []
    for i in range(depth):  # layer i reads the previous layer's output; the last writes y_fused / y_chain
        last = i == depth - 1
        xf, yf = ("x" if i == 0 else f"f{i - 1}"), ("y_fused" if last else f"f{i}")
        xc, yc, t = ("x" if i == 0 else f"c{i - 1}"), ("y_chain" if last else f"c{i}"), f"_{i}"
        nodes += [
            helper.make_node(_op.OP_TYPE, [xf, "W", "b", "Wskip"], [yf], name="fused" + t, domain=_op.DOMAIN,
                             **attrs, **{_op.ATTR_ACTIVATION: GELU}),
            helper.make_node(_op.OP_TYPE, [xc, "W", "b"], ["spec" + t], name="spectral" + t, domain=_op.DOMAIN,
                             **attrs),
            helper.make_node("Conv", [xc, "Wskip4"], ["skipped" + t], name="skip" + t, kernel_shape=[1, 1]),
            helper.make_node("Add", ["spec" + t, "skipped" + t], ["pre" + t], name="add" + t),
            helper.make_node("Gelu", ["pre" + t], [yc], name="gelu" + t),
        ]
    inits = [numpy_helper.from_array(weight, "W"), numpy_helper.from_array(bias, "b"),
             numpy_helper.from_array(skip, "Wskip"), numpy_helper.from_array(skip.reshape(c, c, 1, 1), "Wskip4")]
    graph = helper.make_graph(nodes, "fused_vs_chain", [helper.make_tensor_value_info("x", elem, [n, c, h, w])],
                              [helper.make_tensor_value_info(o, elem, [n, c, h, w]) for o in ("y_fused", "y_chain")],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20),
                                                    helper.make_opsetid(_op.DOMAIN, _op.OPSET_VERSION_FUSED)])
    model.ir_version = 10
    ref = x
    for _ in range(depth):
        ref = spectral_conv(ref, weight, bias, skip, modes_low=[p, k], modes_high=[q, 0], activation=GELU)
    assert TensorProto.FLOAT  # onnx imported
    return model, x, ref


def time_ms(fn, warmup: int, reps: int, sync=None) -> list[float]:
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def time_pair(fns: dict, warmup: int, reps: int, syncs: dict | None = None) -> dict:
    """Median-ready run times of several functions, interleaved run by run (same machine state)."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    out = {k: [] for k in fns}
    for _ in range(reps):
        for key, fn in fns.items():
            out[key] += time_ms(fn, 0, 1, (syncs or {}).get(key))
    return out


def rel_l2(got, ref) -> float:
    got = np.asarray(got, np.float64)
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def checked_rel_l2(out, got, ref, dtype) -> float:
    """rel-L2 of `got` against the float64 reference; stops the run when above the dtype's bound (never timed)."""
    err = rel_l2(got, ref)
    if not err <= TOLERANCE[dtype]:
        raise SystemExit(f"{out}: rel-L2 {err:.2e} vs float64 > {TOLERANCE[dtype]:g}")
    return err


def bench_cpu(model, x, ref, dtype, threads, warmup, reps):
    from turbofno.session import make_session

    res, fns = {}, {}
    for out in ("y_fused", "y_chain"):
        sess = make_session(_only_output(model, out).SerializeToString(), providers=["CPUExecutionProvider"],
                            intra_op_num_threads=threads, inter_op_num_threads=1, log_severity_level=3)
        y = sess.run(None, {"x": x})[0]
        res[out] = {"rel_l2": checked_rel_l2(out, y, ref, dtype)}
        fns[out] = lambda s=sess: s.run(None, {"x": x})
    for out, times in time_pair(fns, warmup, reps).items():
        res[out]["ms_all"] = times
    return res


def bench_cuda(model, x, ref, dtype, warmup, reps, cuda_graph: bool):
    import onnxruntime as ort

    from turbofno.session import make_session

    res, fns, syncs = {}, {}, {}
    for out in ("y_fused", "y_chain"):
        m = _only_output(model, out)
        opts = {"use_tf32": "0", "enable_cuda_graph": "1" if cuda_graph else "0"}
        sess = make_session(m.SerializeToString(), providers=[("CUDAExecutionProvider", opts)], log_severity_level=3)
        x_dev = ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)
        y_dev = ort.OrtValue.ortvalue_from_shape_and_type(list(ref.shape), dtype, "cuda", 0)
        bind = sess.io_binding()
        bind.bind_ortvalue_input("x", x_dev)
        bind.bind_ortvalue_output(out, y_dev)
        sess.run_with_iobinding(bind)
        res[out] = {"rel_l2": checked_rel_l2(out, y_dev.numpy(), ref, dtype)}
        fns[out] = lambda s=sess, b=bind: s.run_with_iobinding(b)
        syncs[out] = bind.synchronize_outputs
    for out, times in time_pair(fns, warmup, reps, syncs).items():
        res[out]["ms_all"] = times
    return res


def _only_output(model, out):
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(model)
    keep = [o for o in m.graph.output if o.name == out]
    del m.graph.output[:]
    m.graph.output.extend(keep)
    needed, nodes = {out}, []
    for node in reversed(list(m.graph.node)):
        if set(node.output) & needed:
            nodes.append(node)
            needed |= set(node.input)
    del m.graph.node[:]
    m.graph.node.extend(reversed(nodes))
    inits = [i for i in m.graph.initializer if i.name in needed]
    del m.graph.initializer[:]
    m.graph.initializer.extend(inits)
    return m


def check_pruning(model, x, threads) -> dict:
    """Fetching y_fused alone must cost about a fused run, not fused + chain (ORT prunes the graph)."""
    from turbofno.session import make_session

    both = make_session(model.SerializeToString(), providers=["CPUExecutionProvider"], intra_op_num_threads=threads,
                        log_severity_level=3)
    alone = make_session(_only_output(model, "y_fused").SerializeToString(), providers=["CPUExecutionProvider"],
                         intra_op_num_threads=threads, log_severity_level=3)
    t_fetch = statistics.median(time_ms(lambda: both.run(["y_fused"], {"x": x}), 2, 7))
    t_alone = statistics.median(time_ms(lambda: alone.run(None, {"x": x}), 2, 7))
    return {"fetch_fused_from_two_branch_ms": t_fetch, "fused_only_model_ms": t_alone}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--threads", type=int, default=2, help="CPU: op and ORT intra-op threads")
    parser.add_argument("--config", type=Path, default=ROOT / "bench" / "configs" / "fused_layer.json")
    parser.add_argument("--quick", action="store_true", help="tiny shapes, few runs (CI smoke test)")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--warmup", type=int, default=None)
    parser.add_argument("--fp16", action="store_true", help="also fp16 rows")
    parser.add_argument("--depth", type=int, default=None,
                        help="also time DEPTH chained layers per session run, per layer (default 10 on cuda, 1 on cpu; "
                             "1 = one layer only)")
    parser.add_argument("--check-pruning", action="store_true", help="CPU: verify ORT runs only the fetched branch")
    parser.add_argument("--out", type=Path, required=True, help="output folder (JSON + markdown)")
    args = parser.parse_args(argv)
    os.environ["TURBOFNO_NUM_THREADS"] = str(args.threads)
    cfg = json.loads(args.config.read_text())
    shapes = cfg["quick" if args.quick else args.device]
    reps = args.reps or (3 if args.quick else cfg.get("reps", 20))
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    meta = run_meta(args.device, threads=args.threads, reps=reps, warmup=warmup, quick=args.quick)
    rng = np.random.default_rng(0)
    rows = []
    dtypes = [np.float32] + ([np.float16] if args.fp16 else [])
    depth = args.depth if args.depth is not None else (10 if args.device == "cuda" else 1)
    if depth < 1:
        parser.error(f"--depth must be >= 1, got {depth}")
    depths = [1] + ([depth] if depth > 1 else [])
    for s in shapes:
        n, c, h, w, p, q, k = (s[key] for key in ("batch", "channels", "h", "w", "p", "q", "k"))
        for dtype, layers in ((dt, L) for dt in dtypes for L in depths):
            model, x, ref = build_model(n, c, h, w, p, q, k, dtype, rng, layers)
            name = f"{n}x{c}x{h}x{w} p{p} q{q} k{k} {np.dtype(dtype).name}"
            per = "" if layers == 1 else f" x{layers} (per layer)"
            variants = {}
            if args.device == "cpu":
                variants["ORT CPU" + per] = bench_cpu(model, x, ref, dtype, args.threads, warmup, reps)
            else:
                variants["ORT CUDA IOBinding" + per] = bench_cuda(model, x, ref, dtype, warmup, reps, False)
                variants["ORT CUDA graph" + per] = bench_cuda(model, x, ref, dtype, warmup, reps, True)
            for label, r in variants.items():
                for out in r.values():  # ms per layer
                    out["ms_all"] = [t / layers for t in out["ms_all"]]
                fused = statistics.median(r["y_fused"]["ms_all"])
                chain = statistics.median(r["y_chain"]["ms_all"])
                fused_min, chain_min = min(r["y_fused"]["ms_all"]), min(r["y_chain"]["ms_all"])
                rows.append({"shape": name, "variant": label, "layers": layers, "fused_ms": fused, "chain_ms": chain,
                             "speedup": chain / fused, "fused_min_ms": fused_min, "chain_min_ms": chain_min,
                             "speedup_min": chain_min / fused_min, "rel_l2_fused": r["y_fused"]["rel_l2"],
                             "rel_l2_chain": r["y_chain"]["rel_l2"], "raw": r})
                print(f"{name:38s} {label:34s} fused {fused:8.3f} ms  chain {chain:8.3f} ms  {chain / fused:5.2f}x"
                      f"  (min {fused_min:.3f} / {chain_min:.3f} ms, {chain_min / fused_min:.2f}x)", flush=True)
            if args.check_pruning and args.device == "cpu":
                rows[-1]["pruning"] = check_pruning(model, x, args.threads)
                print("   pruning check:", rows[-1]["pruning"], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fused_layer.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = [f"# Fused layer vs SpectralConv + Conv + Add + Gelu ({args.device}, {meta['date']})", "",
             f"{meta['machine']}; commit {meta['commit']}; onnxruntime {meta['onnxruntime']}; "
             f"median (and minimum) of {reps} after {warmup} warm-up, the two sessions alternating run by run; "
             f"threads {args.threads}."
             + (f" 'xL (per layer)': L layers chained in one model (shared weights), one session run per L layers, "
                "ms per layer = ms per run / L (ORT's per-run cost shared as in a deployed model); checked against "
                "the float64 layer applied L times (same rel-L2 bound)." if depth > 1 else ""), "",
             "| shape (N x C x H x W, modes) | variant | fused ms | unfused chain ms | chain / fused "
             "| fused min ms | chain min ms | chain / fused (min) | rel-L2 fused |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['shape']} | {r['variant']} | {r['fused_ms']:.3f} | {r['chain_ms']:.3f} | "
                     f"{r['speedup']:.2f}x | {r['fused_min_ms']:.3f} | {r['chain_min_ms']:.3f} | "
                     f"{r['speedup_min']:.2f}x | {r['rel_l2_fused']:.1e} |")
    (args.out / "fused_layer.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out / 'fused_layer.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
