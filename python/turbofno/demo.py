"""`turbofno demo`: a bundled FNO, exported with TurboFNO's op, run in ONNX Runtime and checked.

For each model: load the checkpoint, solve a few fresh problems with the repo's solver (ground
truth), predict with PyTorch, export to ONNX (one SpectralConv node per spectral layer, fused with
its skip and activation), run in ONNX Runtime with our op library (CUDA EP when available), compare
ORT with PyTorch and both with the solver, time per sample, and plot input / truth / prediction /
error to a PNG.

On the CPU it times PyTorch against ORT with host feeds. On CUDA (fp32, TF32 off on both sides) it
times PyTorch eager, PyTorch CUDA-graph replay, ORT with IOBinding on device buffers and ORT with
its CUDA graph (a static-batch export), and checks each ORT output against PyTorch.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
import traceback

from turbofno import timing

DEMO_SPLIT = 2  # data splits: 0 train, 1 test, 2 + seed for the demo's fresh samples
FIELD_NAMES = {"darcy": ("permeability a", "pressure u"), "burgers": ("u(x, 0)", "u(x, {t_end:g})"),
               "navier_stokes": ("vorticity w(x, 0)", "vorticity w(x, {t_end:g})")}  # by solver


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("demo", help="run a bundled FNO through the exporter and ONNX Runtime, check and time it",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="all", help="bundled model name (darcy, burgers, navier_stokes) or 'all' (default)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: onnxruntime's CUDA provider when installed (PyTorch on CUDA when its build has it), else CPU")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("turbofno-demo-out"),
                   help="output folder for the ONNX files, plots and summary.json (default ./turbofno-demo-out)")
    p.add_argument("--batch", type=int, default=8, help="fresh solver samples, also the inference batch (default 8)")
    p.add_argument("--threads", type=int, default=0,
                   help="CPU threads for both PyTorch and onnxruntime (default: all cores)")
    p.add_argument("--seed", type=int, default=0, help="seed of the fresh samples (default 0)")
    p.add_argument("--min-time", type=float, default=1.0, help="seconds spent timing each runtime (default 1)")
    p.add_argument("--no-fuse", dest="fuse", action="store_false",
                   help="export plain SpectralConv nodes (do not fold skip / bias / activation into them)")
    p.set_defaults(func=run)


class _Step:
    """Prints a progress line before a step and its duration after it."""

    def __init__(self, tag: str, what: str):
        self.tag, self.what = tag, what

    def __enter__(self):
        print(f"[{self.tag}] {self.what} ...", flush=True)
        self.start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            print(f"[{self.tag}]   done in {time.perf_counter() - self.start:.1f} s", flush=True)
        return False


def _pick_device(requested: str) -> tuple[str, list[str]]:
    """(torch device, onnxruntime providers). ORT takes its CUDA provider whenever it has one (auto, cuda);
    PyTorch runs on CUDA when its build has it, else on the CPU (the latency lines name both)."""
    import onnxruntime as ort
    import torch

    ort_cuda = "CUDAExecutionProvider" in ort.get_available_providers()
    torch_device = "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cpu":
        return "cpu", ["CPUExecutionProvider"]
    if requested == "cuda" and not ort_cuda:
        raise RuntimeError("--device cuda needs onnxruntime's CUDAExecutionProvider (install onnxruntime-gpu); "
                           "use --device cpu")
    if ort_cuda:
        return torch_device, ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return "cpu", ["CPUExecutionProvider"]


def _plot(path: pathlib.Path, name: str, recipe: dict, x, truth, pred, err_torch: float, err_ort: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    error = pred - truth
    fig, axes = plt.subplots(1, 4, figsize=(17, 4))
    x_name, y_name = (n.format(**recipe) for n in FIELD_NAMES.get(recipe["solver"], ("input", "output")))
    titles = [f"input: {x_name}", f"truth (solver): {y_name}", f"prediction (ORT + TurboFNO), rel-L2 {err_ort:.2%}",
              "error (prediction - truth)"]
    if x.ndim == 2:
        lim = max(abs(float(error.min())), abs(float(error.max()))) or 1.0
        vmin, vmax = float(truth.min()), float(truth.max())
        for ax, field, kw in ((axes[0], x, dict(cmap="viridis")), (axes[1], truth, dict(cmap="magma", vmin=vmin, vmax=vmax)),
                              (axes[2], pred, dict(cmap="magma", vmin=vmin, vmax=vmax)),
                              (axes[3], error, dict(cmap="RdBu_r", vmin=-lim, vmax=lim))):
            im = ax.imshow(field.T, origin="lower", extent=(0, 1, 0, 1), **kw)
            fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    else:
        grid = np.arange(x.size) / x.size
        axes[0].plot(grid, x, color="tab:blue")
        axes[1].plot(grid, truth, color="black")
        axes[2].plot(grid, truth, color="black", lw=3, alpha=0.3, label="truth")
        axes[2].plot(grid, pred, color="tab:red", lw=1.2, label="prediction")
        axes[2].legend(loc="best", fontsize=8)
        axes[3].plot(grid, error, color="tab:red")
        for ax in axes:
            ax.set_xlabel("x")
            ax.grid(alpha=0.3)
    for ax, title in zip(axes, titles):
        ax.set_title(title, fontsize=10)
    fig.suptitle(f"{name}: FNO vs solver on a fresh sample (PyTorch rel-L2 {err_torch:.2%})", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _run_model(name: str, args, device: str, providers: list[str], threads: int) -> dict:
    import numpy as np
    import torch

    from turbofno.export import export
    from turbofno.session import make_session
    from turbofno.zoo.checkpoints import Normalizer, load_model, relative_l2
    from turbofno.zoo.recipes import make_samples

    tag = f"demo {name}"
    with _Step(tag, "loading the bundled checkpoint"):
        model, config = load_model(name)
        model = model.to(device)
        norm = Normalizer(config["normalization"])
    recipe = config["recipe"]
    grid = "x".join([str(recipe["size"])] * len(config["fno"]["n_modes"]))
    with _Step(tag, f"solving {args.batch} fresh {recipe['solver']} problems on a {grid} grid (seed {args.seed})"):
        x_phys, truth = make_samples(recipe, DEMO_SPLIT + args.seed, range(args.batch))
    x_in = norm.encode_input(x_phys).astype(np.float32)

    with _Step(tag, f"PyTorch prediction ({device})"), torch.inference_mode():
        x_t = torch.from_numpy(x_in).to(device)
        y_torch = model(x_t).float().cpu().numpy()

    onnx_path = args.out / f"{name}.onnx"
    with _Step(tag, f"exporting to {onnx_path} with turbofno.export (fused layers: {args.fuse})"):
        # export works on a CPU copy; the model itself stays on `device`. Pointwise Conv1d nodes: the
        # exporter's length rule for the CUDA EP (MatMul where that is faster), Conv for the CPU EP (0-5 % faster)
        cuda_ep = providers[0] == "CUDAExecutionProvider"
        report = export(model, torch.from_numpy(x_in[:1]), onnx_path, dynamic_batch=True, validate=False,
                        fuse=args.fuse, verbose=False, conv1x1_as_matmul=None if cuda_ep else False,
                        fuse_mlp=getattr(args, "fuse_mlp", True))
    spectral_nodes = report.spectral_nodes

    with _Step(tag, f"creating the ONNX Runtime session ({providers[0]})"):
        session = make_session(onnx_path, providers=providers, intra_op_num_threads=threads)
        feed_name = session.get_inputs()[0].name
        y_ort = session.run(None, {feed_name: x_in})[0]

    diff = np.abs(y_ort.astype(np.float64) - y_torch)
    ort_vs_torch_rel = float(np.linalg.norm(diff) / np.linalg.norm(y_torch))
    pred_torch, pred_ort = norm.decode_output(y_torch.astype(np.float64)), norm.decode_output(y_ort.astype(np.float64))
    err_torch, err_ort = relative_l2(pred_torch, truth), relative_l2(pred_ort, truth)

    cuda = providers[0] == "CUDAExecutionProvider" and device == "cuda"
    gpu = {}
    with _Step(tag, f"timing PyTorch and ORT, batch {args.batch}" + ("" if cuda else f", {threads} thread(s)")):
        torch_run, _ = timing.torch_eager(model, x_t)
        t_torch = timing.median_ms(torch_run, min_time=args.min_time) / 1e3
        if cuda:
            gpu = _gpu_variants(name, args, model, x_t, x_in, y_torch, session, onnx_path.with_suffix(".static.onnx"),
                                y_ort.shape)
            t_ort = gpu["ort_iobinding_ms"] / 1e3
        else:
            t_ort = timing.median_ms(timing.ort_host(session, x_in)[0], min_time=args.min_time) / 1e3

    png = args.out / f"{name}.png"
    with _Step(tag, f"plotting to {png}"):
        _plot(png, name, recipe, x_phys[0, 0], truth[0, 0], pred_ort[0, 0], float(err_torch[0]), float(err_ort[0]))

    result = dict(model=name, grid=grid, parameters=int(config.get("parameters", 0)), batch=args.batch,
                  device=device, provider=session.get_providers()[0], threads=threads, spectral_nodes=spectral_nodes,
                  ort_vs_torch_max_abs=float(diff.max()), ort_vs_torch_rel_l2=ort_vs_torch_rel,
                  torch_vs_solver_rel_l2=float(err_torch.mean()), ort_vs_solver_rel_l2=float(err_ort.mean()),
                  card_test_rel_l2=float(config["test"]["rel_l2_mean"]),
                  torch_ms_per_sample=1e3 * t_torch / args.batch, ort_ms_per_sample=1e3 * t_ort / args.batch,
                  fused_layers=len(report.fused), onnx=str(onnx_path.resolve()), plot=str(png.resolve()), **gpu)
    print(f"[{tag}] {spectral_nodes} SpectralConv node(s); ORT vs PyTorch: max abs {result['ort_vs_torch_max_abs']:.2e}, "
          f"rel-L2 {ort_vs_torch_rel:.2e}", flush=True)
    print(f"[{tag}] vs solver (rel-L2, mean of {args.batch}): PyTorch {result['torch_vs_solver_rel_l2']:.4f}, "
          f"ORT {result['ort_vs_solver_rel_l2']:.4f} (model card: {result['card_test_rel_l2']:.4f} on the test set)", flush=True)
    print(f"[{tag}] latency per sample: PyTorch ({device}) {result['torch_ms_per_sample']:.3f} ms, "
          f"ORT + TurboFNO ({result['provider']}{', IOBinding' if cuda else ''}) {result['ort_ms_per_sample']:.3f} ms "
          f"({t_torch / t_ort:.2f}x)", flush=True)
    if cuda:
        b = args.batch
        print(f"[{tag}] CUDA, batch {b}, ms per batch (fp32, TF32 off): PyTorch eager {1e3 * t_torch:.3f}, "
              f"PyTorch CUDA graph {gpu['torch_graph_ms']:.3f}, ORT IOBinding {gpu['ort_iobinding_ms']:.3f}, "
              f"ORT CUDA graph {gpu.get('ort_graph_ms', float('nan')):.3f}; best ORT vs PyTorch graph "
              f"{gpu['torch_graph_ms'] / gpu['ort_best_ms']:.2f}x", flush=True)
        print(f"[{tag}] ORT vs PyTorch rel-L2: IOBinding {gpu['ort_iobinding_rel_l2']:.2e}, CUDA graph "
              f"{gpu.get('ort_graph_rel_l2', float('nan')):.2e}", flush=True)
    return result


def _gpu_variants(name, args, model, x_t, x_in, y_torch, session, static_path, out_shape) -> dict:
    """PyTorch CUDA-graph replay, ORT IOBinding and ORT CUDA graph: times (ms per batch) and the
    relative L2 of each ORT output against PyTorch."""
    import numpy as np
    import torch

    from turbofno.export import export
    from turbofno.session import make_session

    def rel(y):
        return float(np.linalg.norm(np.asarray(y, np.float64) - y_torch) / np.linalg.norm(y_torch))

    out = {}
    replay, _ = timing.torch_cuda_graph(model, x_t)
    out["torch_graph_ms"] = timing.median_ms(replay, min_time=args.min_time)
    run, fetch = timing.ort_iobinding(session, x_in, out_shape)
    out["ort_iobinding_ms"] = timing.median_ms(run, min_time=args.min_time)
    out["ort_iobinding_rel_l2"] = rel(fetch())
    # ORT's CUDA graph needs every node on the CUDA EP and fixed shapes: an export with every axis static
    # (batch and spatial), so no Shape / Range / Concat shape arithmetic lands on the CPU.
    try:
        export(model, torch.from_numpy(x_in), static_path, dynamic_batch=False, dynamic_spatial=False,
               validate=False, fuse=args.fuse, verbose=False, fuse_mlp=getattr(args, "fuse_mlp", True))
        graph_session = make_session(static_path, providers=[("CUDAExecutionProvider", {"enable_cuda_graph": "1"})])
        run_g, fetch_g = timing.ort_iobinding(graph_session, x_in, out_shape)
        run_g()  # captures
        out["ort_graph_ms"] = timing.median_ms(run_g, min_time=args.min_time)
        out["ort_graph_rel_l2"] = rel(fetch_g())
    except Exception as err:  # noqa: BLE001 - reported; the other columns stand
        print(f"[demo {name}] ORT CUDA graph unavailable: {type(err).__name__}: {err}", flush=True)
    out["ort_best_ms"] = min(out["ort_iobinding_ms"], out.get("ort_graph_ms", float("inf")))
    return out


def _summary_table(results: list[dict]) -> str:
    head = ("model", "grid", "ORT-vs-torch max abs", "rel-L2 vs solver (torch / ORT)", "ms/sample torch", "ms/sample ORT", "speedup")
    rows = [(r["model"], r["grid"], f"{r['ort_vs_torch_max_abs']:.1e}",
             f"{r['torch_vs_solver_rel_l2']:.4f} / {r['ort_vs_solver_rel_l2']:.4f}",
             f"{r['torch_ms_per_sample']:.3f}", f"{r['ort_ms_per_sample']:.3f}",
             f"{r['torch_ms_per_sample'] / r['ort_ms_per_sample']:.2f}x") for r in results]
    widths = [max(len(str(c)) for c in col) for col in zip(head, *rows)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*head)] + [fmt.format(*row) for row in rows])


def run(args) -> int:
    from turbofno.zoo.checkpoints import available

    models = available()
    if not models:
        print("error: no bundled checkpoints found in turbofno/zoo/checkpoints (is the package installed completely?)",
              file=sys.stderr)
        return 1
    names = models if args.model == "all" else [args.model]
    unknown = [n for n in names if n not in models]
    if unknown:
        print(f"error: unknown model {unknown[0]!r}; bundled: {', '.join(models)} (or 'all')", file=sys.stderr)
        return 2
    if args.batch < 1:
        print("error: --batch must be at least 1", file=sys.stderr)
        return 2
    try:
        from turbofno import get_library_path

        lib = get_library_path("ort")
    except FileNotFoundError as err:
        print(f"error: {err}\nBuild it with `pip install .` from the repository (see scripts/demo.sh), or for a dev "
              "build: cmake -S . -B build -G Ninja && cmake --build build, then TURBOFNO_LIB_DIR=build.", file=sys.stderr)
        return 1
    try:
        with _Step("demo", "importing torch, neuraloperator and onnxruntime"):
            import torch

            import neuralop  # noqa: F401
            import onnxruntime  # noqa: F401
            from turbofno.export import export  # noqa: F401
    except ImportError as err:
        print(f"error: {err}; install the demo extra: pip install '.[demo]'", file=sys.stderr)
        return 1
    threads = args.threads or os.cpu_count() or 1
    torch.set_num_threads(threads)
    try:
        device, providers = _pick_device(args.device)
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"[demo] op library {lib}; PyTorch on {device}; onnxruntime providers {providers}; {threads} CPU thread(s)",
          flush=True)
    if device == "cpu" and providers[0] == "CUDAExecutionProvider":
        print("[demo] note: this PyTorch has no CUDA, so the latency comparison is PyTorch on CPU vs ORT on CUDA", flush=True)
    if device == "cuda":
        timing.set_torch_fp32_exact()
        print("[demo] fp32 with TF32 off on both sides (PyTorch matmul + cuDNN; ORT CUDA EP use_tf32=0)", flush=True)
    if args.fuse:
        from turbofno.session import fused_layer_error

        why = fused_layer_error(providers)
        if why:
            args.fuse = False
            print(f"[demo] note: fused layers do not run here ({why.splitlines()[0][:200]}); exporting plain "
                  "SpectralConv nodes", flush=True)
    from turbofno.session import pointwise_mlp_error

    why = pointwise_mlp_error(providers)  # the exporter checks the CPU EP only; the demo runs on `providers`
    args.fuse_mlp = why is None
    if why:
        print(f"[demo] note: PointwiseMLP does not run here ({why.splitlines()[0][:200]}); channel MLPs stay "
              "Conv nodes", flush=True)

    results, failed = [], []
    for name in names:
        try:
            results.append(_run_model(name, args, device, providers, threads))
        except Exception as err:  # noqa: BLE001 - report, go on with the next model, exit non-zero
            if os.environ.get("TURBOFNO_DEBUG"):
                traceback.print_exc()
            print(f"error: demo of {name!r} failed: {type(err).__name__}: {err} "
                  "(TURBOFNO_DEBUG=1 shows the traceback)", file=sys.stderr)
            failed.append(name)
    if not results:
        return 1
    summary = args.out / "summary.json"
    summary.write_text(json.dumps(results, indent=2) + "\n")
    print("\n" + _summary_table(results))
    for r in results:
        print(f"plot: {r['plot']}")
    print(f"summary: {summary.resolve()}")
    if failed:
        print(f"error: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0
