"""Fold each FNO layer's 1x1 skip, bias add and activation into its SpectralConv node (op version 2).

Works on the exported ONNX graph, so every family (neuraloperator, PhysicsNeMo, classic Li et al.,
user converters) is handled alike: an FNO layer `act(K(x) + skip(x))` exports to

    SpectralConv(x, W[, b]) --> Add <-- skip(x) ;  Add --> activation

with skip(x) one of: x itself (identity), a 1x1 Conv (possibly between Reshapes that flatten the
spatial axes, as neuraloperator's Conv1d skip does; optional bias), or a per-channel Mul by a
constant (neuraloperator's soft-gating). The activation is Gelu (exact or tanh), Relu, Tanh,
x * Sigmoid(x) (SiLU), or absent. The pattern is matched structurally (constant weights, kernel
1, no padding / stride / groups, single consumers of every folded tensor), then checked
numerically: the original graph runs in ONNX Runtime with the layer's input and output exposed,
the fused node runs on that input, and the fusion is kept only when the relative L2 error is
<= layer_rtol. Anything else stays a plain SpectralConv.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from turbofno import _op

_PASS_THROUGH = ("Reshape", "Flatten", "Squeeze", "Unsqueeze")


@dataclass
class FusedLayer:
    node: str                   # name of the fused SpectralConv node
    skip: str                   # "conv1x1", "identity", "soft-gating" or "none"
    activation: str             # _op.ACTIVATIONS key
    folded: list = field(default_factory=list)   # op types folded into the node
    layer_rel_err: float = float("nan")


@dataclass
class _Candidate:
    spectral: object            # the SpectralConv NodeProto
    x: str                      # its input
    out: str                    # the tensor the fused node produces (last folded node's output)
    nodes: list                 # the SpectralConv, the Add and the activation node(s): all replaced
    skip_nodes: list            # the skip branch from the Add back to x: removed unless used elsewhere
    skip_kind: str
    skip_weight: Optional[np.ndarray]   # [Cout, Cin] float32, None without a skip
    skip_bias: Optional[np.ndarray]     # [Cout] or None
    activation: int


class _Graph:
    def __init__(self, graph):
        from onnx import numpy_helper

        self.graph = graph
        self.producer = {o: n for n in graph.node for o in n.output}
        self.consumers: dict[str, list] = {}
        for n in graph.node:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.outputs = {o.name for o in graph.output}
        self.inits = {i.name: i for i in graph.initializer}
        self.constants = {n.output[0]: n for n in graph.node if n.op_type == "Constant" and n.output}
        self._np = numpy_helper

    def const(self, name: str) -> Optional[np.ndarray]:
        if name in self.inits:
            return self._np.to_array(self.inits[name])
        node = self.constants.get(name)
        if node is not None:
            from onnx import helper

            for a in node.attribute:
                if a.name == "value":
                    return self._np.to_array(helper.get_attribute_value(a))
        return None

    def only_consumer(self, name: str):
        users = self.consumers.get(name, [])
        if len(users) != 1 or name in self.outputs:
            return None
        return users[0]


def _attr(node, name, default=None):
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def pointwise_conv(g: _Graph, node):
    """(weight [Cout, Cin, 1, ..], bias [Cout] or None) of a Conv node with constant float32 operands,
    kernel 1, no padding, stride or dilation and one group; None for anything else."""
    if node.op_type != "Conv" or len(node.input) < 2:
        return None
    w = g.const(node.input[1])
    b = g.const(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    if w is None or w.dtype != np.float32 or w.ndim < 3 or any(s != 1 for s in w.shape[2:]):
        return None
    if b is not None and (b.dtype != np.float32 or b.shape != (w.shape[0],)):
        return None
    if (_attr(node, "group", 1) != 1 or any(v != 1 for v in _attr(node, "strides", []) or [])
            or any(v != 0 for v in _attr(node, "pads", []) or []) or any(v != 1 for v in _attr(node, "dilations", []) or [])
            or _attr(node, "auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET", b"VALID", "VALID")):
        return None
    return w, b


def _match_conv1x1(g: _Graph, node, x: str, cin: int, cout: int, folded: list):
    """Conv 1x1 over x (through shape-only nodes): returns (weight [Cout, Cin], bias or None)."""
    match = pointwise_conv(g, node)
    if match is None or match[0].shape[:2] != (cout, cin):
        return None
    w, b = match
    # walk the Conv's data input back to x through shape-only nodes
    src, chain = node.input[0], []
    while src != x:
        prod = g.producer.get(src)
        if prod is None or prod.op_type not in _PASS_THROUGH:
            return None
        chain.append(prod)
        src = prod.input[0]
    folded.extend(chain)
    return w.reshape(cout, cin), b


def per_channel(value: Optional[np.ndarray], c: int, rank: int) -> Optional[np.ndarray]:
    """`value` (a float32 constant multiplied into a tensor [N, C, S...] of `rank` axes) as a [c]
    vector when it is a per-channel factor: C (or 1) on axis 1 and 1 elsewhere after broadcasting;
    else None."""
    if value is None or value.dtype != np.float32 or value.ndim > rank or rank < 2:
        return None
    full = [1] * (rank - value.ndim) + list(value.shape)
    if full[1] not in (1, c) or any(v != 1 for i, v in enumerate(full) if i != 1):
        return None
    return np.broadcast_to(value.reshape(-1), (c,)).astype(np.float32)


def _match_skip(g: _Graph, other: str, x: str, cin: int, cout: int, rank: int):
    """(kind, weight, bias, folded nodes) for the Add operand `other` (x has `rank` axes), or None."""
    if other == x:
        return ("identity", np.eye(cout, cin, dtype=np.float32), None, []) if cin == cout else None
    folded: list = []
    src = other
    # shape-only nodes after the skip op (the Reshape back of a flattened Conv1d)
    while True:
        prod = g.producer.get(src)
        if prod is None:
            return None
        if prod.op_type in _PASS_THROUGH:
            folded.append(prod)
            src = prod.input[0]
            continue
        break
    folded.append(prod)
    if prod.op_type == "Conv":
        hit = _match_conv1x1(g, prod, x, cin, cout, folded)
        return None if hit is None else ("conv1x1", hit[0], hit[1], folded)
    if prod.op_type == "Mul" and cin == cout and len(prod.input) == 2 and x in prod.input and not folded[:-1]:
        gate = g.const(prod.input[1] if prod.input[0] == x else prod.input[0])
        gate = per_channel(gate, cin, rank) if gate is not None and gate.size == cin else None
        if gate is None:
            return None
        return "soft-gating", np.diag(gate).astype(np.float32), None, folded
    return None


def match_activation(g: _Graph, add_out: str):
    """(activation code, folded nodes, output name) of the activation that alone reads `add_out`
    (Gelu exact / tanh, Relu, Tanh, Mul(v, Sigmoid(v))); (0, [], add_out) when there is none."""
    users = g.consumers.get(add_out, [])
    if add_out in g.outputs:
        return 0, [], add_out
    if len(users) == 1:
        t = users[0]
        if t.op_type == "Gelu":
            approx = _attr(t, "approximate", b"none")
            approx = approx.decode() if isinstance(approx, bytes) else approx
            code = {"none": _op.ACTIVATIONS["gelu"], "tanh": _op.ACTIVATIONS["gelu_tanh"]}.get(approx)
            if code is not None:
                return code, [t], t.output[0]
        if t.op_type in ("Relu", "Tanh"):
            return _op.ACTIVATIONS[t.op_type.lower()], [t], t.output[0]
    if len(users) == 2:  # SiLU: Mul(v, Sigmoid(v))
        sig = next((u for u in users if u.op_type == "Sigmoid"), None)
        mul = next((u for u in users if u.op_type == "Mul"), None)
        if sig is not None and mul is not None and g.only_consumer(sig.output[0]) is mul \
                and sorted(mul.input) == sorted([add_out, sig.output[0]]):
            return _op.ACTIVATIONS["silu"], [sig, mul], mul.output[0]
    return 0, [], add_out


def find_candidates(proto) -> list[_Candidate]:
    g = _Graph(proto.graph)
    found = []
    for s in proto.graph.node:
        if s.op_type != _op.OP_TYPE or s.domain != _op.DOMAIN or len(s.input) > 3 or _attr(s, _op.ATTR_ACTIVATION, 0):
            continue
        if _attr(s, _op.ATTR_OUTPUT_SIZE) is not None:
            continue  # a resampling layer: its skip cannot be a pointwise map of x (the op refuses it)
        w = g.const(s.input[1])
        if w is None or w.dtype != np.float32:
            continue
        separable = int(_attr(s, _op.ATTR_SEPARABLE, 0))
        cin = w.shape[0]
        cout = cin if separable else w.shape[1]
        if len(s.input) > 2 and s.input[2] and (g.const(s.input[2]) is None):
            continue  # a bias computed at run time: leave the node alone
        add = g.only_consumer(s.output[0])
        if add is None or add.op_type != "Add" or len(add.input) != 2:
            continue
        other = add.input[1] if add.input[0] == s.output[0] else add.input[0]
        skip = _match_skip(g, other, s.input[0], cin, cout, w.ndim - 1)
        if skip is None:
            continue
        kind, sw, sb, skip_nodes = skip
        act, act_nodes, out = match_activation(g, add.output[0])
        found.append(_Candidate(spectral=s, x=s.input[0], out=out, nodes=[s, add, *act_nodes], skip_nodes=skip_nodes,
                                skip_kind=kind, skip_weight=sw, skip_bias=sb, activation=act))
    return found


def _fused_node_and_inits(g: _Graph, c: _Candidate, unique: str):
    """The fused NodeProto plus its new initializers (skip weight, combined bias)."""
    from onnx import helper, numpy_helper

    s = c.spectral
    cout = g.const(s.input[1]).shape[0 if _attr(s, _op.ATTR_SEPARABLE, 0) else 1]
    bias = np.zeros(cout, np.float32)
    if len(s.input) > 2 and s.input[2]:
        bias = bias + g.const(s.input[2]).astype(np.float32)
    if c.skip_bias is not None:
        bias = bias + c.skip_bias
    bias_name, skip_name = f"{unique}.fused_bias", f"{unique}.skip_weight"
    inits = [numpy_helper.from_array(bias.astype(np.float32), bias_name),
             numpy_helper.from_array(np.ascontiguousarray(c.skip_weight, dtype=np.float32), skip_name)]
    attrs = {a.name: helper.get_attribute_value(a) for a in s.attribute}
    attrs[_op.ATTR_ACTIVATION] = int(c.activation)
    node = helper.make_node(_op.OP_TYPE, [c.x, s.input[1], bias_name, skip_name], [c.out], name=s.name or unique,
                            domain=_op.DOMAIN, **attrs)
    return node, inits


def exposed_values(proto, names: Sequence[str], feeds: dict, providers) -> dict:
    """Runs the unfused graph with `names` added as outputs; returns {name: array}."""
    import onnx

    from turbofno.session import make_session

    model = onnx.ModelProto()
    model.CopyFrom(proto)
    have = {o.name for o in model.graph.output}
    for n in names:
        if n not in have:
            model.graph.output.append(onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None))
            have.add(n)
    sess = make_session(model.SerializeToString(), providers=list(providers), log_severity_level=3)
    values = sess.run(list(names), feeds)
    return dict(zip(names, values))


def _run_fused(proto, node, inits: list, x: np.ndarray, providers) -> np.ndarray:
    import onnx

    from turbofno.session import make_session

    g = proto.graph
    needed = [i for i in g.initializer if i.name == node.input[1]] + list(inits)
    graph = onnx.helper.make_graph(
        [node], "fused_layer_check", [onnx.helper.make_tensor_value_info(node.input[0], onnx.TensorProto.FLOAT, None)],
        [onnx.helper.make_tensor_value_info(node.output[0], onnx.TensorProto.FLOAT, None)], initializer=needed)
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17),
                                                         onnx.helper.make_opsetid(_op.DOMAIN, _op.OPSET_VERSION_FUSED)])
    model.ir_version = min(proto.ir_version, 10) or 10
    sess = make_session(model.SerializeToString(), providers=list(providers), log_severity_level=3)
    return sess.run(None, {node.input[0]: x})[0]


def fuse(proto, feeds: dict, *, layer_rtol: float = 1e-5, providers: Sequence[str] = ("CPUExecutionProvider",)):
    """Fuses every verified FNO layer of `proto` in place. Returns ([FusedLayer], [str] reasons a
    matched pattern was left unfused)."""
    candidates = find_candidates(proto)
    if not candidates:
        return [], []
    g = _Graph(proto.graph)
    try:
        values = exposed_values(proto, sorted({n for c in candidates for n in (c.x, c.out)}), feeds, providers)
    except Exception as err:  # noqa: BLE001 - without the check nothing is fused; the export goes on unfused
        return [], [f"the per-layer check could not run the unfused graph in ONNX Runtime "
                    f"({str(err).splitlines()[0][:200]}); nothing fused"]
    fused, skipped, replace = [], [], []
    for k, c in enumerate(candidates):
        unique = c.spectral.name or f"spectral_conv_{k}"
        node, inits = _fused_node_and_inits(g, c, unique)
        try:
            got = _run_fused(proto, node, inits, values[c.x], providers)
        except Exception as err:  # noqa: BLE001 - the fused node does not run on this layer: keep it unfused
            skipped.append(f"{unique}: the fused node fails on the layer's input ({str(err).splitlines()[0][:200]}); "
                           "kept unfused")
            continue
        ref = values[c.out].astype(np.float64)
        if got.shape != ref.shape:
            skipped.append(f"{unique}: fused output shape {got.shape} != {ref.shape}; kept unfused")
            continue
        err = float(np.linalg.norm(got.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-30))
        if not err <= layer_rtol:
            skipped.append(f"{unique}: fused layer differs from the unfused graph (rel L2 {err:.3g} > {layer_rtol:g}); "
                           "kept unfused")
            continue
        replace.append((c, node, inits))
        fused.append(FusedLayer(node=unique, skip=c.skip_kind, activation=_op.ACTIVATION_NAMES[c.activation],
                                folded=[n.op_type for n in reversed(c.skip_nodes)] + [n.op_type for n in c.nodes[1:]],
                                layer_rel_err=err))
    if not replace:
        return fused, skipped
    splice(proto, g, [(c.nodes, c.skip_nodes, node, inits) for c, node, inits in replace])
    for o in proto.opset_import:
        if o.domain == _op.DOMAIN:
            o.version = _op.OPSET_VERSION_FUSED
    return fused, skipped


def splice(proto, g: _Graph, items) -> None:
    """Replaces matched subgraphs in place. items: (nodes, side_nodes, new_node, new_initializers):
    `nodes` are removed and `new_node` (a node or a list of nodes) takes the place of the last of them
    (all its inputs exist by then); `side_nodes` (listed consumer first) are removed too when nothing but removed nodes reads
    them. Initializers and Constant nodes nothing reads any more go as well."""
    drop = {id(n) for nodes, _, _, _ in items for n in nodes}
    for _, side, _, _ in items:
        for n in side:
            if all(id(u) in drop for o in n.output for u in g.consumers.get(o, [])) and \
                    not any(o in g.outputs for o in n.output):
                drop.add(id(n))
    order = {id(n): i for i, n in enumerate(proto.graph.node)}
    last_of = {max(order[id(n)] for n in nodes): node for nodes, _, node, _ in items}
    new_nodes = []
    for i, n in enumerate(proto.graph.node):
        if id(n) not in drop:
            new_nodes.append(n)
        if i in last_of:
            new_nodes.extend(last_of[i] if isinstance(last_of[i], list) else [last_of[i]])
    del proto.graph.node[:]
    proto.graph.node.extend(new_nodes)
    for _, _, _, inits in items:
        proto.graph.initializer.extend(inits)
    _drop_unused(proto)


def _drop_unused(proto) -> None:
    """Removes initializers and Constant nodes nothing reads any more (the folded skip weights)."""
    g = proto.graph
    while True:
        used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
        dead = [n for n in g.node if n.op_type == "Constant" and not (set(n.output) & used)]
        for n in dead:
            g.node.remove(n)
        if not dead:
            break
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    keep = [i for i in g.initializer if i.name in used]
    if len(keep) != len(g.initializer):
        del g.initializer[:]
        g.initializer.extend(keep)
