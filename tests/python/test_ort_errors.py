"""Every error class of docs/op.md "Validation": ONNX Runtime must raise an error that names the node
and the problem ("SpectralConv node '<name>': ..."), never crash. Attribute errors surface when the
session is created, shape errors when it runs.

Not testable here: tensors with >= 2^31 elements (they would need >= 4 GiB of input); the int64
overflow and 2^31 limits are covered by tests/cpp/test_core_validate.cpp.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np

import seeding
import pytest

pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from ortutil import session  # noqa: E402
from turbofno.reference import make_model, random_case  # noqa: E402

NODE = "bad_node"


def expect_error(model, feeds, *needles, lib):
    """Session creation or run must raise; the message names the node and every needle."""
    with pytest.raises(Exception) as info:
        sess = session(model, lib)
        sess.run(None, feeds)
    msg = str(info.value)
    assert f"SpectralConv node '{NODE}'" in msg, msg
    for needle in needles:
        assert needle in msg, f"{needle!r} not in: {msg}"
    return msg


def case(spatial=(7, 10), low=(2, 4), high=(3, 0), *, w_shape=None, bias_shape=None, batch=2, cin=3, cout=4, **model_kw):
    """A valid model and feed, with optional overrides of the weight / bias shapes."""
    rng = seeding.rng(0)
    kept = [p + q for p, q in zip(low, high)]
    x = rng.standard_normal((batch, cin, *spatial)).astype(np.float32)
    w = rng.standard_normal(w_shape or (cin, cout, *kept, 2)).astype(np.float32)
    b = None if bias_shape is None else rng.standard_normal(bias_shape).astype(np.float32)
    model = make_model(w, b, modes_low=list(low), modes_high=list(high), node_name=NODE, **model_kw)
    return model, {"x": x}


# --- ranks and attribute lengths ---

def test_x_rank_mismatch(ort_lib):
    model, _ = case(x_shape=["N", 3, "S1"])
    expect_error(model, {"x": np.ones((2, 3, 7), np.float32)}, "x has rank 3", "must have rank 4", lib=ort_lib)


def test_x_rank_out_of_range(ort_lib):
    """modes of length 4 would need x of rank 6: rejected at session creation."""
    model, _ = case(attributes={"modes_low": [1, 1, 1, 1], "modes_high": [0, 0, 0, 0]})
    expect_error(model, {"x": np.ones((2, 3, 7, 10), np.float32)}, "spatial rank d must be 1, 2 or 3", lib=ort_lib)


def test_attribute_length_mismatch(ort_lib):
    model, feeds = case(attributes={"modes_high": [3]})
    expect_error(model, feeds, "modes_low has 2 entries but modes_high has 1", lib=ort_lib)


def test_weight_rank(ort_lib):
    model, feeds = case(w_shape=(3, 4, 5, 2))
    expect_error(model, feeds, "weight has rank 4", lib=ort_lib)


def test_weight_last_dim(ort_lib):
    model, feeds = case(w_shape=(3, 4, 5, 4, 3))
    expect_error(model, feeds, "last dim must be 2", lib=ort_lib)


# --- dtypes ---

def test_dtype_unsupported(ort_lib):
    rng = seeding.rng(1)
    x, w, _ = random_case(rng, (8,), [3], [0], bias=False, dtype=np.float64)
    model = make_model(w, None, modes_low=[3], modes_high=[0], node_name=NODE)
    expect_error(model, {"x": x}, "dtype float64", "float32, float16 and bfloat16", lib=ort_lib)


def test_dtype_not_supported_by_cpu_kernel(ort_lib):
    """bfloat16 is valid for the op but the CPU kernel does not take it (Cast nodes make bf16 tensors)."""
    rng = seeding.rng(2)
    w = rng.standard_normal((2, 2, 3, 2)).astype(np.float32)
    nodes = [
        helper.make_node("Cast", ["x"], ["xb"], to=TensorProto.BFLOAT16),
        helper.make_node("SpectralConv", ["xb", "w"], ["yb"], name=NODE, domain="ai.turbofno",
                         modes_low=[3], modes_high=[0]),
        helper.make_node("Cast", ["yb"], ["y"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(nodes, "bf16", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=[helper.make_tensor("w", TensorProto.BFLOAT16, w.shape, w.ravel().tolist())])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.turbofno", 1)])
    model.ir_version = 10
    expect_error(model, {"x": rng.standard_normal((1, 2, 8)).astype(np.float32)}, "bfloat16",
                 "CPUExecutionProvider kernel does not support", lib=ort_lib)


def test_mixed_dtypes(ort_lib):
    rng = seeding.rng(3)
    x, w, _ = random_case(rng, (8,), [3], [0], bias=False)
    model = make_model(w.astype(np.float16), None, modes_low=[3], modes_high=[0], node_name=NODE,
                       elem_type=TensorProto.FLOAT)
    expect_error(model, {"x": x}, "mixed dtypes", "x is float32 but weight is float16", lib=ort_lib)


def test_dtype_without_any_kernel(ort_lib):
    """int32 matches no registered kernel: ORT's own load-time type error, which names the node."""
    rng = seeding.rng(5)
    _, w, _ = random_case(rng, (8,), [3], [0], bias=False)
    model = make_model(w.astype(np.int32), None, modes_low=[3], modes_high=[0], node_name=NODE,
                       elem_type=TensorProto.INT32)
    with pytest.raises(Exception, match=rf"\b{NODE}\b"):
        session(model, ort_lib).run(None, {"x": np.ones((2, 3, 8), np.int32)})


def test_mixed_dtypes_bias(ort_lib):
    """A float16 bias with float32 x / weight: newer ORT rejects the model naming the node; 1.17 casts
    the bias to float32 itself (InsertCastTransformer), and then the result must be right."""
    from turbofno.reference import spectral_conv

    rng = seeding.rng(4)
    x, w, b = random_case(rng, (8,), [3], [0])
    b16 = b.astype(np.float16)
    model = make_model(w, b16, modes_low=[3], modes_high=[0], node_name=NODE)
    try:
        y = session(model, ort_lib).run(None, {"x": x})[0]
    except Exception as err:  # noqa: BLE001
        assert NODE in str(err), str(err)
        return
    ref = spectral_conv(x, w, b16.astype(np.float64), modes_low=[3], modes_high=[0])
    assert np.linalg.norm(y - ref) / np.linalg.norm(ref) <= 1e-5


# --- sizes <= 0 ---

def test_empty_batch(ort_lib):
    model, _ = case()
    expect_error(model, {"x": np.ones((0, 3, 7, 10), np.float32)}, "empty batch", lib=ort_lib)


def test_zero_spatial_size(ort_lib):
    model, _ = case()
    expect_error(model, {"x": np.ones((2, 3, 7, 0), np.float32)}, "S_2 must be positive", lib=ort_lib)


def test_zero_channels(ort_lib):
    model, _ = case(cin=0, w_shape=(0, 4, 5, 4, 2), x_shape=["N", "C", "S1", "S2"])
    expect_error(model, {"x": np.ones((2, 0, 7, 10), np.float32)}, "channel count C must be positive", lib=ort_lib)


# --- channel / weight / bias mismatches ---

def test_weight_cin_mismatch(ort_lib):
    model, _ = case(w_shape=(5, 4, 5, 4, 2), x_shape=["N", "C", "S1", "S2"])
    expect_error(model, {"x": np.ones((2, 3, 7, 10), np.float32)}, "must equal the input channel count Cin = 3",
                 lib=ort_lib)


def test_weight_mode_dims_mismatch(ort_lib):
    model, feeds = case(w_shape=(3, 4, 5, 3, 2))
    expect_error(model, feeds, "mode dim 3 = 3 must equal modes_low[1] + modes_high[1] = 4", lib=ort_lib)


def test_separable_weight_dim1(ort_lib):
    model, feeds = case(w_shape=(3, 4, 5, 4, 2), attributes={"separable": 1})
    expect_error(model, feeds, "separable = 1 needs dim 1 = 1", lib=ort_lib)


def test_bias_shape(ort_lib):
    model, feeds = case(bias_shape=(3,))
    expect_error(model, feeds, "bias [3] must have shape [Cout] = [4]", lib=ort_lib)


# --- modes out of range ---

def test_negative_modes(ort_lib):
    model, feeds = case(attributes={"modes_low": [-2, 4]})
    expect_error(model, feeds, "modes_low[0] = -2 is negative", lib=ort_lib)


def test_low_plus_high_exceeds_size(ort_lib):
    model, feeds = case(spatial=(4, 10), low=(3, 4), high=(2, 0))
    expect_error(model, feeds, "modes_low[0] + modes_high[0] = 5 exceeds S_1 = 4", lib=ort_lib)


def test_last_axis_modes_exceed_half_spectrum(ort_lib):
    model, feeds = case(spatial=(7, 9), low=(2, 6), high=(3, 0))
    expect_error(model, feeds, "modes_low[1] = 6 exceeds S_2//2 + 1 = 5", lib=ort_lib)


def test_last_modes_high_nonzero(ort_lib):
    model, feeds = case(w_shape=(3, 4, 5, 5, 2), attributes={"modes_high": [3, 1]})
    expect_error(model, feeds, "modes_high[1] = 1 must be 0", lib=ort_lib)


def test_axis_without_modes(ort_lib):
    model, feeds = case(w_shape=(3, 4, 0, 4, 2), attributes={"modes_low": [0, 4], "modes_high": [0, 0]})
    expect_error(model, feeds, "axis 0 keeps no modes", lib=ort_lib)


def test_modes_beyond_int32(ort_lib):
    model, feeds = case(attributes={"modes_low": [2**40, 4]})
    expect_error(model, feeds, "out of the int32 range", lib=ort_lib)


# --- norm, separable, attribute presence and types ---

def test_norm_out_of_range(ort_lib):
    model, feeds = case(attributes={"norm": 3})
    expect_error(model, feeds, "norm = 3 is invalid", lib=ort_lib)


def test_separable_out_of_range(ort_lib):
    model, feeds = case(attributes={"separable": 2})
    expect_error(model, feeds, "separable = 2 is invalid", lib=ort_lib)


def test_missing_modes_attribute(ort_lib):
    model, feeds = case(attributes={"modes_low": None})
    expect_error(model, feeds, "required attribute 'modes_low' (INTS) is missing", lib=ort_lib)


def test_wrong_attribute_types(ort_lib):
    model, feeds = case(attributes={"modes_low": [2.0, 4.0]})
    expect_error(model, feeds, "attribute 'modes_low' must be INTS", lib=ort_lib)
    model, feeds = case(attributes={"norm": "ortho"})
    expect_error(model, feeds, "attribute 'norm' must be an INT", lib=ort_lib)


# --- malformed models never crash the process ---

CRASH_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    lib = sys.argv[1]

    def model(inputs, graph_inputs, attrs, inits=()):
        node = helper.make_node("SpectralConv", inputs, ["y"], name="n", domain="ai.turbofno")
        for k, v in attrs.items():
            node.attribute.append(helper.make_attribute(k, v, attr_type=onnx.AttributeProto.INTS if v == [] else None))
        g = helper.make_graph([node], "g", graph_inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.turbofno", 1)])
        m.ir_version = 10
        return m.SerializeToString()

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, None)
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, None)
    good = dict(modes_low=[2], modes_high=[0])
    f = lambda *s: np.ones(s, np.float32)
    cases = [
        (model(["x"], [x], good), {"x": f(1, 1, 4)}),                           # weight missing
        (model(["x", "w", "b", "x"], [x, w, b], good), {"x": f(1, 1, 4), "w": f(1, 1, 2, 2), "b": f(1)}),  # 4 inputs
        (model(["x", "w"], [x, w], good), {"x": np.ones((), np.float32), "w": f(1, 1, 2, 2)}),  # scalar x
        (model(["x", "w"], [x, w], good), {"x": f(1, 1, 4), "w": np.ones((), np.float32)}),     # scalar weight
        (model(["x", "w", "b"], [x, w, b], good), {"x": f(1, 1, 4), "w": f(1, 1, 2, 2), "b": np.ones((), np.float32)}),
        (model(["x", "w"], [x, w], {}), {"x": f(1, 1, 4), "w": f(1, 1, 2, 2)}),  # no attributes at all
        (model(["x", "w"], [x, w], dict(modes_low=[], modes_high=[])), {"x": f(1, 1, 4), "w": f(1, 1, 2, 2)}),
        (model(["x", "w"], [x, w], dict(modes_low=[2] * 9, modes_high=[0] * 9)), {"x": f(1, 1, 4), "w": f(1, 1, 2, 2)}),
        (model(["x", "w"], [x, w], good), {"x": f(1, 1, 4, 4, 4, 4, 4), "w": f(1, 1, 2, 2)}),  # rank 7
        (model(["x", "w"], [x, w], good), {"x": f(1, 1, 4), "w": f(1, 1, 2, 2, 2, 2, 2, 2)}),
        (model(["x", "w"], [x, w], dict(modes_low=[-2**62], modes_high=[2**62])), {"x": f(1, 1, 4), "w": f(1, 1, 2, 2)}),
    ]
    raised = 0
    for i, (m, feeds) in enumerate(cases):
        try:
            so = ort.SessionOptions()
            so.register_custom_ops_library(lib)
            so.log_severity_level = 4
            ort.InferenceSession(m, so, providers=["CPUExecutionProvider"]).run(None, feeds)
            print(f"case {i}: no error raised")
        except Exception as e:
            raised += 1
    print(f"{raised}/{len(cases)} raised")
    sys.exit(0 if raised == len(cases) else 1)
""")


def test_malformed_models_do_not_crash(ort_lib):
    proc = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, ort_lib], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-3000:]}"


def test_cpu_size_limit(ort_lib):
    """docs/op.md "CPU limits": 1D S = 131072 with 8193 kept modes needs over 2^32 floats of tables;
    refused with the documented message before any allocation."""
    w = np.zeros((1, 1, 8193, 2), np.float32)
    model = make_model(w, None, modes_low=[8193], modes_high=[0], node_name=NODE)
    expect_error(model, {"x": np.zeros((1, 1, 131072), np.float32)}, "shape too large for the CPU kernel",
                 "exceeds the limit of 2^32 floats (16 GiB)", lib=ort_lib)
