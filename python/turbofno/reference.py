"""Float64 NumPy references of the SpectralConv and PointwiseMLP ops (docs/op.md), one-node ONNX model builders
and a chain of SpectralConv nodes (make_chain_model, for benchmarks of many nodes per run).

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


def make_chain_model(weight: np.ndarray, bias: np.ndarray | None = None, *, n_layers: int, modes_low: Sequence[int],
                     modes_high: Sequence[int], node_name: str = "spectral_conv", **kwargs):
    """`n_layers` SpectralConv nodes in a row, x -> y_1 -> ... -> y_{n-1} -> y, every node sharing the
    same weight / bias (/ skip_weight) initializers or graph inputs.

    Each node is exactly make_model's node (same attributes, domain version, element type; the other
    keyword arguments go to make_model, e.g. x_shape, norm, skip_weight, activation), named
    f"{node_name}_{i}". The reference is spectral_conv applied n_layers times. A layer's output must be
    a valid input of the next: Cout == Cin and no output_size (ValueError otherwise).
    """
    n_layers = int(n_layers)
    if n_layers < 1:
        raise ValueError(f"n_layers must be >= 1, got {n_layers}")
    w_shape = np.shape(weight)
    cout = w_shape[0] if kwargs.get("separable") else w_shape[1]
    if cout != w_shape[0]:
        raise ValueError(f"a chain needs Cout == Cin (weight shape {w_shape})")
    if kwargs.get("output_size") is not None:
        raise ValueError("a chain cannot resample (output_size)")
    model = make_model(weight, bias, modes_low=modes_low, modes_high=modes_high, node_name=node_name, **kwargs)
    graph = model.graph
    (node,) = graph.node
    nodes = []
    for i in range(n_layers):
        copy = type(node)()
        copy.CopyFrom(node)
        copy.name = f"{node_name}_{i}"
        copy.input[0] = "x" if i == 0 else f"y_{i}"
        copy.output[0] = "y" if i == n_layers - 1 else f"y_{i + 1}"
        nodes.append(copy)
    del graph.node[:]
    graph.node.extend(nodes)
    graph.name = "spectral_conv_chain"
    return model


# --- PointwiseMLP (docs/op.md "PointwiseMLP", plugins/include/turbofno/pointwise_mlp.h) ---------------

def pointwise_mlp(x, w1, b1=None, w2=None, b2=None, residual=None, gate=None, *, hidden_activation: int = 1,
                  activation: int = 0) -> np.ndarray:
    """y = act(W2 hact(W1 x + b1) + b2 + gate * residual) per point, in float64.

    x [N, Cin, *S] (any spatial rank >= 0), w1 [Ch, Cin], b1 [Ch], w2 [Cout, Ch], b2 [Cout],
    residual [N, Cout, *S] (exactly the output's shape: no broadcasting), gate [Cout] (only with a
    residual; absent means 1). Raises ValueError for what the op refuses (core::inferMlpShape).
    """
    x = np.asarray(x, dtype=np.float64)
    if w2 is None:
        raise ValueError("w2 is required")
    w1, w2 = np.asarray(w1, dtype=np.float64), np.asarray(w2, dtype=np.float64)
    for name, act in (("hidden_activation", hidden_activation), ("activation", activation)):
        if int(act) not in _op.ACTIVATION_NAMES:
            raise ValueError(f"{name} must be one of {sorted(_op.ACTIVATION_NAMES)}, got {act}")
    if x.ndim < 2 or x.ndim > 10:
        raise ValueError(f"x must have rank 2..10 ([N, Cin, *S], spatial rank <= 8), got shape {x.shape}")
    if w1.ndim != 2 or w2.ndim != 2:
        raise ValueError(f"w1 and w2 must be 2-D, got {w1.shape} and {w2.shape}")
    cin, ch, cout = x.shape[1], w1.shape[0], w2.shape[0]
    if w1.shape[1] != cin:
        raise ValueError(f"w1 {w1.shape} needs Cin = {cin} columns (x {x.shape})")
    if w2.shape[1] != ch:
        raise ValueError(f"w2 {w2.shape} needs Ch = {ch} columns (w1 {w1.shape})")
    if min(x.shape + w1.shape + w2.shape) <= 0:
        raise ValueError("every size must be > 0")
    out_shape = (x.shape[0], cout, *x.shape[2:])
    b1 = None if b1 is None else np.asarray(b1, dtype=np.float64)
    b2 = None if b2 is None else np.asarray(b2, dtype=np.float64)
    if b1 is not None and b1.shape != (ch,):
        raise ValueError(f"b1 must have shape ({ch},), got {b1.shape}")
    if b2 is not None and b2.shape != (cout,):
        raise ValueError(f"b2 must have shape ({cout},), got {b2.shape}")
    if gate is not None and residual is None:
        raise ValueError("gate needs a residual")
    if residual is not None:
        residual = np.asarray(residual, dtype=np.float64)
        if residual.shape != out_shape:
            raise ValueError(f"residual must have the output's shape {out_shape}, got {residual.shape}")
    if gate is not None:
        gate = np.asarray(gate, dtype=np.float64)
        if gate.shape != (cout,):
            raise ValueError(f"gate must have shape ({cout},), got {gate.shape}")
    per_axis = (1,) * (x.ndim - 2)
    h = np.einsum("ji,ni...->nj...", w1, x)
    if b1 is not None:
        h = h + b1.reshape((1, ch) + per_axis)
    h = apply_activation(h, int(hidden_activation))
    y = np.einsum("oj,nj...->no...", w2, h)
    if b2 is not None:
        y = y + b2.reshape((1, cout) + per_axis)
    if residual is not None:
        y = y + (residual if gate is None else gate.reshape((1, cout) + per_axis) * residual)
    return apply_activation(y, int(activation))


def make_mlp_model(w1: np.ndarray, w2: np.ndarray, b1: np.ndarray | None = None, b2: np.ndarray | None = None, *,
                   gate: np.ndarray | None = None, residual: bool = False, hidden_activation: int = 1,
                   activation: int = 0, x_shape: Sequence | None = None, opset: int = 17, ir_version: int = 10,
                   node_name: str = "pointwise_mlp"):
    """One-node ONNX model y = PointwiseMLP(x, w1, b1, w2, b2[, r[, gate]]): weights are initializers,
    x (and r with residual=True) graph inputs; domain opset MLP_OPSET_VERSION. x_shape: dims of x
    (default [N, Cin, S1], symbolic except Cin)."""
    from onnx import TensorProto, helper, numpy_helper

    w1, w2 = np.asarray(w1, np.float32), np.asarray(w2, np.float32)
    if x_shape is None:
        x_shape = ["N", int(w1.shape[1]), "S1"]
    inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")]
    names = ["x", "w1", "", "w2", "", "", ""]
    if b1 is not None:
        inits.append(numpy_helper.from_array(np.asarray(b1, np.float32), "b1"))
        names[2] = "b1"
    if b2 is not None:
        inits.append(numpy_helper.from_array(np.asarray(b2, np.float32), "b2"))
        names[4] = "b2"
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))]
    if residual:
        names[5] = "r"
        inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, None))
    if gate is not None:
        inits.append(numpy_helper.from_array(np.asarray(gate, np.float32), "gate"))
        names[6] = "gate"
    while names and not names[-1]:
        names.pop()
    node = helper.make_node(_op.MLP_OP_TYPE, names, ["y"], name=node_name, domain=_op.DOMAIN,
                            **mlp_node_attributes(hidden_activation, activation))
    graph = helper.make_graph([node], "pointwise_mlp_test", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid(_op.DOMAIN, _op.MLP_OPSET_VERSION)])
    model.ir_version = ir_version
    return model


def mlp_node_attributes(hidden_activation: int = 1, activation: int = 0) -> dict:
    """The PointwiseMLP node's attributes as the exporter writes them (both activations always, and
    the TensorRT parser's plugin_version / plugin_namespace like SpectralConv's)."""
    return {_op.ATTR_HIDDEN_ACTIVATION: int(hidden_activation), _op.ATTR_ACTIVATION: int(activation),
            _op.ATTR_PLUGIN_VERSION: _op.PLUGIN_VERSION, _op.ATTR_PLUGIN_NAMESPACE: _op.PLUGIN_NAMESPACE}
