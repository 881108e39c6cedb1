"""Fold each pointwise channel MLP (1x1 Conv, activation, 1x1 Conv, then optionally a residual add and
an activation) into one `ai.turbofno::PointwiseMLP` node (docs/op.md "PointwiseMLP", op opset 2).

Works on the exported ONNX graph after the SpectralConv fusion (turbofno.export.fuse) and before the
pointwise Conv1d -> MatMul rewrite (turbofno.export.conv1x1: the Convs folded here are gone by then,
so they are neither rewritten nor counted as kept). The pattern, per point of x [N, Cin, *S]:

    [Reshape*]  Conv(W1, b1; kernel 1)  hact  Conv(W2, b2; kernel 1)  [Reshape*]
        --> [ Add <-- R  |  Add <-- Mul(R, G) ]  --> [ act ]

with the Reshape / Flatten / (Un)squeeze chains that neuraloperator's ChannelMLP puts around its
Conv1d over the flattened spatial axes (folded only in pairs: the op is rank-agnostic, so x and the
result keep the unflattened layout), hact and act Gelu (exact or tanh), Relu, Tanh or
Mul(v, Sigmoid(v)) (SiLU), R any non-constant tensor and G a constant per-channel factor
([1, C, 1, ..]: neuraloperator's soft-gating skip). Covered: neuraloperator FNO / TFNO blocks
(channel_mlp + soft-gating / identity / linear channel_mlp_skip + the block's activation), their
lifting and projection ChannelMLPs.

nn.Linear MLPs on channels-last data (MatMul(t, W[Cin, Cout]) [+ Add(b)] or Gemm layers) fold too,
without a residual: behind a Transpose that moves the channels last (perm [0, 2, .., r-1, 1]: the
classic Li et al. fc1 / fc2 head after permute(0, 2, 3, 1)) the node reads the Transpose's input and
the same Transpose is applied to its output (6 nodes -> 2); on a rank-2 tensor [P, C] (points, as
a PhysicsNeMo-style decoder after grid_to_points) channels last is channels on axis 1, no Transpose.

Like the SpectralConv fusion, a match is structural first (constant float32 weights, kernel 1, no
padding / stride / dilation / groups, every folded intermediate read only by the next folded node),
then numerical: the unfused graph runs in ONNX Runtime with each candidate's x, R and output exposed,
the fused node runs on that x (and R), and the fusion is kept only when the relative L2 error is
<= layer_rtol (and x, R and the output have the shapes the op needs). The fused node can be
evaluated by another function (`evaluate=`, e.g. `reference_evaluate`, the float64 NumPy reference)
so the matching can be tested without a library that has the op.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from turbofno import _op
from turbofno.export.fuse import _PASS_THROUGH, _attr, _Graph, exposed_values, match_activation, per_channel, \
    pointwise_conv, splice


@dataclass
class FusedMLP:
    node: str                   # name of the PointwiseMLP node
    channels: tuple             # (Cin, Ch, Cout)
    hidden_activation: str      # _op.ACTIVATIONS key
    residual: str               # "none", "tensor" (R) or "gated" (R with per-channel G)
    activation: str             # _op.ACTIVATIONS key
    folded: list = field(default_factory=list)   # op types folded into the node, graph order
    layer_rel_err: float = float("nan")
    layout: str = "channels-first"  # "channels-last": nn.Linear layers (a Transpose follows the node if one preceded)


@dataclass
class _Candidate:
    name: str
    x: str                      # the fused node's input
    out: str                    # the tensor it produces (last folded node's output)
    nodes: list                 # folded nodes, all removed
    side_nodes: list            # the Reshape chain in front of the first Conv: removed unless read elsewhere
    w1: np.ndarray              # [Ch, Cin] float32
    b1: Optional[np.ndarray]
    w2: np.ndarray              # [Cout, Ch]
    b2: Optional[np.ndarray]
    hidden_activation: int
    residual: Optional[str] = None      # tensor name of R
    gate: Optional[np.ndarray] = None   # the Mul's constant as found (checked per channel against R's rank)
    activation: int = 0
    perm: Optional[list] = None         # channels-last MLP: the Transpose that moved channels last (redone after)
    channels_last: bool = False         # MatMul / Gemm layers: channels on the last axis

    @property
    def residual_kind(self) -> str:
        return "none" if self.residual is None else ("gated" if self.gate is not None else "tensor")


def _conv(g: _Graph, node):
    """(weight [Cout, Cin], bias or None, spatial rank of the Conv) of a default-domain pointwise Conv."""
    if node.domain not in ("", "ai.onnx") or len(node.output) != 1:
        return None
    match = pointwise_conv(g, node)
    if match is None:
        return None
    w, b = match
    return w.reshape(w.shape[0], w.shape[1]), b, w.ndim - 2


def _pass_through_back(g: _Graph, name: str) -> list:
    """The shape-only nodes producing `name` from further back, nearest first."""
    chain = []
    while True:
        prod = g.producer.get(name)
        if prod is None or prod.op_type not in _PASS_THROUGH or prod.domain not in ("", "ai.onnx"):
            return chain
        chain.append(prod)
        name = prod.input[0]


def _pass_through_forward(g: _Graph, name: str, limit: int) -> list:
    """Up to `limit` shape-only nodes, each the only reader of the previous tensor, after `name`."""
    chain = []
    while len(chain) < limit:
        user = g.only_consumer(name)
        if user is None or user.op_type not in _PASS_THROUGH or user.domain not in ("", "ai.onnx") \
                or user.input[0] != name:
            break
        chain.append(user)
        name = user.output[0]
    return chain


def _linear(g: _Graph, node):
    """One pointwise linear layer starting at `node`: (weight [Cout, Cin], bias or None, folded nodes,
    output name, data input name, kind) with kind ("conv", spatial rank) for a 1x1 Conv (channels on
    axis 1) or ("linear", None) for MatMul(t, W[Cin, Cout]) [+ Add(b[Cout])] / Gemm (channels on the last
    axis: nn.Linear); None for anything else."""
    if node.domain not in ("", "ai.onnx") or len(node.output) != 1:
        return None
    if node.op_type == "Conv":
        m = _conv(g, node)
        return None if m is None else (m[0], m[1], [node], node.output[0], node.input[0], ("conv", m[2]))
    if node.op_type == "Gemm":
        a = {k: _attr(node, k, d) for k, d in (("alpha", 1.0), ("beta", 1.0), ("transA", 0), ("transB", 0))}
        w = g.const(node.input[1]) if len(node.input) > 1 else None
        if a["alpha"] != 1.0 or a["beta"] != 1.0 or a["transA"] or w is None or w.dtype != np.float32 \
                or w.ndim != 2 or g.const(node.input[0]) is not None:
            return None
        w = w if a["transB"] else w.T
        b = g.const(node.input[2]) if len(node.input) > 2 and node.input[2] else None
        if len(node.input) > 2 and node.input[2] and (b is None or b.dtype != np.float32 or b.size != w.shape[0]
                                                      or b.ndim > 1):
            return None
        return w, None if b is None else b.reshape(-1), [node], node.output[0], node.input[0], ("linear", None)
    if node.op_type != "MatMul" or len(node.input) != 2:
        return None
    w = g.const(node.input[1])
    if w is None or w.dtype != np.float32 or w.ndim != 2 or g.const(node.input[0]) is not None:
        return None
    w, nodes, out, b = w.T, [node], node.output[0], None
    add = g.only_consumer(out)
    if add is not None and add.op_type == "Add" and len(add.input) == 2 and add.domain in ("", "ai.onnx"):
        bias = g.const(add.input[1] if add.input[0] == out else add.input[0])
        if bias is not None and bias.dtype == np.float32 and bias.ndim == 1 and bias.shape[0] == w.shape[0]:
            b, out = bias, add.output[0]
            nodes.append(add)
    return w, b, nodes, out, node.input[0], ("linear", None)


def _transpose_to_last(node) -> Optional[list]:
    """perm of a Transpose that moves axis 1 last ([0, 2, .., r-1, 1], r >= 3), else None."""
    if node is None or node.op_type != "Transpose" or node.domain not in ("", "ai.onnx"):
        return None
    perm = list(_attr(node, "perm", []) or [])
    return perm if len(perm) >= 3 and perm == [0, *range(2, len(perm)), 1] else None


def _match(g: _Graph, first_node, taken: set) -> Optional[_Candidate]:
    first = _linear(g, first_node)
    if first is None:
        return None
    w1, b1, nodes1, t1, x, kind = first
    if g.const(x) is not None:
        return None  # an MLP of a constant is constant folding's business, not a kernel's
    hact, act_nodes, h = match_activation(g, t1)
    if not act_nodes:
        return None  # two linear layers in a row (no activation) are not this pattern
    second_node = g.only_consumer(h)
    second = None if second_node is None else _linear(g, second_node)
    if second is None or second[5] != kind or second[4] != h or second[0].shape[1] != w1.shape[0]:
        return None
    w2, b2, nodes2, y, _, _ = second
    name = first_node.name or first_node.output[0]
    if kind[0] == "linear":  # nn.Linear on channels-last data: a Transpose in front, or rank 2 ([P, C])
        tr = g.producer.get(x)
        perm = _transpose_to_last(tr)
        nodes = [*nodes1, *act_nodes, *nodes2]
        c = _Candidate(name=name, x=tr.input[0] if perm else x, out=y, nodes=nodes, side_nodes=[tr] if perm else [],
                       w1=w1, b1=b1, w2=w2, b2=b2, hidden_activation=hact, perm=perm, channels_last=True)
        act, out_act, c.out = match_activation(g, y)
        if out_act:
            c.activation = act
            nodes.extend(out_act)
        return None if any(id(n) in taken for n in nodes) else c
    # flatten / unflatten pairs around the Convs (neuraloperator's ChannelMLP on 2D / 3D data)
    back = _pass_through_back(g, x)
    fwd = _pass_through_forward(g, y, len(back))
    back = back[:len(fwd)]
    x = back[-1].input[0] if back else x
    nodes = [*nodes1, *act_nodes, *nodes2, *fwd]
    y = nodes[-1].output[0]
    c = _Candidate(name=name, x=x, out=y, nodes=nodes, side_nodes=back, w1=w1, b1=b1,
                   w2=w2, b2=b2, hidden_activation=hact)
    add = g.only_consumer(y)
    if add is not None and add.op_type == "Add" and len(add.input) == 2 and add.domain in ("", "ai.onnx") \
            and add.input[0] != add.input[1]:
        other = add.input[1] if add.input[0] == y else add.input[0]
        mul = g.producer.get(other)
        if g.const(other) is None and other not in {o for n in nodes for o in n.output}:
            c.residual = other
            if mul is not None and mul.op_type == "Mul" and len(mul.input) == 2 and g.only_consumer(other) is add:
                consts = [g.const(i) for i in mul.input]
                if (consts[0] is None) != (consts[1] is None):
                    k = 0 if consts[0] is not None else 1
                    if consts[k].dtype == np.float32 and consts[k].size in (1, w2.shape[0]):
                        c.residual, c.gate = mul.input[1 - k], consts[k]
                        nodes.append(mul)
            nodes.append(add)
            y = add.output[0]
    act, out_act, y = match_activation(g, y)
    if out_act:
        c.activation = act
        nodes.extend(out_act)
    c.out = y
    if any(id(n) in taken for n in nodes):
        return None
    return c


def find_candidates(proto) -> list[_Candidate]:
    """Every structurally matching MLP, in graph order, none sharing a node with another."""
    g = _Graph(proto.graph)
    found, taken = [], set()
    for node in proto.graph.node:
        if node.op_type not in ("Conv", "MatMul", "Gemm") or id(node) in taken:
            continue
        c = _match(g, node, taken)
        if c is None:
            continue
        found.append(c)
        taken.update(id(n) for n in c.nodes)
    return found


def _fused_node(c: _Candidate, gate: Optional[np.ndarray], unique: str):
    """The PointwiseMLP NodeProto and its new initializers. Both biases are always inputs (zeros when
    the Conv had none: TensorRT's inputs are positional); R and G are left out at the end when absent.
    A channels-last MLP behind a Transpose writes a channels-first tensor (_transpose_back follows)."""
    from onnx import helper, numpy_helper

    from turbofno.reference import mlp_node_attributes

    ch, cout = c.w1.shape[0], c.w2.shape[0]
    arrays = {"w1": c.w1, "b1": c.b1 if c.b1 is not None else np.zeros(ch, np.float32),
              "w2": c.w2, "b2": c.b2 if c.b2 is not None else np.zeros(cout, np.float32)}
    inits = [numpy_helper.from_array(np.ascontiguousarray(v, dtype=np.float32), f"{unique}.{k}")
             for k, v in arrays.items()]
    inputs = [c.x, f"{unique}.w1", f"{unique}.b1", f"{unique}.w2", f"{unique}.b2"]
    if c.residual is not None:
        inputs.append(c.residual)
        if gate is not None:
            inits.append(numpy_helper.from_array(np.ascontiguousarray(gate, dtype=np.float32), f"{unique}.gate"))
            inputs.append(f"{unique}.gate")
    out = f"{unique}.channels_first" if c.perm else c.out
    node = helper.make_node(_op.MLP_OP_TYPE, inputs, [out], name=unique, domain=_op.DOMAIN,
                            **mlp_node_attributes(c.hidden_activation, c.activation))
    return node, inits


def _transpose_back(c: _Candidate, node):
    """The Transpose that gives a channels-last MLP's consumers the layout they read."""
    from onnx import helper

    return helper.make_node("Transpose", [node.output[0]], [c.out], name=f"{node.name}.to_channels_last", perm=c.perm)


def ort_evaluate(providers: Sequence[str] = ("CPUExecutionProvider",)) -> Callable:
    """An `evaluate` function for fuse(): runs the one fused node in ONNX Runtime with our library."""
    def run(node, inits: list, feeds: dict) -> np.ndarray:
        import onnx

        from turbofno.session import make_session

        graph = onnx.helper.make_graph(
            [node], "pointwise_mlp_check",
            [onnx.helper.make_tensor_value_info(k, onnx.TensorProto.FLOAT, None) for k in feeds],
            [onnx.helper.make_tensor_value_info(node.output[0], onnx.TensorProto.FLOAT, None)], initializer=inits)
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17),
                                                             onnx.helper.make_opsetid(_op.DOMAIN, _op.MLP_OPSET_VERSION)])
        model.ir_version = 10
        sess = make_session(model.SerializeToString(), providers=list(providers), log_severity_level=3)
        return sess.run(None, feeds)[0]
    return run


def reference_evaluate(node, inits: list, feeds: dict) -> np.ndarray:
    """An `evaluate` function for fuse(): the fused node in the float64 NumPy reference (no library)."""
    from onnx import helper, numpy_helper

    from turbofno.reference import pointwise_mlp

    values = dict(feeds)
    values.update({i.name: numpy_helper.to_array(i) for i in inits})
    args = [values[n] if n else None for n in node.input] + [None] * (len(_op.MLP_INPUTS) - len(node.input))
    a = {x.name: helper.get_attribute_value(x) for x in node.attribute}
    return pointwise_mlp(*args, hidden_activation=a.get(_op.ATTR_HIDDEN_ACTIVATION, 1),
                         activation=a.get(_op.ATTR_ACTIVATION, 0)).astype(np.float32)


def fuse(proto, feeds: dict, *, layer_rtol: float = 1e-5, providers: Sequence[str] = ("CPUExecutionProvider",),
         evaluate: Optional[Callable] = None):
    """Fuses every verified pointwise MLP of `proto` in place. Returns ([FusedMLP], [str] notes: matched
    MLPs left unfused, with the reason). evaluate(node, initializers, feeds) -> output computes a fused
    node; default: ONNX Runtime with our library under `providers`, and nothing is fused (one note)
    when the loaded library cannot run PointwiseMLP."""
    candidates = find_candidates(proto)
    if not candidates:
        return [], []
    if evaluate is None:
        from turbofno.session import pointwise_mlp_error

        why = pointwise_mlp_error(list(providers))
        if why is not None:
            return [], [f"{len(candidates)} pointwise MLP(s) matched, but the loaded TurboFNO library cannot run "
                        f"{_op.MLP_OP_TYPE} ({why}); MLP fusion skipped (a library built with the op fuses them)"]
        evaluate = ort_evaluate(providers)
    g = _Graph(proto.graph)
    names = sorted({n for c in candidates for n in (c.x, c.out, c.residual) if n})
    try:
        values = exposed_values(proto, names, feeds, providers)
    except Exception as err:  # noqa: BLE001 - without the check nothing is fused; the export goes on unfused
        return [], [f"the per-MLP check could not run the unfused graph in ONNX Runtime "
                    f"({str(err).splitlines()[0][:200]}); no MLP fused"]
    fused, notes, replace = [], [], []
    used_names = {n.name for n in proto.graph.node}
    for k, c in enumerate(candidates):
        unique = f"{c.name}.pointwise_mlp"
        while unique in used_names:
            unique += "_"
        used_names.add(unique)
        x, ref = values[c.x], values[c.out]
        cout = c.w2.shape[0]
        if c.channels_last:  # compare in the op's layout: channels on axis 1
            rank = len(c.perm) if c.perm else 2
            if x.ndim != rank or ref.ndim != rank:
                notes.append(f"{c.name}: a channels-last MLP on a rank-{x.ndim} tensor without a Transpose that moves "
                             f"the channels last (only rank 2 [P, C] needs none); kept unfused")
                continue
            if c.perm:
                ref = np.transpose(ref, np.argsort(c.perm))
        want = (x.shape[0], cout, *x.shape[2:]) if x.ndim >= 2 else None
        if want is None or x.shape[1] != c.w1.shape[1] or ref.shape != want:
            notes.append(f"{c.name}: input {list(x.shape)} / output {list(ref.shape)} are not [N, C, *S] with the same "
                         f"N and S (Cin {c.w1.shape[1]}, Cout {cout}); kept unfused")
            continue
        gate, feed = None, {c.x: x}
        if c.residual is not None:
            r = values[c.residual]
            if r.shape != ref.shape:
                notes.append(f"{c.name}: residual {list(r.shape)} is not the output's shape {list(ref.shape)} (the op "
                             "does not broadcast it); kept unfused")
                continue
            feed[c.residual] = r
            if c.gate is not None:
                gate = per_channel(c.gate, cout, r.ndim)
                if gate is None:
                    notes.append(f"{c.name}: the residual's factor {list(c.gate.shape)} is not per channel; kept unfused")
                    continue
        node, inits = _fused_node(c, gate, unique)
        try:
            got = evaluate(node, inits, feed)
        except Exception as err:  # noqa: BLE001 - the fused node does not run here: keep the MLP unfused
            notes.append(f"{c.name}: the fused node fails on the MLP's input ({str(err).splitlines()[0][:200]}); "
                         "kept unfused")
            continue
        if got.shape != ref.shape:
            notes.append(f"{c.name}: fused output shape {got.shape} != {ref.shape}; kept unfused")
            continue
        ref64 = ref.astype(np.float64)
        err = float(np.linalg.norm(got.astype(np.float64) - ref64) / max(np.linalg.norm(ref64), 1e-30))
        if not err <= layer_rtol:
            notes.append(f"{c.name}: fused MLP differs from the unfused graph (rel L2 {err:.3g} > {layer_rtol:g}); "
                         "kept unfused")
            continue
        replace.append((c, [node, _transpose_back(c, node)] if c.perm else node, inits))
        fused.append(FusedMLP(node=unique, channels=(c.w1.shape[1], c.w1.shape[0], cout),
                              hidden_activation=_op.ACTIVATION_NAMES[c.hidden_activation], residual=c.residual_kind,
                              activation=_op.ACTIVATION_NAMES[c.activation],
                              folded=[n.op_type for n in reversed(c.side_nodes)] + [n.op_type for n in c.nodes],
                              layer_rel_err=err, layout="channels-last" if c.channels_last else "channels-first"))
    if not replace:
        return fused, notes
    splice(proto, g, [(c.nodes, c.side_nodes, node, inits) for c, node, inits in replace])
    drop_dead_nodes(proto)
    have = False
    for o in proto.opset_import:
        if o.domain == _op.DOMAIN:
            o.version = max(o.version, _op.MLP_OPSET_VERSION)
            have = True
    if not have:
        proto.opset_import.append(__import__("onnx").helper.make_opsetid(_op.DOMAIN, _op.MLP_OPSET_VERSION))
    return fused, notes


def drop_dead_nodes(proto) -> int:
    """Removes default-domain nodes whose outputs nobody reads (the shape arithmetic that fed the folded
    Reshapes), repeatedly; returns how many. Nothing when a node has a subgraph (If / Loop / Scan),
    whose body may read outer names."""
    g = proto.graph
    removed = 0
    if any(a.type in (5, 10) for n in g.node for a in n.attribute):  # GRAPH / GRAPHS: outer names read inside
        return 0
    while True:
        used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
        dead = [n for n in g.node if n.domain in ("", "ai.onnx") and not (set(n.output) & used)]
        if not dead:
            break
        gone = {id(n) for n in dead}
        keep = [n for n in g.node if id(n) not in gone]
        del g.node[:]
        g.node.extend(keep)
        removed += len(dead)
    from turbofno.export.fuse import _drop_unused

    _drop_unused(proto)
    return removed
