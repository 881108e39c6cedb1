"""`torch.ops.turbofno.spectral_conv`: the SpectralConv op (docs/op.md) as a PyTorch custom op.

Eager calls run a reference implementation (rfftn -> keep modes -> complex channel mixing ->
irfftn, computed in float32, or float64 for float64 inputs); `torch.export` sees an opaque node
with a fake (shape-only) implementation; `onnx_translation_table()` maps that node to one
`ai.turbofno::SpectralConv` node for torch.onnx's dynamo exporter.
"""
from __future__ import annotations

import functools
from typing import Optional, Sequence

import torch

from turbofno import _op as _names

def norm_code(norm: str | None) -> int:
    """torch.fft norm name -> the op's INT `norm` attribute."""
    name = "backward" if norm is None else norm
    if name not in _names.NORMS:
        raise ValueError(f"fft norm must be one of {sorted(_names.NORMS)}, got {norm!r}")
    return _names.NORMS[name]


def kept_indices(size: int, low: int, high: int, last_axis: bool) -> list[int]:
    """Spectrum positions kept along one axis, in weight order (low block, then high block)."""
    if last_axis:
        return list(range(low))
    return list(range(low)) + list(range(size - high, size))


def check_args(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
               modes_low: Sequence[int], modes_high: Sequence[int], norm: int, separable: int,
               output_size: Optional[Sequence[int]] = None) -> None:
    """The validation rules of docs/op.md, raised as ValueError (the reference must never crash)."""
    d = len(modes_low)
    if d not in (1, 2, 3) or len(modes_high) != d:
        raise ValueError(f"modes_low/modes_high must both have length 1..3, got {list(modes_low)} / {list(modes_high)}")
    if output_size is not None and (len(output_size) != d or any(int(t) < 1 for t in output_size)):
        raise ValueError(f"output_size must have {d} entries >= 1 (or be None), got {list(output_size)}")
    if x.dim() != d + 2:
        raise ValueError(f"x must have rank {d + 2} for {d} spatial axes, got shape {tuple(x.shape)}")
    if weight.dim() != d + 3 or weight.shape[-1] != 2:
        raise ValueError(f"weight must be [Cin, Cout, K_1..K_{d}, 2], got shape {tuple(weight.shape)}")
    if norm not in (0, 1, 2) or separable not in (0, 1):
        raise ValueError(f"norm must be 0/1/2 and separable 0/1, got norm={norm} separable={separable}")
    n, cin, *sizes = x.shape
    if n <= 0 or cin <= 0 or any(s <= 0 for s in sizes):
        raise ValueError(f"x has an empty dimension: {tuple(x.shape)}")
    if weight.shape[0] != cin:
        raise ValueError(f"weight dim 0 ({weight.shape[0]}) must equal Cin ({cin})")
    if separable and weight.shape[1] != 1:
        raise ValueError(f"separable weight must have dim 1 == 1, got {tuple(weight.shape)}")
    for j, (p, q, s) in enumerate(zip(modes_low, modes_high, sizes)):
        last = j == d - 1
        if p < 0 or q < 0 or p + q == 0:
            raise ValueError(f"axis {j}: modes must be >= 0 with at least one kept, got p={p} q={q}")
        if last and (q != 0 or p > s // 2 + 1):
            raise ValueError(f"last axis: need modes_high == 0 and modes_low <= S//2+1 = {s // 2 + 1}, got p={p} q={q}")
        if not last and p + q > s:
            raise ValueError(f"axis {j}: modes_low + modes_high = {p + q} exceeds the axis size {s}")
        if weight.shape[2 + j] != p + q:
            raise ValueError(f"weight mode dim {j} is {weight.shape[2 + j]}, expected p+q = {p + q}")
    cout = cin if separable else weight.shape[1]
    if bias is not None and tuple(bias.shape) != (cout,):
        raise ValueError(f"bias must have shape [{cout}], got {tuple(bias.shape)}")
    dtypes = {x.dtype, weight.dtype} | ({bias.dtype} if bias is not None else set())
    if len(dtypes) != 1:
        raise ValueError(f"x, weight and bias must share one dtype, got {sorted(map(str, dtypes))}")


def spectral_conv_reference(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                            modes_low: Sequence[int], modes_high: Sequence[int],
                            norm: int = 0, separable: int = 0,
                            output_size: Optional[Sequence[int]] = None) -> torch.Tensor:
    """PyTorch reference of docs/op.md. Computes in float32 (float64 for float64 inputs)."""
    check_args(x, weight, bias, modes_low, modes_high, norm, separable, output_size)
    d = len(modes_low)
    dims = tuple(range(-d, 0))
    sizes = tuple(x.shape[-d:])
    compute = torch.float64 if x.dtype == torch.float64 else torch.float32
    norm_name = _names.NORM_NAMES[norm]

    spec = torch.fft.rfftn(x.to(compute), dim=dims, norm=norm_name)
    # open-mesh indices (like numpy.ix_) selecting the kept modes on every spatial axis
    index = []
    for j in range(d):
        idx = torch.tensor(kept_indices(sizes[j], modes_low[j], modes_high[j], j == d - 1), device=x.device)
        index.append(idx.view([-1 if i == j else 1 for i in range(d)]))
    kept = spec[(slice(None), slice(None), *index)]                  # [N, Cin, K_1..K_d]
    w = torch.view_as_complex(weight.to(compute).contiguous())      # [Cin, Cout|1, K_1..K_d]
    if separable:
        mixed = kept * w[:, 0]
    else:
        mixed = torch.einsum("ni...,io...->no...", kept, w)
    out_spec = spec.new_zeros((x.shape[0], mixed.shape[1], *spec.shape[2:]))
    out_spec[(slice(None), slice(None), *index)] = mixed
    out_sizes = sizes if output_size is None else tuple(int(t) for t in output_size)
    y = torch.fft.irfftn(out_spec, s=out_sizes, dim=dims, norm=norm_name)
    if bias is not None:
        y = y + bias.to(compute).view(-1, *([1] * d))
    return y.to(x.dtype)


@torch.library.custom_op("turbofno::spectral_conv", mutates_args=())
def spectral_conv(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                  modes_low: list[int], modes_high: list[int], norm: int, separable: int,
                  output_size: Optional[list[int]] = None) -> torch.Tensor:
    return spectral_conv_reference(x, weight, bias, modes_low, modes_high, norm, separable, output_size)


@spectral_conv.register_fake
def _spectral_conv_fake(x, weight, bias, modes_low, modes_high, norm, separable, output_size=None):
    cout = x.shape[1] if separable else weight.shape[1]
    spatial = x.shape[2:] if output_size is None else tuple(output_size)
    return x.new_empty((x.shape[0], cout, *spatial))


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
    attrs = {
        _names.ATTR_MODES_LOW: [int(v) for v in modes_low],
        _names.ATTR_MODES_HIGH: [int(v) for v in modes_high],
        _names.ATTR_NORM: int(norm),
        _names.ATTR_SEPARABLE: int(separable),
        _names.ATTR_PLUGIN_VERSION: _names.PLUGIN_VERSION,
        _names.ATTR_PLUGIN_NAMESPACE: _names.PLUGIN_NAMESPACE,
    }
    if output_size is not None:  # absent: same size as the input (v1 nodes are unchanged)
        attrs[_names.ATTR_OUTPUT_SIZE] = [int(v) for v in output_size]
    return op(*inputs, **attrs)


def onnx_translation_table() -> dict:
    """`custom_translation_table` for `torch.onnx.export(..., dynamo=True)`."""
    return {torch.ops.turbofno.spectral_conv.default: _onnx_spectral_conv}
