"""TensorRT deployment: the SpectralConv and PointwiseMLP plugin library and engine building.

    turbofno.trt.library_path()                       # .../turbofno/lib/libturbofno_trt.so
    turbofno.trt.build_engine("model.onnx", fp16=True, workspace=1 << 30, output="model.engine")
    turbofno trt build model.onnx -o model.engine --fp16 --shapes x:1x1x64x64,8x1x64x64,32x1x64x64
    trtexec --onnx=model.onnx --dynamicPlugins=$(turbofno trt lib) --saveEngine=model.engine

The exporter's ONNX files parse unchanged: TensorRT's ONNX parser maps the unknown node
`SpectralConv` (and `PointwiseMLP`) to the plugin of that name, version `plugin_version` ("1": the IPluginV3 plugin;
"1-legacy": the IPluginV2DynamicExt one) and namespace `plugin_namespace` (""). TensorRT is imported
lazily; without it every TensorRT call raises TensorRTUnavailable and the CLI exits non-zero.
"""
from __future__ import annotations

import argparse
import sys
from typing import Mapping, Sequence

from turbofno import _op
from turbofno._library import get_library_path

PLUGIN_NAME = _op.OP_TYPE
PLUGIN_VERSION = _op.PLUGIN_VERSION  # the IPluginV3 creator (TensorRT 10+)
LEGACY_PLUGIN_VERSION = "1-legacy"   # the IPluginV2DynamicExt creator in the same library
PLUGIN_NAMESPACE = _op.PLUGIN_NAMESPACE
MLP_PLUGIN_NAME = _op.MLP_OP_TYPE    # same versions and namespace as SpectralConv's
HEADERS_VERSION = "10.14.1"          # TensorRT headers the packaged library is compiled against

Shapes = Mapping[str, Sequence[Sequence[int]]]  # input name -> (min, opt, max) dims


class TensorRTUnavailable(RuntimeError):
    """TensorRT (its Python package or a working installation) is not available."""


def library_path() -> str:
    """Absolute path of libturbofno_trt.so (FileNotFoundError when this build has none)."""
    return get_library_path("trt")


def import_tensorrt():
    """The tensorrt module, or TensorRTUnavailable with the reason."""
    try:
        import tensorrt  # noqa: PLC0415 (lazy on purpose)
    except ImportError as err:
        raise TensorRTUnavailable(
            "TensorRT is not installed: the `tensorrt` Python package cannot be imported "
            f"({err}). Install TensorRT 10 (e.g. `pip install tensorrt` on a machine with an NVIDIA "
            "driver), or build engines with trtexec: see docs/tensorrt.md") from err
    except Exception as err:  # the PyPI stub raises other errors when its libraries are missing
        raise TensorRTUnavailable(f"TensorRT is installed but cannot be loaded: {err}") from err
    return tensorrt


def load_plugin_library(trt=None, path: str | None = None):
    """Registers our creators with TensorRT's plugin registry (IPluginRegistry::loadLibrary)."""
    trt = trt or import_tensorrt()
    path = path or library_path()
    handle = trt.get_plugin_registry().load_library(path)
    if handle is None:
        raise RuntimeError(f"TensorRT could not load the plugin library {path} "
                           "(already loaded, or built for another TensorRT major version)")
    return handle


def parse_shapes(spec: str) -> dict[str, tuple[list[int], list[int], list[int]]]:
    """'x:1x1x64x64,4x1x64x64,8x1x64x64;y:...' -> {'x': (min, opt, max)}; one shape means min=opt=max."""
    shapes: dict[str, tuple[list[int], list[int], list[int]]] = {}
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        name, sep, dims = part.rpartition(":")
        if not sep or not name:
            raise ValueError(f"bad shape spec {part!r}; expected name:min[,opt,max] with dims like 1x3x64x64")
        triple = [[int(v) for v in s.split("x")] for s in dims.split(",")]
        if len(triple) == 1:
            triple *= 3
        if len(triple) != 3:
            raise ValueError(f"bad shape spec {part!r}: give one shape or min,opt,max")
        shapes[name] = (triple[0], triple[1], triple[2])
    return shapes


def build_engine(onnx_path: str, *, fp16: bool = False, bf16: bool = False, workspace: int | None = None,
                 shapes: Shapes | None = None, output: str | None = None, verbose: bool = False) -> bytes:
    """Parses `onnx_path` with TensorRT's ONNX parser (our plugin loaded) and builds a serialized engine.

    fp16 / bf16 allow those precisions (the plugin runs in the type TensorRT picks for its inputs);
    workspace caps the workspace pool in bytes; shapes gives (min, opt, max) dims per dynamic input
    (required when an input has dynamic dims). Returns the plan bytes and writes them to `output`.
    """
    trt = import_tensorrt()
    logger = trt.Logger(trt.Logger.VERBOSE if verbose else trt.Logger.WARNING)
    trt.init_libnvinfer_plugins(logger, "")
    load_plugin_library(trt)
    builder = trt.Builder(logger)
    major = int(trt.__version__.split(".")[0])
    flags = 0 if major >= 10 else 1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH)
    network = builder.create_network(flags)
    parser = trt.OnnxParser(network, logger)
    if not parser.parse_from_file(str(onnx_path)):
        errors = "\n".join(str(parser.get_error(i)) for i in range(parser.num_errors))
        raise RuntimeError(f"TensorRT could not parse {onnx_path}:\n{errors}")
    config = builder.create_builder_config()
    if workspace is not None:
        config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, int(workspace))
    if fp16:
        config.set_flag(trt.BuilderFlag.FP16)
    if bf16:
        if not hasattr(trt.BuilderFlag, "BF16"):
            raise TensorRTUnavailable(f"TensorRT {trt.__version__} has no BF16 builder flag")
        config.set_flag(trt.BuilderFlag.BF16)
    dynamic = [network.get_input(i) for i in range(network.num_inputs)
               if any(d < 0 for d in network.get_input(i).shape)]
    if dynamic:
        missing = [t.name for t in dynamic if not shapes or t.name not in shapes]
        if missing:
            raise ValueError(f"inputs {missing} have dynamic dims; pass shapes={{name: (min, opt, max)}} "
                             "(CLI: --shapes name:min,opt,max)")
        profile = builder.create_optimization_profile()
        for t in dynamic:
            lo, opt, hi = shapes[t.name]
            profile.set_shape(t.name, lo, opt, hi)
        config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    if plan is None:
        raise RuntimeError("TensorRT failed to build the engine (see the TensorRT log above)")
    data = bytes(plan)
    if output:
        with open(output, "wb") as f:
            f.write(data)
    return data


def trtexec_command(onnx_path: str, engine_path: str, *, fp16: bool = False, shapes: str | None = None) -> str:
    """The equivalent trtexec command line."""
    cmd = [f"trtexec --onnx={onnx_path}", f"--dynamicPlugins={library_path()}", f"--saveEngine={engine_path}"]
    if fp16:
        cmd.append("--fp16")
    if shapes:
        parsed = parse_shapes(shapes)
        for flag, k in (("--minShapes", 0), ("--optShapes", 1), ("--maxShapes", 2)):
            cmd.append(flag + "=" + ",".join(f"{n}:{'x'.join(map(str, s[k]))}" for n, s in parsed.items()))
    return " ".join(cmd)


# ---- CLI: turbofno trt ----------------------------------------------------------------------------

def _cmd_lib(args) -> int:
    try:
        print(library_path())
    except FileNotFoundError as err:
        print(f"turbofno trt: {err}", file=sys.stderr)
        return 1
    return 0


def _cmd_info(args) -> int:
    try:
        path = library_path()
    except FileNotFoundError as err:
        path = f"not found ({err})"
    print(f"plugin library:   {path}")
    print(f"plugin:           {PLUGIN_NAME}, versions {PLUGIN_VERSION!r} (IPluginV3) and "
          f"{LEGACY_PLUGIN_VERSION!r} (IPluginV2DynamicExt), namespace {PLUGIN_NAMESPACE!r}")
    print(f"plugin:           {MLP_PLUGIN_NAME}, the same versions and namespace")
    print(f"compiled against: TensorRT {HEADERS_VERSION} headers")
    try:
        trt = import_tensorrt()
        print(f"tensorrt module:  {trt.__version__}")
    except TensorRTUnavailable as err:
        print(f"tensorrt module:  {err}")
        return 3
    return 0


def _cmd_build(args) -> int:
    try:
        shapes = parse_shapes(args.shapes) if args.shapes else None
        output = args.output or str(args.onnx).rsplit(".", 1)[0] + ".engine"
        workspace = int(args.workspace * (1 << 20)) if args.workspace is not None else None
        build_engine(args.onnx, fp16=args.fp16, bf16=args.bf16, workspace=workspace, shapes=shapes, output=output,
                     verbose=args.verbose)
    except TensorRTUnavailable as err:
        print(f"turbofno trt build: {err}", file=sys.stderr)
        try:
            print("without the TensorRT Python package, trtexec does the same:\n  "
                  + trtexec_command(args.onnx, args.output or "model.engine", fp16=args.fp16, shapes=args.shapes),
                  file=sys.stderr)
        except (FileNotFoundError, ValueError):
            pass
        return 3
    except (FileNotFoundError, ValueError, RuntimeError) as err:
        print(f"turbofno trt build: {err}", file=sys.stderr)
        return 1
    print(f"wrote {output}")
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("trt", help="TensorRT: plugin library path, engine building",
                                   description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="trt_command", metavar="ACTION")
    p_lib = sub.add_parser("lib", help="print the plugin library path (for trtexec --dynamicPlugins=...)")
    p_lib.set_defaults(func=_cmd_lib)
    p_info = sub.add_parser("info", help="plugin names/versions and whether TensorRT is importable")
    p_info.set_defaults(func=_cmd_info)
    p_build = sub.add_parser("build", help="build a TensorRT engine from an exported ONNX model")
    p_build.add_argument("onnx", help="ONNX model with SpectralConv nodes (from `turbofno export`)")
    p_build.add_argument("-o", "--output", help="engine file (default: the model name with .engine)")
    p_build.add_argument("--fp16", action="store_true", help="allow fp16 kernels")
    p_build.add_argument("--bf16", action="store_true", help="allow bf16 kernels (TensorRT 10+)")
    p_build.add_argument("--workspace", type=float, help="workspace pool limit in MiB")
    p_build.add_argument("--shapes", help="profile for dynamic inputs: name:min,opt,max (dims like 1x1x64x64; "
                                          "several inputs separated by ';')")
    p_build.add_argument("--verbose", action="store_true", help="TensorRT verbose log")
    p_build.set_defaults(func=_cmd_build)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="turbofno")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["trt", *(argv if argv is not None else sys.argv[1:])])
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
