"""Whole-model benchmark: PyTorch vs the same FNO exported with turbofno.export, in ONNX Runtime.

Models (bench/configs/model_bench.json): the three bundled checkpoints, a neuraloperator TFNO 2D
(64 hidden channels, 4 layers, 128x128, 24 modes) and a 3D FNO (32 channels, 48^3, 12 modes), at
batch 1 and 32. Columns, in ms per batch (median, after warm-up):

  PyTorch eager | PyTorch CUDA graph | torch.compile | ORT CUDA IOBinding | ORT CUDA graph |
  ORT CUDA graph, dynamic export | ORT CPU

The ORT CUDA columns run a static export of the batch's size; "dynamic export" runs the default
dynamic-axes export through make_session(input_shapes=...) (its shape arithmetic folded into constants).

fp32 with TF32 off on both sides (PyTorch matmul + cuDNN; ORT's CUDA EP use_tf32=0). Every ORT
output is checked against PyTorch fp32 (relative L2, in the table) before it is timed. --fp16 adds
an fp16 row per batch: PyTorch fp16 eager / graph (torch.autocast, where cuFFT allows: power-of-two sizes), and the
static export converted by turbofno.export.fp16 (float16 data path, weights and I/O) in ORT (CUDA:
IOBinding and CUDA graph with half buffers; CPU: ORT CPU), each checked against PyTorch fp32 with
FP16_ACCURACY_TOL. On a machine without
CUDA only the CPU columns run (PyTorch eager on CPU, ORT CPU), which is how CI smoke-tests this
script (--quick: tiny models, batch 1 and 2).

Writes model_bench.json, model_bench.md and model_bench.png to --out, with date, GPU and commit. Exit status 1
when an ORT output is above 1e-5 (fp16 rows: 5e-3) (rel-L2) from PyTorch and from PyTorch's CPU forward (accuracy_failures);
PyTorch's own departures (its CUDA forward from its CPU one, torch.compile) are notes in the table only.

    python bench/model_bench.py --out $OUT/model-bench                 # GPU machine, everything
    python bench/model_bench.py --models tfno2d-64ch-128 --out ...     # one model
    python bench/model_bench.py --quick --out /tmp/mb                  # CPU smoke test
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import os
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_meta import run_meta  # noqa: E402

COLUMNS = [  # (key, header)
    ("torch_eager", "PyTorch eager"),
    ("torch_graph", "PyTorch CUDA graph"),
    ("torch_compile", "torch.compile"),
    ("ort_cuda_iobinding", "ORT CUDA IOBinding"),
    ("ort_cuda_graph", "ORT CUDA graph"),
    ("ort_cuda_graph_dynamic", "ORT CUDA graph, dynamic export"),
    ("ort_cpu", "ORT CPU"),
]
ACCURACY_TOL = 1e-5  # fp32 whole-model rel-L2, ORT vs PyTorch (issue 10 target)
FP16_ACCURACY_TOL = 5e-3  # fp16 rows: rel-L2 against PyTorch fp32 (fp16 I/O and weights round at ~5e-4)


def find_spec(name: str, config: Path = ROOT / "bench" / "configs" / "model_bench.json") -> dict:
    """The model entry called `name` in the benchmark config (its full list, not the quick one)."""
    for spec in json.loads(Path(config).read_text())["models"]:
        if spec["name"] == name:
            return spec
    raise KeyError(f"no model {name!r} in {config}")


def build(spec: dict):
    """(model in eval mode on CPU, per-sample input shape)."""
    import torch

    if spec["source"] == "zoo":
        from turbofno.zoo.checkpoints import load_model

        model, config = load_model(spec["name"])
        size = config["recipe"]["size"]
        return model.eval(), [config["fno"]["in_channels"]] + [size] * len(config["fno"]["n_modes"])
    import neuralop.models

    torch.manual_seed(0)
    kwargs = dict(spec["kwargs"])
    kwargs["n_modes"] = tuple(kwargs["n_modes"])
    return getattr(neuralop.models, spec["class"])(**kwargs).eval(), list(spec["input"])


def rel_l2(got, ref) -> float:
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    return float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30))


def add_cpu_reference(row: dict, y_ref, y_cpu) -> None:
    """With PyTorch's CPU forward (y_cpu, on CUDA runs): how far PyTorch's CUDA forward (y_ref) is from it, and a place
    for each ORT output's distance to it (time_cell), which accuracy_failures consults."""
    if y_cpu is not None:
        row["rel_l2"]["torch_cuda_vs_cpu"] = rel_l2(y_ref, y_cpu)
        row["rel_l2_cpu_ref"] = {}


def time_cell(row: dict, key: str, make, y_ref, tol: float, min_time: float, y_cpu=None) -> None:
    """One cell of `row`: make() gives (run, output); the output (when there is one) is checked against y_ref (rel-L2
    into row["rel_l2"], a note above tol) and, with y_cpu, against PyTorch's CPU forward (row["rel_l2_cpu_ref"]); then
    run is timed into row["ms"][key]. An exception becomes a note and the run goes on."""
    from turbofno import timing

    try:
        fn, out = make()
        fn()
        if out is not None:
            got = out()
            err = rel_l2(got, y_ref)
            row["rel_l2"][key] = err
            vs_cpu = ""
            if y_cpu is not None:
                row["rel_l2_cpu_ref"][key] = rel_l2(got, y_cpu)
                vs_cpu = (f" (vs PyTorch on the CPU {row['rel_l2_cpu_ref'][key]:.2e}; PyTorch CUDA vs CPU "
                          f"{row['rel_l2']['torch_cuda_vs_cpu']:.2e})")
            if not err <= tol:
                row["notes"].append(f"{key}: rel-L2 vs PyTorch {err:.2e} > {tol:g}{vs_cpu}")
        row["ms"][key] = timing.median_ms(fn, min_time=min_time)
    except Exception as err:  # noqa: BLE001 - recorded in the table, the run goes on
        row["notes"].append(f"{key}: {type(err).__name__}: {str(err).splitlines()[0][:160]}")
        if os.environ.get("TURBOFNO_DEBUG"):
            traceback.print_exc()


def static_export(model, x, path: Path, fuse: bool, args) -> None:
    """The model exported with every axis static at x's shape (the deployment case of a fixed resolution: a
    dynamic-spatial graph computes shapes on the CPU, which rules out ORT's CUDA graph), unless `path` exists."""
    from turbofno.export import export

    if not path.exists():
        export(model, x, path, dynamic_batch=False, dynamic_spatial=False, validate=False, fuse=fuse, verbose=False,
               fuse_mlp=getattr(args, "fuse_mlp", True))


def bench_model(spec, batches, args, providers_cuda: bool, fuse: bool, tmp: Path) -> list[dict]:
    import torch

    from turbofno import timing
    from turbofno.export import export
    from turbofno.session import make_session

    model, shape = build(spec)
    rows = []
    dyn_path = tmp / f"{spec['name']}.onnx"
    report = export(model, torch.randn(1, *shape), dyn_path, dynamic_batch=True, validate=False, fuse=fuse,
                    verbose=False, fuse_mlp=getattr(args, "fuse_mlp", True))
    cpu_session = make_session(dyn_path, providers=["CPUExecutionProvider"], intra_op_num_threads=args.threads)
    cuda = providers_cuda and torch.cuda.is_available()
    # On CUDA also a PyTorch CPU reference (a copy: .cuda() moves the model in place). The exporter validates
    # against PyTorch on the CPU, so ORT vs CPU and PyTorch CUDA vs CPU tell an export error from a PyTorch
    # CUDA forward that differs from its CPU forward.
    cpu_model = copy.deepcopy(model) if cuda else None
    dev_model = model.cuda() if cuda else model
    for batch in batches:
        row = {"model": spec["name"], "batch": batch, "input": [batch, *shape], "dtype": "fp32",
               "spectral_nodes": report.spectral_nodes, "fused_nodes": len(report.fused), "ms": {}, "rel_l2": {},
               "notes": []}
        g = torch.Generator().manual_seed(batch)
        x = torch.randn(batch, *shape, generator=g)
        x_np = x.numpy()
        x_dev = x.cuda() if cuda else x
        run, fetch = timing.torch_eager(dev_model, x_dev)
        run()
        y_ref = fetch()
        row["ms"]["torch_eager"] = timing.median_ms(run, min_time=args.min_time)
        y_cpu = None
        if cpu_model is not None:
            with torch.inference_mode():
                y_cpu = cpu_model(x).float().numpy()
        add_cpu_reference(row, y_ref, y_cpu)

        def timed(key, make):
            time_cell(row, key, make, y_ref, ACCURACY_TOL, args.min_time, y_cpu)

        if batch in args.cpu_batches or not cuda:
            timed("ort_cpu", lambda: timing.ort_host(cpu_session, x_np))
        if cuda:
            timed("torch_graph", lambda: timing.torch_cuda_graph(dev_model, x_dev))
            if not args.skip_compile:
                def compiled():
                    fn = torch.compile(dev_model, mode=args.compile_mode)
                    return timing.torch_eager(fn, x_dev)
                timed("torch_compile", compiled)
            out_shape = list(y_ref.shape)
            static_path = tmp / f"{spec['name']}-b{batch}.onnx"

            def static_session(**options):  # exported on first use, so an export error lands in the row's notes
                static_export(model, x, static_path, fuse, args)
                return make_session(static_path, providers=[("CUDAExecutionProvider", options)])
            timed("ort_cuda_iobinding", lambda: timing.ort_iobinding(static_session(), x_np, out_shape))
            timed("ort_cuda_graph", lambda: timing.ort_iobinding(static_session(enable_cuda_graph="1"), x_np, out_shape))
            # the default (dynamic-axes) export run at this size: make_session(input_shapes=...) folds its
            # shape arithmetic, so ORT's CUDA graph captures it too (should match the static export's time)
            timed("ort_cuda_graph_dynamic", lambda: timing.ort_iobinding(
                make_session(dyn_path, providers=[("CUDAExecutionProvider", {"enable_cuda_graph": "1"})],
                             input_shapes={cpu_session.get_inputs()[0].name: tuple(x.shape)}), x_np, out_shape))
        rows.append(row)
        print(_row_line(row), flush=True)
        if args.fp16:
            rows.append(fp16_row(spec, model, dev_model, x, x_dev, y_ref, y_cpu, batch, shape, args, cuda, fuse, tmp))
            print(_row_line(rows[-1]), flush=True)
    return rows


def torch_fp16(model):
    """PyTorch's fp16 inference of `model` (on CUDA): the fp32 model under torch.autocast(float16), the form PyTorch
    and neuraloperator document. `model.half()` does not run neuraloperator's FNOs: float32 tensors reach a half
    convolution ("Input type (float) and bias type (c10::Half)": the positional grid cached by the fp32 forward, and
    the spectral conv's output, whose spectrum buffer stays complex64 unless fno_block_precision is "half"). Under
    autocast the convolutions and matmuls run in half; the FFTs take the half activations, which cuFFT allows only for
    power-of-two sizes (other sizes fail, a note in the row). Its weight-cast cache is off, as CUDA-graph capture
    needs."""
    import torch

    class Fp16(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, x):
            with torch.autocast("cuda", dtype=torch.float16, cache_enabled=False):
                return self.model(x)

    return Fp16().eval()


def fp16_row(spec, model, dev_model, x, x_dev, y_ref, y_cpu, batch, shape, args, cuda: bool, fuse: bool,
             tmp: Path) -> dict:
    """The batch's fp16 row: PyTorch in fp16 (CUDA, torch_fp16: autocast) and our export in float16
    (turbofno.export.fp16) in ORT, every output against PyTorch fp32 (y_ref) and, on CUDA, also against PyTorch fp32 on
    the CPU (y_cpu), as in the fp32 row."""
    from turbofno import timing
    from turbofno.export.fp16 import convert_to_fp16
    from turbofno.session import make_session

    row = {"model": spec["name"], "batch": batch, "input": [batch, *shape], "dtype": "fp16", "ms": {}, "rel_l2": {},
           "notes": []}
    add_cpu_reference(row, y_ref, y_cpu)

    def timed(key, make):
        time_cell(row, key, make, y_ref, FP16_ACCURACY_TOL, args.min_time, y_cpu)

    if cuda:
        fp16_model = torch_fp16(dev_model)
        timed("torch_eager", lambda: timing.torch_eager(fp16_model, x_dev))
        timed("torch_graph", lambda: timing.torch_cuda_graph(fp16_model, x_dev))
    fp32_path, fp16_path = tmp / f"{spec['name']}-b{batch}.onnx", tmp / f"{spec['name']}-b{batch}.fp16.onnx"

    def session(providers):  # the static export (made by the fp32 row on CUDA) converted on first use
        if not fp16_path.exists():
            static_export(model, x, fp32_path, fuse, args)
            convert_to_fp16(fp32_path, fp16_path)
        return make_session(fp16_path, providers=providers, intra_op_num_threads=args.threads)

    x16 = x.numpy().astype(np.float16)
    if cuda:
        out_shape = list(y_ref.shape)
        timed("ort_cuda_iobinding", lambda: timing.ort_iobinding(session([("CUDAExecutionProvider", {})]), x16, out_shape))
        timed("ort_cuda_graph", lambda: timing.ort_iobinding(
            session([("CUDAExecutionProvider", {"enable_cuda_graph": "1"})]), x16, out_shape))
    if batch in args.cpu_batches or not cuda:
        timed("ort_cpu", lambda: timing.ort_host(session(["CPUExecutionProvider"]), x16))
    return row


def _fmt(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def _row_line(r) -> str:
    cells = "  ".join(f"{h.split()[-1] if k.startswith('torch') else k.replace('ort_', 'ort:')}={_fmt(r['ms'].get(k))}"
                      for k, h in COLUMNS)
    return f"{r['model']:>18s} b{r['batch']:<3d} {r['dtype']}  {cells}" + (f"  [{'; '.join(r['notes'])}]" if r["notes"] else "")


def best_ort(r) -> float | None:
    vals = [r["ms"][k] for k in ("ort_cuda_iobinding", "ort_cuda_graph", "ort_cuda_graph_dynamic") if k in r["ms"]]
    return min(vals) if vals else None


def write_markdown(rows, meta, path: Path) -> None:
    lines = [f"# Whole-model benchmark ({meta['date']})", "",
             f"{meta['machine']}; commit {meta['commit']}; torch {meta['torch']}, onnxruntime {meta['onnxruntime']}; "
             f"fp32 (TF32 off on both sides on CUDA); ms per batch, median after warm-up; fused layers: {meta['fused']}.", ""]
    if any(r.get("dtype") == "fp16" for r in rows):
        lines += ["fp16 rows: our export converted by turbofno.export.fp16 (float16 weights, inputs and outputs) and PyTorch "
                  "under torch.autocast(float16); every output's rel-L2 is against PyTorch fp32.", ""]
    if meta.get("fuse_note"):
        lines += [f"Note: {meta['fuse_note']}", ""]
    head = "| model | batch | dtype | " + " | ".join(h for _, h in COLUMNS) + \
           " | best ORT CUDA vs PyTorch graph | vs torch.compile | ORT rel-L2 vs PyTorch |"
    lines += [head, "|" + "---|" * (len(COLUMNS) + 6)]
    for r in rows:
        best = best_ort(r)
        graph, comp = r["ms"].get("torch_graph"), r["ms"].get("torch_compile")
        errs = ", ".join(f"{k.replace('ort_', '')} {v:.1e}" for k, v in r["rel_l2"].items()) or "-"
        lines.append(f"| {r['model']} | {r['batch']} | {r['dtype']} | " +
                     " | ".join(_fmt(r["ms"].get(k)) for k, _ in COLUMNS) +
                     f" | {f'{graph / best:.2f}x' if best and graph else '-'} | {f'{comp / best:.2f}x' if best and comp else '-'}"
                     f" | {errs} |")
    notes = [f"- {r['model']} b{r['batch']} {r['dtype']}: {n}" for r in rows for n in r["notes"]]
    if notes:
        lines += ["", "Notes:"] + notes
    path.write_text("\n".join(lines) + "\n")


def write_plot(rows, meta, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fp32 = [r for r in rows if r["dtype"] == "fp32"]
    labels = [f"{r['model']}\nb{r['batch']}" for r in fp32]
    keys = [k for k, _ in COLUMNS if any(k in r["ms"] for r in fp32)]
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(fp32)), 4.5))
    width = 0.8 / max(1, len(keys))
    for i, key in enumerate(keys):
        vals = [r["ms"].get(key, float("nan")) for r in fp32]
        ax.bar([j + i * width for j in range(len(fp32))], vals, width, label=dict(COLUMNS)[key])
    ax.set_yscale("log")
    ax.set_ylabel("ms per batch (log)")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(fp32))])
    ax.set_xticklabels(labels, fontsize=8)
    ax.legend(fontsize=8, ncol=3)
    ax.set_title(f"Whole-model latency, fp32 TF32 off - {meta['machine']} - {meta['commit']} - {meta['date'][:10]}",
                 fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(rows, meta, out: Path) -> None:
    """model_bench.md and model_bench.png in `out` (no PNG without matplotlib: make it elsewhere with --from-json)."""
    write_markdown(rows, meta, out / "model_bench.md")
    try:
        write_plot(rows, meta, out / "model_bench.png")
    except ImportError as err:  # a GPU machine without matplotlib
        print(f"no PNG ({err}); make it elsewhere: python bench/model_bench.py --from-json model_bench.json --out DIR")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--config", type=Path, default=ROOT / "bench" / "configs" / "model_bench.json")
    parser.add_argument("--quick", action="store_true", help="tiny models, batch 1 and 2 (CI smoke test)")
    parser.add_argument("--models", nargs="*", default=None, help="only these model names")
    parser.add_argument("--batches", type=int, nargs="*", default=None)
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                        help="auto: CUDA columns when PyTorch and onnxruntime both have CUDA")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds of timing per cell")
    parser.add_argument("--threads", type=int, default=0, help="ORT CPU / PyTorch CPU threads (default: all)")
    parser.add_argument("--cpu-batches", type=int, nargs="*", default=[1],
                        help="batches that get the ORT CPU column on a CUDA run (default 1)")
    parser.add_argument("--skip-compile", action="store_true", help="no torch.compile column")
    parser.add_argument("--compile-mode", default="default", help="torch.compile mode (default 'default')")
    parser.add_argument("--fp16", action="store_true",
                        help="also an fp16 row per batch: PyTorch under torch.autocast(float16) (CUDA) and the "
                             "float16 export in ORT")
    parser.add_argument("--no-fuse", dest="fuse", action="store_false", help="export plain SpectralConv nodes")
    parser.add_argument("--from-json", type=Path, default=None,
                        help="only rewrite model_bench.md and .png in --out from this model_bench.json (no runs)")
    args = parser.parse_args(argv)
    if args.from_json:
        data = json.loads(args.from_json.read_text())
        args.out.mkdir(parents=True, exist_ok=True)
        write_report(data["rows"], data["meta"], args.out)
        return 0

    import onnxruntime as ort
    import torch

    from turbofno import timing
    from turbofno.session import fused_layer_error

    args.threads = args.threads or os.cpu_count() or 1
    torch.set_num_threads(args.threads)
    os.environ.setdefault("TURBOFNO_NUM_THREADS", str(args.threads))
    cfg = json.loads(args.config.read_text())
    section = cfg["quick"] if args.quick else cfg
    specs = [m for m in section["models"] if not args.models or m["name"] in args.models]
    if not specs:
        parser.error(f"no model matches {args.models}")
    batches = args.batches or section["batches"]
    has_cuda = torch.cuda.is_available() and "CUDAExecutionProvider" in ort.get_available_providers()
    if args.device == "cuda" and not has_cuda:
        parser.error("--device cuda needs PyTorch with CUDA and onnxruntime's CUDAExecutionProvider")
    cuda = has_cuda and args.device != "cpu"
    if cuda:
        if hasattr(ort, "preload_dlls"):
            ort.preload_dlls()
        timing.set_torch_fp32_exact()
    fuse, fuse_note = args.fuse, ""
    if fuse:
        why = fused_layer_error(["CUDAExecutionProvider"] if cuda else ["CPUExecutionProvider"])
        if why:
            fuse, fuse_note = False, f"fused layers do not run here ({why.splitlines()[0][:200]}); plain SpectralConv nodes"
            print("note:", fuse_note, flush=True)
    from turbofno.session import pointwise_mlp_error

    why = pointwise_mlp_error(["CUDAExecutionProvider"] if cuda else ["CPUExecutionProvider"])
    args.fuse_mlp = why is None  # the exporter checks the CPU EP only; the bench runs on this one
    if why:
        mlp_note = f"PointwiseMLP does not run here ({why.splitlines()[0][:200]}); channel MLPs stay Conv nodes"
        fuse_note = f"{fuse_note}; {mlp_note}" if fuse_note else mlp_note
        print("note:", mlp_note, flush=True)
    meta = run_meta("cuda" if cuda else "cpu", threads=args.threads, min_time=args.min_time, fused=fuse,
                    fuse_note=fuse_note, quick=args.quick, compile_mode=None if args.skip_compile else args.compile_mode)
    print(f"model bench on {meta['machine']}, commit {meta['commit']}, batches {batches}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            rows += bench_model(spec, batches, args, cuda, fuse, Path(tmp))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "model_bench.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    write_report(rows, meta, args.out)
    print((args.out / "model_bench.md").read_text())
    bad = accuracy_failures(rows)
    for why in bad:
        print("accuracy failure:", why, flush=True)
    return 1 if bad else 0


def accuracy_failures(rows: list[dict]) -> list[str]:
    """The rows' accuracy problems that are ours: an ORT output above ACCURACY_TOL from PyTorch, unless it is within
    it of PyTorch's CPU forward (then PyTorch's CUDA forward is the one that departs, e.g. cuFFT's fp32 C2R on the
    TFNO: README "Accuracy"). torch.compile's own error is reported in the notes but fails nothing."""
    bad = []
    for r in rows:
        tol = FP16_ACCURACY_TOL if r.get("dtype") == "fp16" else ACCURACY_TOL
        for key, err in r["rel_l2"].items():
            if not key.startswith("ort_") or err <= tol:
                continue
            vs_cpu = r.get("rel_l2_cpu_ref", {}).get(key)
            if vs_cpu is None or not vs_cpu <= tol:
                bad.append(f"{r['model']} b{r['batch']} {r['dtype']}: {key} rel-L2 {err:.2e}"
                           + ("" if vs_cpu is None else f", vs PyTorch on the CPU {vs_cpu:.2e}"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
