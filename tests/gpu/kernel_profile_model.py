"""GPU kernels of one whole model, PyTorch vs our export in ORT's CUDA EP (GPU machine):

    python3 tests/gpu/kernel_profile_model.py MODEL BATCH [MODEL BATCH ...] [--fuse 0|1]

MODEL is a name from bench/configs/model_bench.json. For each model: PyTorch eager forward and our static
export in ORT (IOBinding, no CUDA graph) each run under torch.profiler (CUPTI sees every kernel in the
process, ORT's too). Prints, per side, the kernel count per forward, the summed kernel time, the wall
time of a CUDA-graph replay (PyTorch graph / ORT graph) and the kernels grouped by name, so the
difference between the two sides can be read kernel by kernel. fp32, TF32 off on both sides.
"""
import argparse
import sys

import torch
from cuda_kernel_times import kernel_times
from model_export import export_static
from turbofno import timing
from turbofno.session import make_session

RUNS = 5


def kernels(fn):
    """{kernel name: (count, total us)} per call of fn, from RUNS profiled calls."""
    return kernel_times(fn, RUNS)


def graph_ms(fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(30):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def report(label, ks, wall):
    n = sum(c for c, _ in ks.values())
    t = sum(us for _, us in ks.values())
    print(f"  {label}: {n:.0f} kernels, {t:.1f} us of kernel time; CUDA-graph replay {wall * 1e3:.1f} us "
          f"({(wall * 1e3 - t) / max(n, 1):.2f} us per kernel above their sum)")
    for name, (c, us) in sorted(ks.items(), key=lambda kv: -kv[1][1])[:18]:
        print(f"    {us:8.1f} us  x{c:4.1f}  {name}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pairs", nargs="+")
    ap.add_argument("--fuse", type=int, default=1)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for name, batch in zip(a.pairs[::2], a.pairs[1::2]):
        batch = int(batch)
        model, x, path = export_static(name, batch, a.fuse)
        gm = model.cuda()
        xc = x.cuda()
        with torch.no_grad():
            out_shape = list(gm(xc).shape)

            def eager():
                gm(xc)

            ks_t = kernels(eager)
            g = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    gm(xc)
            torch.cuda.current_stream().wait_stream(s)
            with torch.cuda.graph(g):
                gm(xc)
            wall_t = graph_ms(g.replay)
        sess = make_session(path, providers=["CUDAExecutionProvider"])
        run, _ = timing.ort_iobinding(sess, x.numpy(), out_shape)
        ks_o = kernels(run)
        sess_g = make_session(path, providers=[("CUDAExecutionProvider", {"enable_cuda_graph": "1"})])
        run_g, _ = timing.ort_iobinding(sess_g, x.numpy(), out_shape)
        wall_o = graph_ms(run_g)
        print(f"== {name} batch {batch} (fuse={a.fuse})")
        report("PyTorch", ks_t, wall_t)
        report("ours in ORT", ks_o, wall_o)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
