"""The Python rules (turbofno._rules) and the C++ core (plugins/src/validate.cpp, through the ORT CPU
op) agree: on thousands of random attribute sets and shapes, valid and not, both accept the same
inputs with the same output shape, and both reject the same inputs with the same message.

Attribute errors surface at session creation (the op validates its node then), shape errors at run.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

from turbofno import _op, _rules  # noqa: E402

ATTR_SETS = 200          # random attribute sets (some invalid)
SHAPES_PER_SET = 40      # random x / weight / bias shapes per valid set (with and without bias)


def _model(attrs: dict, bias: bool):
    from onnx import TensorProto, helper

    names = ["x", "weight"] + (["bias"] if bias else [])
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in names]  # any rank
    node = helper.make_node(_op.OP_TYPE, names, ["y"], name="rules", domain=_op.DOMAIN, **attrs)
    graph = helper.make_graph([node], "rules", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(_op.DOMAIN, _op.OPSET_VERSION)])
    model.ir_version = 9
    return model.SerializeToString()


def _session(lib: str, model: bytes):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 4
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def _random_attrs(rng):
    d = int(rng.choice([1, 2, 3, 3, 2, 0, 4], p=[0.28, 0.3, 0.28, 0.0, 0.0, 0.07, 0.07]))
    low = [int(v) for v in rng.integers(0, 5, size=d)]
    high = [int(v) for v in rng.integers(0, 4, size=d)]
    if d and rng.random() < 0.7:
        high[-1] = 0                        # mostly valid last axes
    if d and rng.random() < 0.1:
        low[int(rng.integers(d))] = -1      # negative modes
    if d and rng.random() < 0.08:
        high = high[:-1]                    # length mismatch
    norm = int(rng.choice([0, 1, 2, 3, -1], p=[0.3, 0.3, 0.3, 0.05, 0.05]))
    separable = int(rng.choice([0, 1, 2], p=[0.6, 0.35, 0.05]))
    output_size = None
    if d and rng.random() < 0.25:  # resampling layers: mostly valid sizes, sometimes a bad length or entry
        output_size = [int(v) for v in rng.integers(1, 20, size=d + int(rng.choice([0, 0, 0, 0, 1, -1])))]
        if output_size and rng.random() < 0.1:
            output_size[int(rng.integers(len(output_size)))] = int(rng.choice([0, -3]))
    return low, high, norm, separable, output_size


def _random_shapes(rng, low, high, separable):
    """Shapes near the valid ones: sometimes a wrong rank, size, channel or mode count."""
    d = len(low)
    kept = [p + q for p, q in zip(low, high)]
    n, cin, cout = (int(v) for v in rng.integers(1, 4, size=3))
    spatial = []
    for j in range(d):
        need = kept[j] if j < d - 1 else 2 * max(low[j] - 1, 0)
        spatial.append(max(0, int(max(need, 1) + rng.integers(-2, 4))))
    x = [n, cin, *spatial]
    w = [cin, 1 if separable else cout, *kept, 2]
    b = [cin if separable else cout]
    r = rng.random()
    if r < 0.06:
        x = x[:-1] if len(x) > 1 else x + [3]
    elif r < 0.12:
        w = w + [1]
    elif r < 0.2:
        w[0] += 1
    elif r < 0.26:
        w[1] = int(rng.integers(0, 3))
    elif r < 0.32 and d:
        w[2 + int(rng.integers(d))] += 1
    elif r < 0.36:
        w[-1] = 1
    elif r < 0.42:
        b = [b[0] + 1]
    elif r < 0.45:
        b = [b[0], 1]
    elif r < 0.5:
        x[int(rng.integers(len(x)))] = 0
    return x, w, b


def _python(low, high, norm, separable, output_size, x, w, b):
    try:
        cout = _rules.check_shapes(x, w, b, low, high, norm, separable, output_size)
    except ValueError as err:
        return None, str(err)
    assert _rules.output_shape(x, w, separable, output_size)[1] == cout
    return tuple(_rules.output_shape(x, w, separable, output_size)), None


def test_python_and_cpp_rules_agree(ort_lib, rng):
    import onnxruntime as ort

    compared = {"attr_rejected": 0, "shape_rejected": 0, "accepted": 0}
    for _ in range(ATTR_SETS):
        low, high, norm, separable, output_size = _random_attrs(rng)
        attrs = {_op.ATTR_MODES_LOW: low, _op.ATTR_MODES_HIGH: high, _op.ATTR_NORM: norm,
                 _op.ATTR_SEPARABLE: separable}
        if output_size:
            attrs[_op.ATTR_OUTPUT_SIZE] = output_size
        try:
            _rules.check_attrs(low, high, norm, separable, output_size)
            attr_error = None
        except ValueError as err:
            attr_error = str(err)
        if not low or not high:
            continue  # an empty INTS attribute is not representable the same way in ONNX; covered in test_ort_errors
        sessions = {}
        for bias in (False, True):
            try:
                sessions[bias] = _session(ort_lib, _model(attrs, bias))
                created = None
            except Exception as err:  # noqa: BLE001 - ORT's exception types vary by version
                created = str(err)
            if attr_error is None:
                assert created is None, f"{attrs}: Python accepts the attributes, the op refuses: {created}"
            else:
                assert created is not None and attr_error in created, (
                    f"{attrs}: Python says {attr_error!r}, the op says {created!r}")
                compared["attr_rejected"] += 1
        if attr_error is not None:
            continue
        for _ in range(SHAPES_PER_SET):
            x, w, b = _random_shapes(rng, low, high, separable)
            bias = bool(rng.random() < 0.5)
            shape, message = _python(low, high, norm, separable, output_size, x, w, b if bias else None)
            feeds = {"x": np.zeros(x, np.float32), "weight": np.zeros(w, np.float32)}
            if bias:
                feeds["bias"] = np.zeros(b, np.float32)
            try:
                y = sessions[bias].run(None, feeds)[0]
                got, err = y.shape, None
            except (ort.capi.onnxruntime_pybind11_state.Fail, ort.capi.onnxruntime_pybind11_state.InvalidArgument,
                    ort.capi.onnxruntime_pybind11_state.RuntimeException) as e:
                got, err = None, str(e)
            case = f"attrs {attrs} x {x} weight {w} bias {b if bias else None}"
            if message is None:
                assert err is None, f"{case}: Python accepts, the op refuses: {err}"
                assert got == shape, f"{case}: output shape {got} (op) != {shape} (Python)"
                compared["accepted"] += 1
            else:
                assert err is not None, f"{case}: Python refuses ({message}), the op accepts"
                assert message in err, f"{case}: Python says {message!r}, the op says {err!r}"
                compared["shape_rejected"] += 1
    print(f"compared: {compared}")
    assert sum(compared.values()) >= 2000, compared
    assert min(compared.values()) >= 50, f"too few cases of some kind: {compared}"
