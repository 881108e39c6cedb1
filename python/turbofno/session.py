"""ONNX Runtime sessions with the TurboFNO op library registered."""
from __future__ import annotations

import os
from typing import Mapping, Sequence, Union

from turbofno._library import get_library_path


def default_providers() -> list[str]:
    """CUDA (then CPU) when the installed onnxruntime has the CUDA provider, else CPU."""
    import onnxruntime as ort

    available = ort.get_available_providers()
    if "CUDAExecutionProvider" in available:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def make_session_options(**opts):
    """SessionOptions with the library registered; keyword arguments set SessionOptions attributes
    (e.g. intra_op_num_threads=2, graph_optimization_level=...)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    for key, value in opts.items():
        if not hasattr(options, key):
            raise TypeError(f"onnxruntime.SessionOptions has no attribute {key!r}")
        setattr(options, key, value)
    options.register_custom_ops_library(get_library_path("ort"))
    return options


def fp32_exact_providers(providers: Sequence, allow_tf32: bool = False) -> list:
    """`providers` with ONNX Runtime's CUDA EP set to fp32-exact math unless allow_tf32.

    ORT's CUDA EP runs MatMul / Conv / Gemm in TF32 by default (`use_tf32=1`): 10-bit mantissa
    products. On the bundled FNOs that alone moves the whole-model output 1.5e-4 to 1e-3 (relative
    L2) away from PyTorch fp32, against ~2e-7 with TF32 off (H200, README "Accuracy on the GPU").
    An explicit `use_tf32` in a provider's options is kept as given.
    """
    out = []
    for p in providers:
        name, options = (p, {}) if isinstance(p, str) else (p[0], dict(p[1]))
        if name == "CUDAExecutionProvider":
            options.setdefault("use_tf32", "1" if allow_tf32 else "0")
            out.append((name, options))
        else:
            out.append(p)
    return out


def fix_input_shapes(model: Union[str, os.PathLike, bytes], input_shapes: Mapping[str, Sequence[int]]) -> bytes:
    """`model` (a path or serialized bytes) with the named graph inputs' symbolic axes set to the given
    sizes, serialized. Every other input or output axis that shares a fixed axis' symbol gets its size
    too; stale intermediate shapes are dropped (ORT infers them again). With all input sizes known,
    ORT's constant folding turns the shape arithmetic of a dynamic-axes export (Shape -> Gather ->
    Concat ...) into constants, so no node is left on the CPU and the CUDA EP's graph capture
    (`enable_cuda_graph`) can run the model. Raises ValueError naming the input when a name, rank or a
    fixed axis disagrees."""
    import onnx

    proto = onnx.load_from_string(model) if isinstance(model, bytes) else onnx.load(os.fspath(model))
    graph = proto.graph
    initializers = {init.name for init in graph.initializer}
    inputs = {i.name: i for i in graph.input if i.name not in initializers}
    unknown = sorted(set(input_shapes) - set(inputs))
    if unknown:
        raise ValueError(f"input_shapes names {unknown}, but the model's inputs are {sorted(inputs)}")
    symbols: dict[str, int] = {}
    for name, shape in input_shapes.items():
        dims = inputs[name].type.tensor_type.shape.dim
        shape = [int(v) for v in shape]
        if len(dims) != len(shape):
            raise ValueError(f"input_shapes[{name!r}] has {len(shape)} axes, the model's input {name!r} has {len(dims)}")
        for axis, (dim, size) in enumerate(zip(dims, shape)):
            if size < 1:
                raise ValueError(f"input_shapes[{name!r}] axis {axis} is {size}: sizes must be positive")
            if dim.HasField("dim_value") and dim.dim_value != size:
                raise ValueError(f"input_shapes[{name!r}] axis {axis} is {size}, but the model fixes it to {dim.dim_value}")
            if dim.HasField("dim_param"):
                if symbols.setdefault(dim.dim_param, size) != size:
                    raise ValueError(f"input_shapes gives the axis {dim.dim_param!r} two sizes ({symbols[dim.dim_param]}, {size})")
    for value in list(graph.input) + list(graph.output):
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param") and dim.dim_param in symbols:
                dim.dim_value = symbols[dim.dim_param]  # clears dim_param (a oneof)
    for value in list(graph.output):  # output sizes computed from fixed inputs are inferred again
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param"):
                dim.Clear()
    del graph.value_info[:]
    return proto.SerializeToString()


def make_session(model: Union[str, os.PathLike, bytes], providers: Sequence | None = None, *,
                 allow_tf32: bool = False, input_shapes: Mapping[str, Sequence[int]] | None = None, **opts):
    """onnxruntime.InferenceSession for `model` (a path or serialized bytes) with SpectralConv available.

    providers   : as for InferenceSession (names or (name, options) pairs); default: default_providers().
    allow_tf32  : let ORT's CUDA EP use TF32 for MatMul / Conv (its own default; faster on tensor cores,
                  but ~1e-4 to 1e-3 relative error on whole FNOs). Default False: the CUDA EP gets
                  use_tf32=0, so results match PyTorch fp32 (~1e-7). No effect on the CPU EP.
    input_shapes: {input name: shape}: run a model exported with dynamic axes at these sizes only
                  (fix_input_shapes). Its shape arithmetic then folds into constants, which ORT's CUDA
                  graph (`enable_cuda_graph`) needs; without it a dynamic-axes model refuses graph capture.
    opts        : SessionOptions attributes (see make_session_options).
    """
    import onnxruntime as ort

    options = make_session_options(**opts)
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if input_shapes:
        model = fix_input_shapes(model, input_shapes)
    chosen = fp32_exact_providers(list(providers) if providers else default_providers(), allow_tf32)
    try:
        return ort.InferenceSession(model, options, providers=chosen)
    except Exception as err:  # noqa: BLE001 - ORT raises its own exception types
        if "graph capture" in str(err):
            raise RuntimeError(
                f"{err}\nturbofno: ORT's CUDA graph needs every node on the CUDA EP; a model exported with dynamic "
                "spatial (or batch) axes computes its shapes on the CPU. Pass the input sizes to make_session "
                "(input_shapes={'x': (batch, channels, *spatial)}: the shape arithmetic then folds into constants), "
                "or export for one size with turbofno.export(..., dynamic_batch=False, dynamic_spatial=False) "
                "(CLI: --static-batch --static-spatial), or drop enable_cuda_graph.") from err
        raise


def fused_layer_error(providers: Sequence) -> str | None:
    """None when a fused SpectralConv node (op version 2: skip weight + activation) runs under
    `providers` with this library, else the error text (e.g. an older library without op version 2):
    exporters then fall back to plain nodes (export(..., fuse=False))."""
    import numpy as np

    from turbofno.reference import make_model, random_case

    x, w, b, sk = random_case(np.random.default_rng(0), (8, 6), [2, 3], [2, 0], batch=1, cin=2, cout=2, skip=True)
    model = make_model(w, b, modes_low=[2, 3], modes_high=[2, 0], skip_weight=sk, activation=1, x_shape=list(x.shape))
    try:
        session = make_session(model.SerializeToString(), providers=providers, log_severity_level=3)
        session.run(None, {"x": x})
    except Exception as err:  # noqa: BLE001 - any failure means "not usable here"; the text says why
        return str(err)
    return None


def pointwise_mlp_error(providers: Sequence) -> str | None:
    """None when a PointwiseMLP node (ai.turbofno opset 2, docs/op.md) runs under `providers` with this
    library and matches the float64 reference, else why not (e.g. a library built before the op):
    the exporter then skips the MLP fusion (export(..., fuse_mlp=False)) and says so in its summary."""
    import numpy as np

    from turbofno.reference import make_mlp_model, pointwise_mlp

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5)).astype(np.float32)
    r = rng.standard_normal((2, 2, 5)).astype(np.float32)
    w1, b1 = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    w2, b2 = rng.standard_normal((2, 4)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    gate = rng.standard_normal(2).astype(np.float32)
    model = make_mlp_model(w1, w2, b1, b2, gate=gate, residual=True, hidden_activation=1, activation=3)
    try:
        session = make_session(model.SerializeToString(), providers=providers, log_severity_level=3)
        got = session.run(None, {"x": x, "r": r})[0]
    except Exception as err:  # noqa: BLE001 - any failure means "not usable here"; the text says why
        return str(err).strip().splitlines()[0][:300] if str(err).strip() else type(err).__name__
    want = pointwise_mlp(x, w1, b1, w2, b2, r, gate, hidden_activation=1, activation=3)
    err = float(np.abs(got - want).max()) if got.shape == want.shape else float("inf")
    if not err <= 1e-4:
        return f"PointwiseMLP runs but differs from the reference (shape {got.shape}, max abs err {err:.3g})"
    return None
