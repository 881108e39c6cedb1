"""`turbofno` command line: one entry point, subcommands live in their own modules.

Each subcommand module exposes `add_parser(subparsers)` that registers its arguments and sets
`func` to a callable taking the parsed args and returning an exit code. Modules import heavy
dependencies (torch, onnx, onnxruntime, tensorrt) lazily, inside `func`.
"""
from __future__ import annotations

import argparse
import importlib
import sys

# subcommand name -> module that implements it
_SUBCOMMANDS = {
    "export": "turbofno.export.cli",
    "rewrite": "turbofno.export.rewrite_cli",
    "demo": "turbofno.demo",
    "trt": "turbofno.trt",
    "info": "turbofno._info",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="turbofno", description="TurboFNO: fused spectral convolution for ONNX Runtime and TensorRT")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in _SUBCOMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name and module_name.startswith(err.name):
                continue  # subcommand not present in this build
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
