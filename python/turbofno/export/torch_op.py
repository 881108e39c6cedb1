"""`torch.ops.turbofno.spectral_conv`: the SpectralConv op (docs/op.md) as a PyTorch custom op.

Eager calls run the float64 reference (turbofno.reference.spectral_conv; the result in the input's
dtype and device); `torch.export` sees an opaque node
with a fake (shape-only) implementation; `onnx_translation_table()` maps that node to one
`ai.turbofno::SpectralConv` node for torch.onnx's dynamo exporter.
"""
from __future__ import annotations

import functools
from typing import Optional, Sequence

import torch

from turbofno import _op as _names
from turbofno import _rules
from turbofno import reference as _reference

def norm_code(norm: str | None) -> int:
    """torch.fft norm name -> the op's INT `norm` attribute."""
    name = "backward" if norm is None else norm
    if name not in _names.NORMS:
        raise ValueError(f"fft norm must be one of {sorted(_names.NORMS)}, got {norm!r}")
    return _names.NORMS[name]


def check_args(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
               modes_low: Sequence[int], modes_high: Sequence[int], norm: int, separable: int,
               output_size: Optional[Sequence[int]] = None) -> None:
    """The validation rules of docs/op.md (turbofno._rules) plus one dtype for all tensors; ValueError."""
    _rules.check_shapes(tuple(x.shape), tuple(weight.shape), None if bias is None else tuple(bias.shape),
                        modes_low, modes_high, norm, separable, output_size)
    dtypes = {x.dtype, weight.dtype} | ({bias.dtype} if bias is not None else set())
    if len(dtypes) != 1:
        raise ValueError(f"x, weight and bias must share one dtype, got {sorted(map(str, dtypes))}")


def spectral_conv_reference(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                            modes_low: Sequence[int], modes_high: Sequence[int],
                            norm: int = 0, separable: int = 0,
                            output_size: Optional[Sequence[int]] = None) -> torch.Tensor:
    """The layer on torch tensors: the float64 reference (turbofno.reference.spectral_conv, the one
    implementation in Python), returned in x's dtype on x's device."""
    check_args(x, weight, bias, modes_low, modes_high, norm, separable, output_size)

    def host(t):
        return None if t is None else t.detach().to(device="cpu", dtype=torch.float64).numpy()

    y = _reference.spectral_conv(host(x), host(weight), host(bias), modes_low=modes_low, modes_high=modes_high,
                                 norm=norm, separable=separable, output_size=output_size)
    return torch.from_numpy(y).to(device=x.device, dtype=x.dtype)


@torch.library.custom_op("turbofno::spectral_conv", mutates_args=())
def spectral_conv(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                  modes_low: list[int], modes_high: list[int], norm: int, separable: int,
                  output_size: Optional[list[int]] = None) -> torch.Tensor:
    return spectral_conv_reference(x, weight, bias, modes_low, modes_high, norm, separable, output_size)


@spectral_conv.register_fake
def _spectral_conv_fake(x, weight, bias, modes_low, modes_high, norm, separable, output_size=None):
    return x.new_empty(_rules.output_shape(x.shape, weight.shape, separable, output_size))


@functools.lru_cache(maxsize=None)
def _op_schema():
    """An ONNX OpSchema for the node (onnxscript needs one to emit a custom-domain op).

    It is handed to onnxscript only, never registered globally in onnx.defs."""
    from onnx import defs

    types = ["tensor(float)", "tensor(float16)", "tensor(bfloat16)"]
    param = defs.OpSchema.FormalParameter
    option = defs.OpSchema.FormalParameterOption
    attr = defs.OpSchema.Attribute
    kind = defs.OpSchema.AttrType
    return defs.OpSchema(
        _names.OP_TYPE, _names.DOMAIN, _names.OPSET_VERSION,
        "Fused FNO spectral convolution, see docs/op.md",
        inputs=[param("x", "T"), param("weight", "T"), param("bias", "T", param_option=option.Optional)],
        outputs=[param("y", "T")],
        type_constraints=[("T", types, "float tensors")],
        attributes=[
            attr(_names.ATTR_MODES_LOW, kind.INTS, "p_j per axis"),
            attr(_names.ATTR_MODES_HIGH, kind.INTS, "q_j per axis"),
            attr(_names.ATTR_NORM, kind.INT, "0 backward, 1 forward, 2 ortho", required=False),
            attr(_names.ATTR_SEPARABLE, kind.INT, "1: depthwise weight", required=False),
            attr(_names.ATTR_OUTPUT_SIZE, kind.INTS, "output spatial size (absent: the input's)", required=False),
            attr(_names.ATTR_PLUGIN_VERSION, kind.STRING, "TensorRT plugin version", required=False),
            attr(_names.ATTR_PLUGIN_NAMESPACE, kind.STRING, "TensorRT plugin namespace", required=False),
        ],
    )


def _onnx_spectral_conv(x, weight, bias, modes_low, modes_high, norm, separable, output_size=None):
    """onnxscript translation: one ai.turbofno::SpectralConv node (runs in onnxscript's tracing mode)."""
    import onnxscript

    opset = onnxscript.values.Opset(_names.DOMAIN, _names.OPSET_VERSION)
    op = onnxscript.values.Op(opset, _names.OP_TYPE, _op_schema())
    inputs = [x, weight] + ([bias] if bias is not None else [])
    attrs = _rules.node_attributes(modes_low, modes_high, norm, separable, output_size)
    return op(*inputs, **attrs)


def onnx_translation_table() -> dict:
    """`custom_translation_table` for `torch.onnx.export(..., dynamo=True)`."""
    return {torch.ops.turbofno.spectral_conv.default: _onnx_spectral_conv}
