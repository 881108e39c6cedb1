"""The SpectralConv rules for Python, in one place (docs/op.md): argument checks, the output shape,
the kept spectrum indices and the node's attribute set. The reference (turbofno.reference), the
PyTorch op (turbofno.export.torch_op), the exporter and the rewrite all use these.

The checks mirror the C++ core (plugins/src/validate.cpp) in order and wording, so Python and the
compiled op reject the same inputs with the same message; tests/python/test_rules_agree.py compares
them through the ORT op on thousands of random shapes.
"""
from __future__ import annotations

from typing import Sequence

from turbofno import _op

MAX_RANK = 3
MAX_TENSOR_ELEMENTS = 2**31 - 1  # every tensor: < 2^31 elements (kernels index with 32-bit math)
# The newest ONNX IR version the exporter and the rewrite write (nothing they emit needs a newer one):
# onnxruntime 1.31 (the GPU machine) reads IR <= 11.
MAX_IR_VERSION = 11


def _dims(dims: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(v)) for v in dims) + "]"


def check_attrs(modes_low: Sequence[int], modes_high: Sequence[int], norm: int = 0, separable: int = 0,
                output_size: Sequence[int] | None = None, activation: int = 0) -> None:
    """Attribute checks that need no tensor shape (core::validateAttrs). Raises ValueError.
    output_size None or empty: absent (the output has the input's spatial size); activation: the
    fused layer's (op version 2), 0 = identity."""
    low, high = [int(v) for v in modes_low], [int(v) for v in modes_high]
    if len(low) != len(high):
        raise ValueError(f"modes_low has {len(low)} entries but modes_high has {len(high)}; "
                         "both need one entry per spatial axis")
    d = len(low)
    if d < 1 or d > MAX_RANK:
        raise ValueError(f"modes_low / modes_high have {d} entries; the spatial rank d must be 1, 2 or 3")
    for j in range(d):
        if low[j] < 0:
            raise ValueError(f"modes_low[{j}] = {low[j]} is negative")
        if high[j] < 0:
            raise ValueError(f"modes_high[{j}] = {high[j]} is negative")
    if high[d - 1] != 0:
        raise ValueError(f"modes_high[{d - 1}] = {high[d - 1]} must be 0: the last axis is one-sided (rfft), "
                         "it has no negative frequencies")
    for j in range(d):
        if low[j] + high[j] == 0:
            raise ValueError(f"axis {j} keeps no modes (modes_low[{j}] + modes_high[{j}] = 0); keep at least one")
    if int(norm) not in (0, 1, 2):
        raise ValueError(f"norm = {int(norm)} is invalid; use 0 (backward), 1 (forward) or 2 (ortho)")
    if int(separable) not in (0, 1):
        raise ValueError(f"separable = {int(separable)} is invalid; use 0 or 1")
    if output_size:
        t = [int(v) for v in output_size]
        if len(t) != d:
            raise ValueError(f"output_size has {len(t)} entries; it needs one per spatial axis ({d}, like "
                             "modes_low) or must be absent")
        for j in range(d):
            if t[j] < 1:
                raise ValueError(f"output_size[{j}] = {t[j]} must be >= 1")
    if int(activation) not in _op.ACTIVATION_NAMES:
        raise ValueError(f"activation = {int(activation)} is invalid; use 0 (identity), 1 (gelu), 2 (gelu_tanh), "
                         "3 (relu), 4 (silu) or 5 (tanh)")


def check_shapes(x_shape: Sequence[int], w_shape: Sequence[int], bias_shape: Sequence[int] | None,
                 modes_low: Sequence[int], modes_high: Sequence[int], norm: int = 0, separable: int = 0,
                 output_size: Sequence[int] | None = None, skip_shape: Sequence[int] | None = None,
                 activation: int = 0) -> int:
    """Every check of docs/op.md "Validation" (core::inferShape). Returns Cout; raises ValueError.
    skip_shape: the fused layer's skip_weight dims, or None when it is absent."""
    check_attrs(modes_low, modes_high, norm, separable, output_size, activation)
    low, high = [int(v) for v in modes_low], [int(v) for v in modes_high]
    d = len(low)
    x, w = [int(v) for v in x_shape], [int(v) for v in w_shape]
    if len(x) != d + 2:
        raise ValueError(f"x has rank {len(x)} but modes_low has {d} entries, so x must have rank {d + 2} "
                         f"[N, C, S_1..S_{d}]")
    xs = _dims(x)
    if x[0] <= 0:
        raise ValueError(f"x {xs}: batch size N must be positive (empty batch is not supported)")
    if x[1] <= 0:
        raise ValueError(f"x {xs}: channel count C must be positive")
    for j in range(d):
        if x[2 + j] <= 0:
            raise ValueError(f"x {xs}: spatial size S_{j + 1} must be positive")
    for j in range(d):
        s, p, q = x[2 + j], low[j], high[j]
        if j < d - 1:
            if p + q > s:
                raise ValueError(f"modes_low[{j}] + modes_high[{j}] = {p + q} exceeds S_{j + 1} = {s} (x {xs})")
        elif p > s // 2 + 1:
            raise ValueError(f"modes_low[{j}] = {p} exceeds S_{j + 1}//2 + 1 = {s // 2 + 1} "
                             f"(the one-sided last axis, x {xs})")
    if len(w) != d + 3:
        raise ValueError(f"weight has rank {len(w)}; expected rank {d + 3} [Cin, Cout, K_1..K_{d}, 2]")
    ws = _dims(w)
    if w[-1] != 2:
        raise ValueError(f"weight {ws}: last dim must be 2 (real, imag), got {w[-1]}")
    if w[0] != x[1]:
        raise ValueError(f"weight {ws}: dim 0 = {w[0]} must equal the input channel count Cin = {x[1]} of x {xs}")
    if separable:
        if w[1] != 1:
            raise ValueError(f"weight {ws}: separable = 1 needs dim 1 = 1 (depthwise weight [C, 1, K..., 2]), "
                             f"got {w[1]}")
        cout = x[1]
    else:
        if w[1] <= 0:
            raise ValueError(f"weight {ws}: output channel count Cout (dim 1) must be positive")
        cout = w[1]
    for j in range(d):
        k = low[j] + high[j]
        if w[2 + j] != k:
            raise ValueError(f"weight {ws}: mode dim {2 + j} = {w[2 + j]} must equal modes_low[{j}] + "
                             f"modes_high[{j}] = {k}")
    if bias_shape is not None:
        b = [int(v) for v in bias_shape]
        if len(b) != 1 or b[0] != cout:
            raise ValueError(f"bias {_dims(b)} must have shape [Cout] = [{cout}]")
    if skip_shape is not None:  # a [Cout, Cin] 1x1 convolution without bias (op version 2)
        sk = [int(v) for v in skip_shape]
        if len(sk) != 2 or sk[0] != cout or sk[1] != x[1]:
            raise ValueError(f"skip_weight {_dims(sk)} must have shape [Cout, Cin] = [{cout}, {x[1]}]")
        if sk[0] * sk[1] > MAX_TENSOR_ELEMENTS:
            raise ValueError(f"skip_weight {_dims(sk)} has {sk[0] * sk[1]} elements; the limit is 2^31 - 1 per tensor")
        if output_size and [int(v) for v in output_size] != x[2:]:
            raise ValueError("skip_weight with output_size: the 1x1 skip maps x onto the output point by point, so "
                             f"output_size must equal the input's spatial size (x {xs})")
    out_spatial = [int(v) for v in output_size] if output_size else x[2:]
    for what, dims in (("x", x), ("weight", w), ("output y", [x[0], cout, *out_spatial])):
        count = 1
        for v in dims:
            count *= v
        if count > MAX_TENSOR_ELEMENTS:
            raise ValueError(f"{what} {_dims(dims)} has {count} elements; the limit is 2^31 - 1 per tensor")
    return cout


def output_shape(x_shape: Sequence, w_shape: Sequence, separable: int = 0,
                 output_size: Sequence[int] | None = None) -> tuple:
    """y's shape [N, Cout, T_1..T_d] with T = output_size, or S when it is absent (entries may be
    symbolic: taken from x and weight as they are)."""
    spatial = tuple(int(t) for t in output_size) if output_size else tuple(x_shape[2:])
    return (x_shape[0], x_shape[1] if separable else w_shape[1], *spatial)


def kept_indices(size: int, low: int, high: int, last_axis: bool) -> list[int]:
    """Spectrum positions kept along one axis, in weight order (low block, then high block)."""
    if last_axis:
        return list(range(low))
    return list(range(low)) + list(range(size - high, size))


def is_kept(index: int, size: int, low: int, high: int, last_axis: bool = False) -> bool:
    """Whether spectrum position `index` of an axis is among kept_indices(size, low, high, last_axis)."""
    return index < low or (not last_axis and index >= size - high)


def node_attributes(modes_low: Sequence[int], modes_high: Sequence[int], norm: int = 0,
                    separable: int = 0, output_size: Sequence[int] | None = None, activation: int = 0) -> dict:
    """The SpectralConv node's attributes, as every writer of the node emits them (output_size and
    activation only when given / not identity: nodes without them are unchanged)."""
    attrs = {
        _op.ATTR_MODES_LOW: [int(v) for v in modes_low],
        _op.ATTR_MODES_HIGH: [int(v) for v in modes_high],
        _op.ATTR_NORM: int(norm),
        _op.ATTR_SEPARABLE: int(separable),
        _op.ATTR_PLUGIN_VERSION: _op.PLUGIN_VERSION,
        _op.ATTR_PLUGIN_NAMESPACE: _op.PLUGIN_NAMESPACE,
    }
    if output_size is not None:
        attrs[_op.ATTR_OUTPUT_SIZE] = [int(v) for v in output_size]
    if int(activation) != 0:
        attrs[_op.ATTR_ACTIVATION] = int(activation)
    return attrs
