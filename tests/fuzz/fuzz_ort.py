"""Fuzz cases for the ORT op (libturbofno_ort.so, CPU provider).

Case i of seed s is a pure function of (s, i): `make_case` builds a model + feeds + the expected
verdict, `run_case` runs it and returns (outcome, detail). Outcomes:
  ok        valid input, output equal to the float64 reference (turbofno.reference) within tolerance
  rejected  invalid input refused with an error (never a crash)
  WRONG     valid input but a wrong number / shape, or an error for a valid input
  ACCEPTED  invalid input accepted (no error)
Crashes and hangs are seen by the driver (campaign.py), which runs cases in child processes.

Kinds: "layer" (random valid / near-valid layers: ranks, sizes, modes, dtypes, bias, dynamic or
fixed shapes, weight as initializer or input), "attrs" (attribute types and values: missing, wrong
type, empty, huge, negative, extra), "inputs" (input count, ranks 0..6, zero dims, mismatched
dtypes), "corrupt" (byte flips / inserts / deletions / truncation of a valid serialized model: any
clean outcome is fine, only crashes and hangs count).
"""
from __future__ import annotations

import numpy as np

from turbofno import _op, _rules
from turbofno.reference import spectral_conv

KINDS = ("layer", "attrs", "inputs", "corrupt")
TOL = {np.float32: 1e-4, np.float16: 3e-2}
_ELEM = {np.float32: 1, np.float16: 10, np.float64: 11, np.int32: 6, "bfloat16": 16}


class Case:
    def __init__(self, kind: str):
        self.kind = kind
        self.model: bytes = b""
        self.feeds: dict = {}
        self.valid = False         # the op must accept it (and match `expected`)
        self.any_outcome = False   # corrupted models: only crashes / hangs count
        self.expected = None       # float64 reference output for valid cases
        self.dtype = np.float32
        self.describe = ""


def _attr(name, value, kind):
    from onnx import AttributeProto, helper

    if kind == "INTS":
        a = AttributeProto(name=name, type=AttributeProto.INTS)
        a.ints.extend(int(v) for v in value)
        return a
    if kind == "INT":
        return helper.make_attribute(name, int(value))
    if kind == "FLOATS":
        a = AttributeProto(name=name, type=AttributeProto.FLOATS)
        a.floats.extend(float(v) for v in value)
        return a
    if kind == "FLOAT":
        return helper.make_attribute(name, float(value))
    if kind == "STRING":
        return helper.make_attribute(name, str(value))
    raise ValueError(kind)


def _model(attrs, inputs, n_node_inputs=None, x_decl=None, initializers=(), out_elem=1):
    """attrs: list of AttributeProto; inputs: [(name, elem, shape or None)] graph inputs."""
    from onnx import TensorProto, helper

    names = [n for n, _, _ in inputs] + [t.name for t in initializers]
    order = [n for n in ("x", "weight", "bias", "extra") if n in names]
    if n_node_inputs is not None:
        order = order[:n_node_inputs]
    node = helper.make_node(_op.OP_TYPE, order, ["y"], name="fuzz", domain=_op.DOMAIN)
    node.attribute.extend(attrs)
    graph = helper.make_graph(
        [node], "fuzz",
        [helper.make_tensor_value_info(n, e, s) for n, e, s in inputs],
        [helper.make_tensor_value_info("y", out_elem, None)],
        initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(_op.DOMAIN, _op.OPSET_VERSION)])
    model.ir_version = 9
    return model.SerializeToString()


def _layer_dims(rng, d):
    low = [int(rng.integers(0, 5)) for _ in range(d)]
    high = [int(rng.integers(0, 4)) for _ in range(d - 1)] + [0]
    for j in range(d):
        if low[j] + high[j] == 0:
            low[j] = 1
    spatial = []
    for j in range(d):
        need = low[j] + high[j] if j < d - 1 else 2 * max(low[j] - 1, 0)
        spatial.append(int(max(need, 1) + rng.integers(0, 9)))
    return low, high, spatial


def _near_valid(rng, case: Case, perturb: bool):
    from onnx import numpy_helper

    d = int(rng.integers(1, 4))
    low, high, spatial = _layer_dims(rng, d)
    n, cin, cout = int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 6))
    separable = int(rng.random() < 0.3)
    if separable:
        cout = cin
    norm = int(rng.integers(0, 3))
    output_size = [int(v) for v in rng.integers(1, 24, size=d)] if rng.random() < 0.2 else None
    bias = bool(rng.random() < 0.6)
    dtype = np.float16 if rng.random() < 0.25 else np.float32
    kept = [p + q for p, q in zip(low, high)]
    x_shape = [n, cin, *spatial]
    w_shape = [cin, 1 if separable else cout, *kept, 2]
    b_shape = [cout]
    if perturb:  # one small change that may or may not make it invalid; the rules decide
        r = rng.random()
        if r < 0.2:
            j = int(rng.integers(d))
            x_shape[2 + j] = max(0, x_shape[2 + j] - int(rng.integers(1, 6)))
        elif r < 0.35:
            w_shape[int(rng.integers(len(w_shape)))] += int(rng.choice([-1, 1]))
        elif r < 0.5:
            b_shape = [cout + int(rng.choice([-1, 1]))]
        elif r < 0.6:
            x_shape[int(rng.integers(2))] = 0
        elif r < 0.75:
            high[-1] = int(rng.integers(1, 3))
        elif r < 0.9:
            low[int(rng.integers(d))] = int(rng.integers(-2, 12))
        elif output_size is not None and rng.random() < 0.5:
            output_size = output_size[:-1] + [int(rng.choice([0, -2]))]
        else:
            norm = int(rng.choice([-1, 3, 7]))
        w_shape = [max(0, v) for v in w_shape]
        b_shape = [max(0, v) for v in b_shape]
    x = rng.standard_normal(x_shape).astype(dtype)
    w = (rng.standard_normal(w_shape) / np.sqrt(max(cin, 1))).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype) if bias else None
    attrs = [_attr(_op.ATTR_MODES_LOW, low, "INTS"), _attr(_op.ATTR_MODES_HIGH, high, "INTS")]
    if norm != 0 or rng.random() < 0.5:
        attrs.append(_attr(_op.ATTR_NORM, norm, "INT"))
    if separable or rng.random() < 0.5:
        attrs.append(_attr(_op.ATTR_SEPARABLE, separable, "INT"))
    if output_size is not None:
        attrs.append(_attr(_op.ATTR_OUTPUT_SIZE, output_size, "INTS"))
    elem = _ELEM[dtype]
    x_decl = [None] * len(x_shape) if rng.random() < 0.5 else list(x_shape)
    x_decl = [v if v is not None else f"s{i}" for i, v in enumerate(x_decl)]
    inputs = [("x", elem, x_decl)]
    inits = []
    weight_as_input = rng.random() < 0.4
    if weight_as_input:
        inputs.append(("weight", elem, None))
        case.feeds["weight"] = w
    else:
        inits.append(numpy_helper.from_array(w, "weight"))
    if b is not None:
        if weight_as_input:
            inputs.append(("bias", elem, None))
            case.feeds["bias"] = b
        else:
            inits.append(numpy_helper.from_array(b, "bias"))
    case.feeds["x"] = x
    case.model = _model(attrs, inputs, initializers=inits, out_elem=elem)
    case.dtype = dtype
    case.describe = (f"d={d} x={x_shape} w={w_shape} b={b_shape if bias else None} low={low} high={high} "
                     f"norm={norm} sep={separable} out={output_size} {np.dtype(dtype).name}")
    try:
        _rules.check_shapes(x_shape, w_shape, b_shape if bias else None, low, high, norm, separable, output_size)
        case.valid = True
    except ValueError:
        case.valid = False
    if case.valid:
        case.expected = spectral_conv(x, w, b, modes_low=low, modes_high=high, norm=norm, separable=separable,
                                      output_size=output_size)


def _bad_attrs(rng, case: Case):
    """A valid 2D layer whose attributes are fuzzed (type, length, value, presence)."""
    _near_valid(rng, case, perturb=False)
    from onnx import ModelProto

    model = ModelProto.FromString(case.model)
    node = model.graph.node[0]
    attrs = {a.name: a for a in node.attribute}
    values = [-(2**62), -(2**31) - 1, -1, 0, 1, 2, 3, 17, 2**31 - 1, 2**31, 2**40]
    name = str(rng.choice([_op.ATTR_MODES_LOW, _op.ATTR_MODES_HIGH, _op.ATTR_NORM, _op.ATTR_SEPARABLE,
                           _op.ATTR_OUTPUT_SIZE, "extra"]))
    action = str(rng.choice(["drop", "type", "length", "value", "empty"]))
    case.valid = None  # None: decided by the rules from the attribute values left on the node
    if name == "extra":  # unknown attributes are ignored
        kind = str(rng.choice(["INT", "INTS", "FLOAT", "STRING"]))
        attrs["extra"] = _attr("extra", [1, 2] if kind.endswith("S") else 3, kind)
        action = "extra"
    elif action == "drop":  # modes are required; norm / separable default to 0
        attrs.pop(name, None)
    elif action == "type":
        is_list = name in (_op.ATTR_MODES_LOW, _op.ATTR_MODES_HIGH, _op.ATTR_OUTPUT_SIZE)
        kinds = ["INT", "FLOAT", "FLOATS", "STRING"] if is_list else ["INTS", "FLOAT", "FLOATS", "STRING"]
        kind = str(rng.choice(kinds))
        attrs[name] = _attr(name, [1.0, 2.0] if kind.endswith("S") else 1, kind)
        case.valid = False
    elif action == "empty" and name in (_op.ATTR_MODES_LOW, _op.ATTR_MODES_HIGH):
        attrs[name] = _attr(name, [], "INTS")
        case.valid = False
    elif name == _op.ATTR_OUTPUT_SIZE and action != "drop":  # a resampling size: valid, wrong length or < 1
        d = len(attrs[_op.ATTR_MODES_LOW].ints)
        n = d if action != "length" else int(rng.choice([d - 1, d + 1, 4]))
        attrs[name] = _attr(name, [int(rng.choice([1, 3, 9, 17, 0, -1] if action == "value" else [2, 9, 17]))
                                   for _ in range(max(n, 0))], "INTS")
    elif action == "length" and name in (_op.ATTR_MODES_LOW, _op.ATTR_MODES_HIGH):
        old = list(attrs[name].ints)
        new = old + [int(rng.choice(values))] * int(rng.integers(1, 4)) if rng.random() < 0.5 else old[:-1]
        attrs[name] = _attr(name, new, "INTS")
    else:  # a value from the edge list
        v = int(rng.choice(values))
        if name in (_op.ATTR_MODES_LOW, _op.ATTR_MODES_HIGH):
            old = list(attrs[name].ints)
            old[int(rng.integers(len(old)))] = v
            attrs[name] = _attr(name, old, "INTS")
        else:
            attrs[name] = _attr(name, v, "INT")
    del node.attribute[:]
    node.attribute.extend(attrs.values())
    case.model = model.SerializeToString()
    case.describe = f"attrs {name} {action}: " + ", ".join(f"{a.name}" for a in node.attribute)
    if case.valid is None:
        low = _attr_value(node, _op.ATTR_MODES_LOW, None)
        high = _attr_value(node, _op.ATTR_MODES_HIGH, None)
        if low is None or high is None:
            case.valid = False
            return
        norm = _attr_value(node, _op.ATTR_NORM, 0)
        sep = _attr_value(node, _op.ATTR_SEPARABLE, 0)
        out = _attr_value(node, _op.ATTR_OUTPUT_SIZE, None)
        w = _weight(model, case)
        b = _bias(model, case)
        try:
            _rules.check_shapes(case.feeds["x"].shape, w.shape, None if b is None else b.shape, low, high, norm, sep,
                                out)
            case.valid = True
        except (ValueError, TypeError):
            case.valid = False
        if case.valid:
            case.expected = spectral_conv(case.feeds["x"], w, b, modes_low=low, modes_high=high, norm=norm,
                                          separable=sep, output_size=out or None)


def _attr_value(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return list(a.ints) if a.type == a.INTS else a.i
    return default


def _weight(model, case):
    from onnx import numpy_helper

    for t in model.graph.initializer:
        if t.name == "weight":
            return numpy_helper.to_array(t)
    return case.feeds["weight"]


def _bias(model, case):
    from onnx import numpy_helper

    for t in model.graph.initializer:
        if t.name == "bias":
            return numpy_helper.to_array(t)
    return case.feeds.get("bias")


def _bad_inputs(rng, case: Case):
    """Input count, ranks 0..6, zero dims, dtypes (float64, int32, bfloat16, mixed)."""
    d = int(rng.integers(1, 4))
    low, high, spatial = _layer_dims(rng, d)
    attrs = [_attr(_op.ATTR_MODES_LOW, low, "INTS"), _attr(_op.ATTR_MODES_HIGH, high, "INTS")]
    count = int(rng.choice([1, 2, 3, 4], p=[0.15, 0.35, 0.35, 0.15]))
    dtypes = [np.float32, np.float16, np.float64, np.int32]
    xt = dtypes[int(rng.integers(len(dtypes)))]
    wt = xt if rng.random() < 0.6 else dtypes[int(rng.integers(len(dtypes)))]
    inputs, feeds = [], {}
    shapes = {}
    for name, t in (("x", xt), ("weight", wt), ("bias", wt), ("extra", xt))[:count]:
        rank = int(rng.integers(0, 7))
        shape = [int(rng.choice([0, 1, 2, 3, 5, 8])) for _ in range(rank)]
        if rng.random() < 0.5 and name == "x":
            shape = [2, 3, *spatial]
        if rng.random() < 0.5 and name == "weight":
            shape = [3, 4, *[p + q for p, q in zip(low, high)], 2]
        shapes[name] = shape
        inputs.append((name, _ELEM[t], None))
        feeds[name] = (rng.standard_normal(shape) * 3).astype(t)
    case.model = _model(attrs, inputs, out_elem=_ELEM[xt])
    case.feeds = feeds
    case.describe = f"inputs {count}: " + ", ".join(f"{k}{v}:{np.dtype(feeds[k].dtype).name}" for k, v in shapes.items())
    ok_types = xt in (np.float32, np.float16) and wt == xt
    if count in (2, 3) and ok_types:
        try:
            _rules.check_shapes(shapes["x"], shapes["weight"], shapes.get("bias"), low, high, 0, 0)
            case.valid = True
        except ValueError:
            case.valid = False
    if case.valid:
        case.dtype = xt
        case.expected = spectral_conv(feeds["x"], feeds["weight"], feeds.get("bias"), modes_low=low, modes_high=high)


def _corrupt(rng, case: Case):
    _near_valid(rng, case, perturb=False)
    data = bytearray(case.model)
    for _ in range(int(rng.integers(1, 9))):
        op = rng.random()
        pos = int(rng.integers(len(data)))
        if op < 0.6:
            data[pos] ^= int(rng.integers(1, 256))
        elif op < 0.75:
            data.insert(pos, int(rng.integers(256)))
        elif op < 0.9 and len(data) > 1:
            del data[pos]
        else:
            data = data[:pos]
            if not data:
                data = bytearray(b"\x08")
    case.model = bytes(data)
    case.any_outcome = True
    case.valid = False
    case.expected = None
    case.describe = f"corrupted model ({len(data)} bytes)"


def make_case(seed: int, index: int, kinds=KINDS) -> Case:
    rng = np.random.default_rng([seed, index])
    kind = kinds[index % len(kinds)]
    case = Case(kind)
    if kind == "layer":
        _near_valid(rng, case, perturb=bool(rng.random() < 0.5))
    elif kind == "attrs":
        _bad_attrs(rng, case)
    elif kind == "inputs":
        _bad_inputs(rng, case)
    else:
        _corrupt(rng, case)
    return case


def run_case(case: Case, lib: str) -> tuple[str, str]:
    import onnxruntime as ort

    try:
        opts = ort.SessionOptions()
        opts.register_custom_ops_library(lib)
        opts.intra_op_num_threads = 1
        opts.log_severity_level = 4
        sess = ort.InferenceSession(case.model, opts, providers=["CPUExecutionProvider"])
        y = sess.run(None, case.feeds)[0]
    except Exception as err:  # noqa: BLE001 - any clean error is a rejection
        if case.valid and not case.any_outcome:
            return "WRONG", f"valid input refused: {str(err)[:300]}"
        return "rejected", type(err).__name__
    if case.any_outcome:
        return "ok", "corrupted model still ran"
    if not case.valid:
        return "ACCEPTED", f"invalid input accepted, output {getattr(y, 'shape', None)}"
    if y.shape != case.expected.shape:
        return "WRONG", f"output shape {y.shape} != {case.expected.shape}"
    if y.dtype != case.dtype:
        return "WRONG", f"output dtype {y.dtype} != {np.dtype(case.dtype).name}"
    ref = case.expected
    err = float(np.linalg.norm(y.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-30))
    if not np.isfinite(y).all() or err > TOL[case.dtype]:
        return "WRONG", f"rel L2 {err:.3g} > {TOL[case.dtype]:g}"
    return "ok", f"rel L2 {err:.1e}"
