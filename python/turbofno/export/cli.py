"""`turbofno export`: a trained PyTorch FNO (+ checkpoint) -> ONNX with SpectralConv nodes."""
from __future__ import annotations

import argparse
import os
import sys

_EPILOG = """examples:
  turbofno export --model neuralop.models:FNO \\
      --model-kwargs '{"n_modes": [16, 16], "in_channels": 3, "out_channels": 1, "hidden_channels": 32}' \\
      --checkpoint fno.pt --input-shape 1,3,64,64 --out fno.onnx
  turbofno export --model my_model.py:build --checkpoint ckpt.pt --checkpoint-key model --input-shape 1,1,128 --out m.onnx
"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "export", help="export a PyTorch FNO to ONNX with TurboFNO SpectralConv nodes",
        description="Convert every spectral convolution of a PyTorch model to ai.turbofno::SpectralConv, export "
                    "the model with torch.onnx (dynamic batch and, where the model allows, dynamic spatial sizes), "
                    "and check the ONNX file in ONNX Runtime.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True,
                   help="FILE.py:NAME or MODULE:NAME (a factory function or class returning the model), "
                        "or a whole pickled model file (needs --unsafe-load)")
    p.add_argument("--model-kwargs", default=None, metavar="JSON", help="keyword arguments for the factory, as JSON")
    p.add_argument("--checkpoint", default=None, help="state dict to load (torch.save file)")
    p.add_argument("--checkpoint-key", default=None,
                   help="key of the state dict inside the checkpoint (default: the file itself, or one of "
                        "state_dict / model_state_dict / model / net / module)")
    p.add_argument("--unsafe-load", action="store_true",
                   help="allow torch.load to unpickle arbitrary objects (only for files you trust)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--input-shape", metavar="N,C,S1[,S2[,S3]]",
                     help="shape of the example input (random normal, --seed)")
    src.add_argument("--input", metavar="FILE", help="example input as .npy or a torch.save'd tensor")
    p.add_argument("--out", required=True, help="output .onnx path")
    p.add_argument("--static-batch", action="store_true", help="keep the batch size of the example fixed")
    spatial = p.add_mutually_exclusive_group()
    spatial.add_argument("--dynamic-spatial", dest="dynamic_spatial", action="store_const", const=True, default=None,
                         help="require symbolic spatial axes (fail, saying why, if the model does not allow them); "
                              "default: symbolic when the model allows it, else the example's sizes")
    spatial.add_argument("--static-spatial", dest="dynamic_spatial", action="store_const", const=False,
                         help="keep the spatial sizes of the example fixed")
    p.add_argument("--no-validate", action="store_true", help="skip the ONNX Runtime check")
    p.add_argument("--rtol", type=float, default=None, help="relative L2 tolerance of the check (default 1e-4)")
    p.add_argument("--opset", type=int, default=None, help="default-domain ONNX opset (default: torch.onnx's)")
    p.add_argument("--allow-fft", action="store_true",
                   help="export FFTs outside recognized layers as ONNX DFT instead of failing")
    p.add_argument("--no-fuse", action="store_true",
                   help="keep plain SpectralConv nodes (do not fold each layer's 1x1 skip, bias and activation "
                        "into the node; fused nodes need a TurboFNO library with op version 2)")
    p.add_argument("--no-fuse-mlp", action="store_true",
                   help="keep pointwise channel MLPs as Conv / activation / Add nodes (do not fold them into "
                        "PointwiseMLP nodes, which need a TurboFNO library with that op; independent of --no-fuse)")
    conv = p.add_mutually_exclusive_group()
    conv.add_argument("--keep-conv", dest="conv_as_matmul", action="store_const", const=False, default=None,
                      help="keep every pointwise Conv1d node as Conv (default: MatMul + Add where the flattened "
                           "length is >= 8192, faster there in ORT's CUDA EP; Conv below)")
    conv.add_argument("--conv-as-matmul", dest="conv_as_matmul", action="store_const", const=True,
                      help="write every pointwise Conv1d node as MatMul + Add")
    p.add_argument("--fp16", action="store_true",
                   help="write a float16 graph (turbofno.export.fp16: the data path and its weights in float16, float16 "
                        "inputs and outputs); checked against the float32 export on the example (relative L2 <= 1e-2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random example input")
    p.add_argument("--quiet", action="store_true", help="print only errors")
    p.set_defaults(func=run)


def run(args) -> int:
    import torch

    from turbofno.export import exporter, loading
    from turbofno.export.errors import ExportError
    from turbofno.export.fp16 import Fp16ConversionError

    try:
        model = loading.build_model(args.model, args.model_kwargs, args.unsafe_load)
        if args.checkpoint:
            loading.load_checkpoint(model, args.checkpoint, args.checkpoint_key, args.unsafe_load)
        if args.input:
            example = loading.load_input(args.input)
        else:
            generator = torch.Generator().manual_seed(args.seed)
            example = torch.randn(loading.parse_shape(args.input_shape), generator=generator)
        model = model.float()
        report = exporter.export(
            model, example, args.out, dynamic_batch=not args.static_batch, dynamic_spatial=args.dynamic_spatial,
            validate=not args.no_validate,
            rtol=exporter.DEFAULT_RTOL if args.rtol is None else args.rtol, opset=args.opset,
            verbose=not args.quiet, allow_fft=args.allow_fft, fuse=not args.no_fuse,
            conv1x1_as_matmul=args.conv_as_matmul, fuse_mlp=not args.no_fuse_mlp)
        if args.fp16 and report.ok:
            _convert_fp16(args.out, example, validate=not args.no_validate, quiet=args.quiet)
    except (ExportError, Fp16ConversionError, loading.LoadError, FileNotFoundError) as err:
        print(f"turbofno export: error: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # noqa: BLE001 - anything else: one line, the traceback on request
        if os.environ.get("TURBOFNO_DEBUG"):
            raise
        print(f"turbofno export: error: {type(err).__name__}: {err} (set TURBOFNO_DEBUG=1 for the traceback)",
              file=sys.stderr)
        return 1
    return 0 if report.ok else 1


def _convert_fp16(path: str, example, *, validate: bool, quiet: bool) -> None:
    """Rewrites the exported file at `path` as its float16 form (checked against the float32 one unless validate is
    False); the float32 file is kept only while checking."""
    import tempfile

    from turbofno.export import fp16

    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(suffix=".fp16.onnx", dir=directory)
    os.close(fd)
    try:
        fp16.convert_to_fp16(path, tmp)
        msg = "float16 graph written"
        if validate:
            inputs = [t.detach().cpu().float().numpy() for t in (example if isinstance(example, (tuple, list)) else (example,))]
            rel = fp16.check_fp16(path, tmp, inputs)
            msg += f" (relative L2 {rel:.2e} against the float32 graph on the example)"
        os.replace(tmp, path)
        if not quiet:
            print(f"[export] {msg}: {path}")
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
