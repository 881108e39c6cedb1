"""`turbofno rewrite in.onnx out.onnx`: DFT-based spectral convolutions -> SpectralConv nodes."""
from __future__ import annotations

import sys


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "rewrite", help="replace DFT-based spectral convolutions in an ONNX file by TurboFNO SpectralConv nodes",
        description="Finds regions of ONNX DFT -> per-mode channel mixing -> inverse DFT, identifies their weights "
                    "numerically in ONNX Runtime, replaces each by one ai.turbofno::SpectralConv node, and checks "
                    "the rewritten model against the original. See docs/exporter.md.")
    p.add_argument("input", help="input .onnx")
    p.add_argument("output", help="output .onnx")
    p.add_argument("--input-shape", action="append", default=[], metavar="[NAME=]N,C,S1[,S2[,S3]]",
                   help="shape of a graph input with symbolic non-batch dims (repeatable)")
    p.add_argument("--rtol", type=float, default=1e-4, help="relative L2 tolerance of the checks (default 1e-4)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)


def _shapes(items, model) -> dict:
    shapes = {}
    inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    for item in items:
        name, sep, dims = item.rpartition("=")
        if not sep:
            if len(inputs) != 1:
                raise ValueError(f"--input-shape {item!r}: the model has {len(inputs)} inputs, prefix NAME=")
            name = inputs[0]
        shapes[name] = tuple(int(v) for v in dims.split(",") if v.strip())
    return shapes


def run(args) -> int:
    import onnx

    from turbofno.export.rewrite import RewriteError, rewrite

    try:
        model = onnx.load(args.input)
        _, report = rewrite(model, args.output, input_shapes=_shapes(args.input_shape, model), rtol=args.rtol,
                            seed=args.seed)
    except (RewriteError, ValueError, FileNotFoundError) as err:
        print(f"turbofno rewrite: error: {err}", file=sys.stderr)
        return 1
    if not report.rewritten:
        print("turbofno rewrite: error: no DFT-based spectral convolution could be rewritten; nothing written",
              file=sys.stderr)
        return 1
    return 0
