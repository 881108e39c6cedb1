"""Float64 NumPy reference of the SpectralConv op (docs/op.md) and a one-node ONNX model builder.

`spectral_conv` is the oracle every test compares against, and the one float64 implementation of the
layer in Python (the PyTorch op's eager path calls it). It follows docs/op.md literally
(rfftn -> keep the low/high corner modes -> per-mode complex channel mixing -> irfftn + bias, then
the version-2 fused layer: + skip_weight x, activation) and raises ValueError for inputs the op
must reject (the rules of turbofno._rules). `make_model` imports onnx lazily.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from turbofno import _op, _rules


def apply_activation(v: np.ndarray, act: int) -> np.ndarray:
    """The fused layer's activation (docs/op.md) in float64, without cancellation in the tails."""
    from math import erfc, sqrt, pi

    if act == 0:
        return v
    if act == 1:   # 0.5 v (1 + erf(v / sqrt 2)) = 0.5 v erfc(-v / sqrt 2)
        return 0.5 * v * np.vectorize(erfc, otypes=[np.float64])(-v / sqrt(2.0))
    if act == 2:   # 0.5 v (1 + tanh(u)) = v / (1 + exp(-2u))
        u = sqrt(2.0 / pi) * (v + 0.044715 * v ** 3)
        with np.errstate(over="ignore"):
            return v / (1.0 + np.exp(-2.0 * u))
    if act == 3:
        return np.maximum(v, 0.0)
    if act == 4:
        with np.errstate(over="ignore"):
            return v / (1.0 + np.exp(-v))
    if act == 5:
        return np.tanh(v)
    raise ValueError(f"activation must be one of {sorted(_op.ACTIVATION_NAMES)}, got {act}")


def spectral_conv(x, weight, bias=None, skip_weight=None, *, modes_low: Sequence[int], modes_high: Sequence[int],
                  norm: int = 0, separable: int = 0, output_size: Sequence[int] | None = None,
                  activation: int = 0) -> np.ndarray:
    """y = act(irfftn(mix(rfftn(x)[kept], W), s=output_size or S) + bias + skip_weight x), in float64
    (complex128).

    With output_size T != S the spectrum Y keeps the input's layout and numpy/torch's irfftn(Y, s=T)
    semantics apply: each full axis is cut or zero-padded at its end (spectrum index f stays f; f >= T_j
    is dropped), the last axis keeps bins 0..T_d//2, and the norm's scales no longer cancel (docs/op.md).
    The fused layer (op version 2): skip_weight [Cout, Cin] (needs T == S) and the activation.
    """
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(weight, dtype=np.float64)
    b = None if bias is None else np.asarray(bias, dtype=np.float64)
    sk = None if skip_weight is None else np.asarray(skip_weight, dtype=np.float64)
    modes_low, modes_high = [int(v) for v in modes_low], [int(v) for v in modes_high]
    act = int(activation)
    cout = _rules.check_shapes(x.shape, w.shape, None if b is None else b.shape, modes_low, modes_high, int(norm),
                               int(separable), output_size, None if sk is None else sk.shape, act)
    d = len(modes_low)
    n, cin, spatial = x.shape[0], x.shape[1], x.shape[2:]
    axes = tuple(range(2, 2 + d))
    norm_name = _op.NORM_NAMES[int(norm)]

    spec = np.fft.rfftn(x, axes=axes, norm=norm_name)          # [N, Cin, S_1.., S_d//2+1]
    idx = [np.asarray(_rules.kept_indices(s, p, q, j == d - 1), dtype=np.int64)
           for j, (s, p, q) in enumerate(zip(spatial, modes_low, modes_high))]
    xk = spec[np.ix_(np.arange(n), np.arange(cin), *idx)]       # [N, Cin, K_1..K_d]
    wc = w[..., 0] + 1j * w[..., 1]                             # [Cin, Cout|1, K_1..K_d]
    if separable:
        yk = xk * wc[:, 0][None]
    else:
        yk = np.einsum("ni...,io...->no...", xk, wc)
    out_spec = np.zeros((n, cout, *spatial[:-1], spatial[-1] // 2 + 1), dtype=np.complex128)
    out_spec[np.ix_(np.arange(n), np.arange(cout), *idx)] = yk
    out = tuple(spatial) if output_size is None else tuple(int(t) for t in output_size)
    y = np.fft.irfftn(out_spec, s=out, axes=axes, norm=norm_name)
    if b is not None:
        y = y + b.reshape((1, cout) + (1,) * d)
    if sk is not None:
        y = y + np.einsum("oi,ni...->no...", sk, x)
    return apply_activation(y, act)


def random_case(rng: np.random.Generator, spatial: Sequence[int], modes_low: Sequence[int], modes_high: Sequence[int],
                *, batch: int = 2, cin: int = 3, cout: int = 4, separable: int = 0, bias: bool = True,
                dtype=np.float32, skip: bool = False):
    """Random x, weight, bias (normal, never zeros) for the given sizes; with skip=True also a
    skip weight [Cout, Cin] (returned fourth)."""
    kept = [p + q for p, q in zip(modes_low, modes_high)]
    x = rng.standard_normal((batch, cin, *spatial)).astype(dtype)
    w_shape = (cin, 1 if separable else cout, *kept, 2)
    w = (rng.standard_normal(w_shape) / np.sqrt(cin)).astype(dtype)
    b = rng.standard_normal(cin if separable else cout).astype(dtype) if bias else None
    if skip:
        co = cin if separable else cout
        return x, w, b, (rng.standard_normal((co, cin)) / np.sqrt(cin)).astype(dtype)
    return x, w, b


def make_model(weight: np.ndarray, bias: np.ndarray | None = None, *, modes_low: Sequence[int],
               modes_high: Sequence[int], norm: int = 0, separable: int = 0,
               output_size: Sequence[int] | None = None, x_shape: Sequence | None = None,
               weight_as_input: bool = False, node_name: str = "spectral_conv",
               attributes: Mapping[str, object] | None = None, opset: int = 17, ir_version: int = 10,
               elem_type: int | None = None, skip_weight: np.ndarray | None = None, activation: int = 0,
               domain_version: int | None = None):
    """One-node ONNX model y = SpectralConv(x, weight[, bias[, skip_weight]]).

    weight / bias / skip_weight become initializers (or graph inputs with weight_as_input=True).
    A skip weight without a bias gets an empty bias input name. The domain's opset version is 2
    (OPSET_VERSION_FUSED) when skip_weight or activation is used, else 1 (domain_version overrides).
    x_shape: dims of x (ints, strings for symbolic dims or None); default: [N, Cin, S...] all symbolic
    except Cin. attributes: overrides of the node's attributes (value None removes one), for
    malformed-model tests. elem_type: ONNX element type of x/y (default from weight's dtype).
    """
    from onnx import helper, numpy_helper

    weight = np.asarray(weight)
    d = len(modes_low)
    if elem_type is None:
        elem_type = helper.np_dtype_to_tensor_dtype(weight.dtype)
    if x_shape is None:
        x_shape = ["N", int(weight.shape[0])] + [f"S{j + 1}" for j in range(d)]
    out_shape = None  # let ORT infer it (our op's shape inference)

    attrs: dict[str, object] = _rules.node_attributes(modes_low, modes_high, norm, separable, output_size, activation)
    fused = skip_weight is not None or int(activation) != 0
    for key, value in (attributes or {}).items():
        if value is None:
            attrs.pop(key, None)
        else:
            attrs[key] = value

    inputs = [helper.make_tensor_value_info("x", elem_type, list(x_shape))]
    initializers = []
    node_inputs = ["x"]

    def add_tensor(name: str, value) -> None:
        """The node's next input: a graph input (weight_as_input) or an initializer."""
        value = np.asarray(value)
        node_inputs.append(name)
        if weight_as_input:
            inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                                        list(value.shape)))
        else:
            initializers.append(numpy_helper.from_array(value, name))

    add_tensor("weight", weight)
    if bias is not None:
        add_tensor("bias", bias)
    if skip_weight is not None:
        if bias is None:
            node_inputs.append("")  # optional input 2 (bias) left out
        add_tensor("skip_weight", skip_weight)

    if domain_version is None:
        domain_version = _op.OPSET_VERSION_FUSED if fused else _op.OPSET_VERSION
    node = helper.make_node(_op.OP_TYPE, node_inputs, ["y"], name=node_name, domain=_op.DOMAIN, **attrs)
    graph = helper.make_graph([node], "spectral_conv_test", inputs,
                              [helper.make_tensor_value_info("y", elem_type, out_shape)], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid(_op.DOMAIN, domain_version)])
    model.ir_version = ir_version
    return model
