"""`turbofno rewrite`: replace DFT-based spectral convolutions in an existing ONNX file by SpectralConv.

Exporters write a spectral convolution in many ways (DFT axes, slicing, real/imag einsums, pads,
concats), so regions are not matched by node pattern. Instead, per forward `DFT` node:

1. region: X = the real [N, C, S...] tensor the transform starts from (walking up through layout
   ops), Y = the first real tensor of X's spatial shape after an inverse DFT downstream; the nodes
   between them must depend only on X and constants, and nothing outside may use their
   intermediate results;
2. identification: the region is run alone in ONNX Runtime on probes (a zero input gives the bias;
   one unit-magnitude random-phase field per input channel gives W[i, o, k] = Y^(k) / X^(k));
   the kept modes are the smallest low/high box that holds every nonzero entry;
3. verification: the SpectralConv built from that must reproduce the region on fresh random
   inputs (relative L2 <= rtol), else the region is left as it is and the reason reported.

The whole rewritten model is then checked against the original in ORT on a random input.
com.microsoft Rfft/Irfft (CUDA-only contrib ops in ORT) cannot be evaluated on the CPU and are
reported, not rewritten.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from turbofno import _op, _rules

_LAYOUT_OPS = {"Unsqueeze", "Reshape", "Transpose", "Cast", "Identity"}


@dataclass
class RewrittenRegion:
    x: str
    y: str
    nodes: int
    modes_low: list
    modes_high: list
    separable: int
    bias: bool
    rel_err: float


@dataclass
class RewriteReport:
    rewritten: list = field(default_factory=list)   # [RewrittenRegion]
    skipped: list = field(default_factory=list)     # [str]: DFT regions left unchanged, with why
    rel_err: float = float("nan")                   # whole model, rewritten vs original (ORT)
    dft_before: int = 0
    dft_after: int = 0

    def summary(self) -> str:
        lines = [f"rewrote {len(self.rewritten)} spectral convolution(s); DFT nodes {self.dft_before} -> "
                 f"{self.dft_after}; whole model relative L2 vs original {self.rel_err:.3g}"]
        for r in self.rewritten:
            lines.append(f"  {r.x} -> {r.y}: {r.nodes} nodes -> SpectralConv modes_low={r.modes_low} "
                         f"modes_high={r.modes_high} separable={r.separable} bias={r.bias} (rel err {r.rel_err:.2g})")
        for s in self.skipped:
            lines.append(f"  left unchanged: {s}")
        return "\n".join(lines)


class RewriteError(RuntimeError):
    pass


def _attr(node, name, default=0):
    for a in node.attribute:
        if a.name == name:
            import onnx

            return onnx.helper.get_attribute_value(a)
    return default


def _is_dft(node, inverse: int) -> bool:
    return node.op_type == "DFT" and node.domain in ("", "ai.onnx") and int(_attr(node, "inverse", 0)) == inverse


def _session(model):
    from turbofno.session import make_session

    return make_session(model.SerializeToString(), providers=["CPUExecutionProvider"], log_severity_level=3)


def _all_values(model, feeds: dict) -> dict:
    """Every intermediate tensor of the top-level graph on `feeds` (for concrete shapes)."""
    import onnx

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    known = {o.name for o in probe.graph.output}
    for node in probe.graph.node:
        for out in node.output:
            if out and out not in known:
                probe.graph.output.append(onnx.ValueInfoProto(name=out))
                known.add(out)
    sess = _session(probe)
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(None, feeds)))


class _Graph:
    def __init__(self, model):
        self.model = model
        self.nodes = list(model.graph.node)
        self.producer = {}
        self.consumers: dict[str, list[int]] = {}
        for i, n in enumerate(self.nodes):
            for o in n.output:
                if o:
                    self.producer[o] = i
            for t in n.input:
                if t:
                    self.consumers.setdefault(t, []).append(i)
        self.initializers = {t.name for t in model.graph.initializer}
        self.graph_outputs = {o.name for o in model.graph.output}

    def descendants(self, tensor: str) -> set[int]:
        seen, stack = set(), list(self.consumers.get(tensor, []))
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            for o in self.nodes[i].output:
                stack.extend(self.consumers.get(o, []))
        return seen

    def ancestors(self, tensor: str, stop: str) -> set[int]:
        seen, stack = set(), [tensor]
        while stack:
            t = stack.pop()
            if t == stop or t not in self.producer:
                continue
            i = self.producer[t]
            if i in seen:
                continue
            seen.add(i)
            stack.extend(x for x in self.nodes[i].input if x)
        return seen

    def constant_only(self, tensor: str, memo: dict) -> bool:
        """True if `tensor` is an initializer or computed from constants only."""
        if tensor in memo:
            return memo[tensor]
        if tensor in self.initializers:
            memo[tensor] = True
        elif tensor not in self.producer:
            memo[tensor] = False   # a graph input
        else:
            node = self.nodes[self.producer[tensor]]
            memo[tensor] = all(self.constant_only(t, memo) for t in node.input if t)
        return memo[tensor]


def _find_region(g: _Graph, start: int, values: dict):
    """(X, Y, node indices) of the region opened by forward DFT node `start`, or a reason string."""
    t = g.nodes[start].input[0]
    while t in g.producer:
        node = g.nodes[g.producer[t]]
        if node.op_type in _LAYOUT_OPS or _is_dft(node, 0):
            t = node.input[0]
        else:
            break
    x = t
    xv = values.get(x)
    if xv is None or xv.dtype != np.float32 or xv.ndim not in (3, 4, 5):
        return f"DFT '{g.nodes[start].name or start}': input is not a float32 [N, C, S1..Sd] tensor"
    spatial = xv.shape[2:]
    below = g.descendants(x)
    after_inverse = set()
    for i in sorted(below):
        if _is_dft(g.nodes[i], 1) and start in g.ancestors(g.nodes[i].output[0], x):
            after_inverse |= g.descendants(g.nodes[i].output[0]) | {i}
    y = None
    for i in sorted(after_inverse):
        for o in g.nodes[i].output:
            v = values.get(o)
            if (v is not None and v.dtype == np.float32 and v.ndim == xv.ndim and v.shape[0] == xv.shape[0]
                    and v.shape[2:] == spatial):
                y = o
                break
        if y is not None:
            break
    if y is None:
        return f"DFT '{g.nodes[start].name or start}' on '{x}': no inverse transform back to {list(spatial)} found"
    region = g.ancestors(y, x) & below
    memo: dict = {}
    for i in sorted(g.ancestors(y, x) - below):  # constant helpers feeding the region
        if all(g.constant_only(o, memo) for o in g.nodes[i].output):
            region.add(i)
    for i in region:
        for t_in in g.nodes[i].input:
            if t_in and t_in != x and t_in not in g.initializers and g.producer.get(t_in) not in region:
                return f"region '{x}' -> '{y}' also depends on '{t_in}' (not a constant)"
    removable = set()
    for i in region:
        outs = [o for o in g.nodes[i].output if o]
        used_outside = any(c not in region for o in outs for c in g.consumers.get(o, [])) or \
            any(o in g.graph_outputs for o in outs)
        if y in outs or not used_outside:
            removable.add(i)
        elif not all(g.constant_only(o, memo) for o in outs):
            return f"region '{x}' -> '{y}': intermediate '{outs[0]}' is used outside the region"
    n_fwd = sum(_is_dft(g.nodes[i], 0) for i in region)
    n_inv = sum(_is_dft(g.nodes[i], 1) for i in region)
    if not n_fwd or not n_inv:
        return f"region '{x}' -> '{y}' lacks a forward or inverse DFT"
    return x, y, sorted(region), removable


def _submodel(model, g: _Graph, region: list, x: str, y: str, xshape):
    import onnx
    from onnx import helper

    nodes = [g.nodes[i] for i in region]
    used = {t for n in nodes for t in n.input}
    inits = [t for t in model.graph.initializer if t.name in used]
    dims = ["N"] + list(xshape[1:])
    graph = helper.make_graph(nodes, "region", [helper.make_tensor_value_info(x, onnx.TensorProto.FLOAT, dims)],
                              [onnx.ValueInfoProto(name=y)], inits)
    return helper.make_model(graph, opset_imports=list(model.opset_import), ir_version=model.ir_version)


def _run_batched(sess, x_name: str, inputs: np.ndarray, batch: int) -> np.ndarray:
    """Run in chunks of the graph's example batch size (regions may hard-code it)."""
    outs = []
    for s in range(0, len(inputs), batch):
        chunk = inputs[s:s + batch]
        pad = batch - len(chunk)
        if pad:
            chunk = np.concatenate([chunk, np.zeros((pad, *chunk.shape[1:]), chunk.dtype)])
        outs.append(sess.run(None, {x_name: chunk})[0][: batch - pad])
    return np.concatenate(outs)


def _unit_phase_fields(rng, count: int, spatial) -> np.ndarray:
    """Real fields whose rfftn has magnitude 1 at every bin (well-conditioned division)."""
    d = len(spatial)
    half = list(spatial[:-1]) + [spatial[-1] // 2 + 1]
    phase = np.exp(2j * np.pi * rng.random((count, *half)))
    x = np.fft.irfftn(phase, s=spatial, axes=tuple(range(1, d + 1)))
    spec = np.fft.rfftn(x, axes=tuple(range(1, d + 1)))  # the exact spectrum of the real field
    return x, spec


def _axis_box(axis_any: np.ndarray, s: int, last: bool) -> tuple[int, int]:
    idx = np.nonzero(axis_any)[0]
    if last:
        return int(idx.max()) + 1, 0
    signed = np.where(idx <= s // 2, idx, idx - s)
    p = int(signed[signed >= 0].max()) + 1 if (signed >= 0).any() else 1
    q = int(-signed[signed < 0].min()) if (signed < 0).any() else 0
    return (s, 0) if p + q > s else (p, q)


def _in_box(k: int, s: int, p: int, q: int) -> bool:
    return _rules.is_kept(k, s, p, q)


def _hermitian_columns(spatial) -> list[int]:
    """Last-axis bins whose column the inverse treats as Hermitian: DC, and Nyquist for even S_d."""
    s = spatial[-1]
    return [0] + ([s // 2] if s % 2 == 0 and s > 1 else [])


def _box(kept: np.ndarray, spatial) -> tuple[list, list]:
    """Smallest low/high box per axis holding the kept modes (kept: bool [S_1..S_{d-1}, S_d//2+1]).

    In the DC (and Nyquist) column only the Hermitian part of W matters, so a mode whose partner
    (-k) is in the box needs no room of its own (see `_fold_hermitian`); those columns are ignored
    when the other columns already fix the box and every nonzero mode there has itself or its
    partner inside it. Otherwise the box holds everything."""
    d = kept.ndim
    union = [_axis_box(kept.any(axis=tuple(a for a in range(d) if a != j)), spatial[j], j == d - 1)
             for j in range(d)]
    if d == 1:
        return [union[0][0]], [0]
    special = _hermitian_columns(spatial)
    regular = kept.copy()
    regular[..., special] = False
    if not regular.any():
        return [b[0] for b in union], [b[1] for b in union]
    box = [_axis_box(regular.any(axis=tuple(a for a in range(d) if a != j)), spatial[j], False)
           for j in range(d - 1)] + [union[-1]]
    for col in special:
        for k in zip(*np.nonzero(kept[..., col])):
            partner = tuple((-v) % spatial[j] for j, v in enumerate(k))
            if not (all(_in_box(v, spatial[j], *box[j]) for j, v in enumerate(k)) or
                    all(_in_box(v, spatial[j], *box[j]) for j, v in enumerate(partner))):
                return [b[0] for b in union], [b[1] for b in union]
    return [b[0] for b in box], [b[1] for b in box]


def _fold_hermitian(w: np.ndarray, spatial, lows, highs) -> np.ndarray:
    """In the DC/Nyquist columns, move the weight of modes outside the box onto their partner -k
    (inside it): W'(k) = W(k) + conj(W(-k)) keeps the Hermitian part, the only part that counts."""
    d = len(spatial)
    if d == 1:
        return w
    w = w.copy()
    for col in _hermitian_columns(spatial):
        if col >= lows[-1]:
            continue
        plane = w[..., col].copy()                       # [Cin, Cout, S_1..S_{d-1}]
        inside = np.ones(plane.shape[2:], bool)
        for j in range(d - 1):
            axis = np.array([_in_box(v, spatial[j], lows[j], highs[j]) for v in range(spatial[j])])
            inside &= axis.reshape([-1 if a == j else 1 for a in range(d - 1)])
        flipped = np.conj(plane)
        for j in range(d - 1):   # index -k along every non-last axis
            flipped = np.roll(np.flip(flipped, axis=2 + j), 1, axis=2 + j)
        partner_inside = inside.copy()
        for j in range(d - 1):
            partner_inside = np.roll(np.flip(partner_inside, axis=j), 1, axis=j)
        lonely = inside & ~partner_inside
        w[..., col] = np.where(lonely, plane + flipped, plane)
    return w


def _measure(sess, x_name: str, xshape, batch: int, rng):
    """(W [Cin, Cout, S_1..S_{d-1}, S_d//2+1] complex, bias or None) of a linear, shift-invariant
    region, or a reason string. W[i, o, k] = Y^(k) / X^(k) for a probe in channel i."""
    cin, spatial = xshape[1], tuple(xshape[2:])
    d = len(spatial)
    fields, spec = _unit_phase_fields(rng, cin, spatial)
    probes = np.zeros((cin + 1, cin, *spatial), np.float32)
    for i in range(cin):
        probes[1 + i, i] = fields[i]
    out = _run_batched(sess, x_name, probes, batch).astype(np.float64)
    base = out[0]                                          # response to 0: bias (if any)
    bias = base.reshape(base.shape[0], -1).mean(axis=1)
    if np.abs(base - bias.reshape(-1, *([1] * d))).max() > 1e-5 * max(1.0, np.abs(base).max()):
        return "the region's response to a zero input is not constant per channel (not a spectral convolution)"
    resp = np.fft.rfftn(out[1:] - base[None], axes=tuple(range(2, 2 + d)))   # [Cin, Cout, spectrum]
    w = resp / spec[:, None]
    if np.abs(w).max() == 0:
        return "the region maps everything to its bias"
    has_bias = np.abs(bias).max() > 1e-7 * max(1.0, np.abs(out).max())
    return w, (bias.astype(np.float32) if has_bias else None)


def _build(w: np.ndarray, spatial, threshold: float):
    """Op weight for the modes with |W| > threshold * max|W|: (weight, lows, highs, separable)."""
    d = len(spatial)
    cin = w.shape[0]
    scale = np.abs(w).max()
    kept = (np.abs(w) > threshold * scale).any(axis=(0, 1))
    lows, highs = _box(kept, spatial)
    w = _fold_hermitian(w, spatial, lows, highs)
    index = []
    for j in range(d):
        ks = _rules.kept_indices(spatial[j], lows[j], highs[j], j == d - 1)
        index.append(np.array(ks).reshape([-1 if a == j else 1 for a in range(d)]))
    wk = w[(slice(None), slice(None), *index)]
    separable = 0
    if cin == wk.shape[1] and cin > 1:
        off = wk.copy()
        off[np.arange(cin), np.arange(cin)] = 0
        if np.abs(off).max() <= max(threshold, 1e-6) * scale:
            wk = wk[np.arange(cin), np.arange(cin)][:, None]
            separable = 1
    return np.stack([wk.real, wk.imag], axis=-1).astype(np.float32), lows, highs, separable


# Relative magnitudes below which identified weights count as round-off, tried from the smallest
# box up; the first candidate that reproduces the region wins (0: keep every mode).
_THRESHOLDS = (1e-3, 1e-4, 1e-5, 0.0)


def _spectral_model(x: str, y: str, xshape, weight, bias, lows, highs, separable, opset_imports, ir_version):
    import onnx
    from onnx import helper, numpy_helper

    inits = [numpy_helper.from_array(weight, f"{y}__tfno_weight")]
    inputs = [x, inits[0].name]
    if bias is not None:
        inits.append(numpy_helper.from_array(bias, f"{y}__tfno_bias"))
        inputs.append(inits[1].name)
    node = helper.make_node(_op.OP_TYPE, inputs, [y], domain=_op.DOMAIN, name=f"{y}__SpectralConv",
                            **_rules.node_attributes(lows, highs, 0, separable))
    graph = helper.make_graph([node], "spectral", [helper.make_tensor_value_info(x, onnx.TensorProto.FLOAT,
                                                                                 ["N"] + list(xshape[1:]))],
                              [onnx.ValueInfoProto(name=y)], inits)
    opsets = [o for o in opset_imports if o.domain != _op.DOMAIN] + [helper.make_opsetid(_op.DOMAIN, _op.OPSET_VERSION)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=ir_version), node, inits


def _rel(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def _feeds(model, input_shapes: Optional[dict], rng) -> dict:
    import onnx

    init_names = {t.name for t in model.graph.initializer}
    feeds = {}
    for inp in model.graph.input:
        if inp.name in init_names:
            continue
        tt = inp.type.tensor_type
        if tt.elem_type != onnx.TensorProto.FLOAT:
            raise RewriteError(f"graph input '{inp.name}' is not float32; rewrite handles float32 models")
        if input_shapes and inp.name in input_shapes:
            shape = tuple(input_shapes[inp.name])
        else:
            dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
            if any(v is None for v in dims[1:]):
                raise RewriteError(f"graph input '{inp.name}' has symbolic non-batch dims {dims}; "
                                   "give its shape (--input-shape NAME=N,C,S...)")
            shape = tuple([dims[0] or 2] + dims[1:])
        feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def _as_model(model_or_path):
    """A ModelProto from a ModelProto, a path (str / PathLike) or the serialized model (bytes)."""
    import onnx

    if isinstance(model_or_path, onnx.ModelProto):
        return model_or_path
    if isinstance(model_or_path, (bytes, bytearray, memoryview)):
        try:
            return onnx.load_from_string(bytes(model_or_path))
        except Exception as err:  # noqa: BLE001 - protobuf's DecodeError and friends
            raise TypeError(f"rewrite() was given {len(model_or_path)} bytes that are not a serialized ONNX "
                            f"model ({type(err).__name__}); pass a path, an onnx.ModelProto or "
                            "model.SerializeToString()") from err
    if isinstance(model_or_path, str) or hasattr(model_or_path, "__fspath__"):
        return onnx.load(os.fspath(model_or_path))
    raise TypeError(f"rewrite() takes a path, an onnx.ModelProto or serialized model bytes, "
                    f"got {type(model_or_path).__name__}")


def rewrite(model_or_path, out_path: Optional[str] = None, *, input_shapes: Optional[dict] = None,
            rtol: float = 1e-4, seed: int = 0, verbose: bool = True):
    """Rewrite DFT-based spectral convolutions into SpectralConv nodes. Returns (model, RewriteReport);
    saves to `out_path` if given. Raises RewriteError if the result does not match the original."""
    import onnx

    model = _as_model(model_or_path)
    rng = np.random.default_rng(seed)
    report = RewriteReport()
    g = _Graph(model)
    report.dft_before = sum(n.op_type == "DFT" for n in g.nodes)
    contrib = [n.op_type for n in g.nodes if n.domain == "com.microsoft" and n.op_type in ("Rfft", "Irfft")]
    if contrib:
        report.skipped.append(f"{len(contrib)} com.microsoft Rfft/Irfft node(s): CUDA-only contrib ops, cannot be "
                              "evaluated on the CPU to identify the weights; not rewritten")
    feeds = _feeds(model, input_shapes, rng)
    values = {**feeds, **_all_values(model, feeds)}
    batch = next(iter(feeds.values())).shape[0]

    removed: set[int] = set()
    tried: set[tuple] = set()
    new_nodes: dict[int, tuple] = {}   # index of the region's last node -> (node, initializers)
    for i, node in enumerate(g.nodes):
        if i in removed or not _is_dft(node, 0):
            continue
        found = _find_region(g, i, values)
        if isinstance(found, str):
            if found not in report.skipped:
                report.skipped.append(found)
            continue
        x, y, region, removable = found
        if removed & set(region) or (x, y) in tried:
            continue  # already rewritten, or already tried from another DFT of the same region
        tried.add((x, y))
        xshape = values[x].shape
        sess = _session(_submodel(model, g, region, x, y, xshape))
        measured = _measure(sess, x, xshape, batch, rng)
        if isinstance(measured, str):
            report.skipped.append(f"region '{x}' -> '{y}': {measured}")
            continue
        w, bias = measured
        test = rng.standard_normal((batch, *xshape[1:])).astype(np.float32)
        want = sess.run(None, {x: test})[0]
        best = None
        for threshold in _THRESHOLDS:
            weight, lows, highs, separable = _build(w, tuple(xshape[2:]), threshold)
            replacement, new_node, inits = _spectral_model(x, y, xshape, weight, bias, lows, highs, separable,
                                                           model.opset_import, model.ir_version)
            err = _rel(_session(replacement).run(None, {x: test})[0], want)
            if err <= rtol:
                best = (weight, lows, highs, separable, new_node, inits, err)
                break
        if best is None:
            report.skipped.append(f"region '{x}' -> '{y}': not a spectral convolution the op can express "
                                  f"(identified op differs by relative L2 {err:.3g})")
            continue
        weight, lows, highs, separable, new_node, inits, err = best
        removed |= removable
        new_nodes[max(removable)] = (new_node, inits)
        report.rewritten.append(RewrittenRegion(x, y, len(removable), lows, highs, separable, bias is not None, err))

    if not report.rewritten:
        if verbose:
            print(report.summary())
        return model, report
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    for i, node in enumerate(g.nodes):
        if i in new_nodes:
            out.graph.node.append(new_nodes[i][0])
            out.graph.initializer.extend(new_nodes[i][1])
        elif i not in removed:
            out.graph.node.append(node)
    used = {t for n in out.graph.node for t in n.input} | {o.name for o in out.graph.output}
    keep = [t for t in out.graph.initializer if t.name in used]
    del out.graph.initializer[:]
    out.graph.initializer.extend(keep)
    if not any(o.domain == _op.DOMAIN for o in out.opset_import):
        out.opset_import.append(onnx.helper.make_opsetid(_op.DOMAIN, _op.OPSET_VERSION))
    out.ir_version = min(out.ir_version, _rules.MAX_IR_VERSION)
    # drop value_info of removed tensors
    alive = {o for n in out.graph.node for o in n.output}
    kept_vi = [v for v in out.graph.value_info if v.name in alive]
    del out.graph.value_info[:]
    out.graph.value_info.extend(kept_vi)

    check = _feeds(model, {k: v.shape for k, v in feeds.items()}, rng)
    want = _session(model).run(None, check)
    got = _session(out).run(None, check)
    report.rel_err = max(_rel(a, b) for a, b in zip(got, want))
    report.dft_after = sum(n.op_type == "DFT" for n in out.graph.node)
    if verbose:
        print(report.summary())
    if not report.rel_err <= rtol:
        raise RewriteError(f"rewritten model differs from the original (relative L2 {report.rel_err:.3g} > {rtol:g})")
    if out_path is not None:
        onnx.save_model(out, out_path)
    return out, report
