"""The PointwiseMLP op (docs/op.md, "PointwiseMLP") in ONNX Runtime: one-node models against a float64
NumPy reference on the CPU EP (every activation pair, each optional input, float32 / float16 /
bfloat16, spatial ranks 0..3), errors that name the node (never a crash), and the CUDA EP (plain run and
a CUDA-graph-captured session), skipped with a reason where no CUDA EP / GPU is available.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import seeding

pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from ortutil import session  # noqa: E402
from turbofno import _op  # noqa: E402
from turbofno.reference import apply_activation  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NODE = "mlp_node"
OPTIONAL = ("b1", "b2", "residual", "gate")


def mlp_reference(x, w1, b1=None, w2=None, b2=None, residual=None, gate=None, *, hidden_activation=1, activation=0):
    """float64 y = act(W2 hact(W1 x + b1) + b2 + g r), channels on axis 1, every other axis pointwise."""
    x = np.asarray(x, np.float64)
    h = np.einsum("ji,ni...->nj...", np.asarray(w1, np.float64), x)
    bshape = (1, -1) + (1,) * (x.ndim - 2)
    if b1 is not None:
        h = h + np.asarray(b1, np.float64).reshape(bshape)
    h = apply_activation(h, hidden_activation)
    y = np.einsum("oj,nj...->no...", np.asarray(w2, np.float64), h)
    if b2 is not None:
        y = y + np.asarray(b2, np.float64).reshape(bshape)
    if residual is not None:
        g = 1.0 if gate is None else np.asarray(gate, np.float64).reshape(bshape)
        y = y + g * np.asarray(residual, np.float64)
    return apply_activation(y, activation)


def make_mlp_model(tensors: dict, *, x_shape, residual_shape=None, hidden_activation=None, activation=None,
                   elem=TensorProto.FLOAT, compute_elem=None, node_name=NODE, inputs=None, attrs=None):
    """One PointwiseMLP node. x (and residual, when given) are graph inputs, the other tensors
    initializers; a tensor that is None is an absent optional input (""). compute_elem: Cast every
    input to that type before the node and y back to `elem` after it (bfloat16 without bf16 feeds)."""
    graph_inputs = [helper.make_tensor_value_info("x", elem, x_shape)]
    if tensors.get("residual") is not None:
        graph_inputs.append(helper.make_tensor_value_info("residual", elem, residual_shape))
    inits, nodes, names = [], [], []
    for name in _op.MLP_INPUTS:
        value = tensors.get(name)
        if value is None:
            names.append("")
            continue
        if name not in ("x", "residual"):
            inits.append(numpy_helper.from_array(np.asarray(value), name))
        if compute_elem is not None:
            nodes.append(helper.make_node("Cast", [name], [name + "_c"], to=compute_elem))
            name = name + "_c"
        names.append(name)
    while names and names[-1] == "":
        names.pop()
    if inputs is not None:
        names = inputs
    kw = dict(attrs or {})
    if hidden_activation is not None:
        kw[_op.ATTR_HIDDEN_ACTIVATION] = hidden_activation
    if activation is not None:
        kw[_op.ATTR_ACTIVATION] = activation
    y_name = "y_c" if compute_elem is not None else "y"
    nodes.append(helper.make_node(_op.MLP_OP_TYPE, names, [y_name], name=node_name, domain=_op.DOMAIN, **kw))
    if compute_elem is not None:
        nodes.append(helper.make_node("Cast", [y_name], ["y"], to=elem))
    graph = helper.make_graph(nodes, "pointwise_mlp", graph_inputs, [helper.make_tensor_value_info("y", elem, None)],
                              initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid(_op.DOMAIN, _op.MLP_OPSET_VERSION)],
                             ir_version=9)


def random_tensors(rng, *, batch=2, cin=3, ch=5, cout=7, spatial=(37,), dtype=np.float32, present=OPTIONAL):
    t = {
        "x": rng.standard_normal((batch, cin, *spatial)),
        "w1": rng.standard_normal((ch, cin)) / np.sqrt(cin),
        "b1": rng.standard_normal(ch) * 0.5,
        "w2": rng.standard_normal((cout, ch)) / np.sqrt(ch),
        "b2": rng.standard_normal(cout) * 0.5,
        "residual": rng.standard_normal((batch, cout, *spatial)),
        "gate": rng.standard_normal(cout),
    }
    for name in OPTIONAL:
        if name not in present:
            t[name] = None
    return {k: (None if v is None else v.astype(dtype)) for k, v in t.items()}


def run(tensors, lib, providers=("CPUExecutionProvider",), **model_kw):
    x = tensors["x"]
    r = tensors.get("residual")
    model = make_mlp_model(tensors, x_shape=list(x.shape), residual_shape=None if r is None else list(r.shape),
                           **model_kw)
    feeds = {"x": x} if r is None else {"x": x, "residual": r}
    return session(model, lib, providers).run(None, feeds)[0]


def check(y, tensors, tol, **acts):
    ref = mlp_reference(*(tensors.get(n) for n in _op.MLP_INPUTS), **acts)
    assert y.shape == ref.shape
    assert np.isfinite(y).all()
    err = np.abs(y.astype(np.float64) - ref)
    bound = tol * (1.0 + np.abs(ref))
    assert (err <= bound).all(), f"max error {err.max():.3g} (tolerance {tol:g} relative)"


# --- names ----------------------------------------------------------------------------------------

def test_names_match_header():
    header = (ROOT / "plugins/include/turbofno/pointwise_mlp.h").read_text()
    consts = dict(re.findall(r'constexpr const char\* (k\w+) = "([^"]*)"', header))
    assert consts["kMlpOpType"] == _op.MLP_OP_TYPE
    assert consts["kAttrHiddenActivation"] == _op.ATTR_HIDDEN_ACTIVATION
    assert int(re.search(r"kMlpOpSinceVersion = (\d+);", header).group(1)) == _op.MLP_OPSET_VERSION
    slots = re.search(r"enum MlpInput : int \{([^}]*)\}", header).group(1)
    order = [name for name, _ in sorted(re.findall(r"kMlp(\w+) = (\d+)", slots), key=lambda p: int(p[1]))]
    assert [n.lower() for n in order] == list(_op.MLP_INPUTS)


# --- CPU EP vs float64 ----------------------------------------------------------------------------

@pytest.mark.parametrize("hidden_activation", range(6))
@pytest.mark.parametrize("activation", range(6))
def test_cpu_activation_pairs(hidden_activation, activation, ort_lib):
    rng = seeding.rng(7000 + 6 * hidden_activation + activation)
    t = random_tensors(rng)
    y = run(t, ort_lib, hidden_activation=hidden_activation, activation=activation)
    check(y, t, 2e-5, hidden_activation=hidden_activation, activation=activation)


@pytest.mark.parametrize("present", [(), ("b1",), ("b2",), ("residual",), ("residual", "gate"), ("b1", "b2", "residual"),
                                     OPTIONAL], ids=lambda p: "+".join(p) or "none")
def test_cpu_optional_inputs(present, ort_lib):
    rng = seeding.rng(7100 + len(present))
    t = random_tensors(rng, present=present)
    y = run(t, ort_lib, activation=4)
    check(y, t, 2e-5, hidden_activation=1, activation=4)


def test_cpu_default_activations(ort_lib):
    """No attributes: hidden_activation = 1 (gelu), activation = 0 (identity)."""
    t = random_tensors(seeding.rng(7200))
    check(run(t, ort_lib), t, 2e-5, hidden_activation=1, activation=0)


@pytest.mark.parametrize("spatial", [(), (1,), (1000,), (6, 7), (3, 4, 5)], ids=lambda s: "x".join(map(str, s)) or "rank0")
def test_cpu_spatial_ranks(spatial, ort_lib):
    t = random_tensors(seeding.rng(7300 + len(spatial)), spatial=spatial, batch=3)
    check(run(t, ort_lib, hidden_activation=2, activation=5), t, 2e-5, hidden_activation=2, activation=5)


def test_cpu_darcy_channels(ort_lib):
    t = random_tensors(seeding.rng(7400), batch=1, cin=64, ch=32, cout=64, spatial=(16, 16))
    check(run(t, ort_lib, hidden_activation=1, activation=1), t, 2e-5, hidden_activation=1, activation=1)


def test_cpu_float16(ort_lib):
    t = random_tensors(seeding.rng(7500), dtype=np.float16, spatial=(9, 11))
    y = run(t, ort_lib, elem=TensorProto.FLOAT16, hidden_activation=1, activation=4)
    assert y.dtype == np.float16
    check(y, t, 3e-3, hidden_activation=1, activation=4)


def test_cpu_bfloat16(ort_lib):
    """bfloat16 tensors (cast inside the graph: NumPy has no bfloat16 feeds)."""
    import ml_dtypes

    t = random_tensors(seeding.rng(7600), spatial=(50,))
    # the reference sees the bf16-rounded inputs
    rounded = {k: (None if v is None else v.astype(ml_dtypes.bfloat16).astype(np.float32)) for k, v in t.items()}
    y = run(t, ort_lib, compute_elem=TensorProto.BFLOAT16, hidden_activation=3, activation=2)
    check(y, rounded, 2e-2, hidden_activation=3, activation=2)


def test_cpu_dynamic_shapes_one_session(ort_lib):
    rng = seeding.rng(7700)
    t = random_tensors(rng, present=("b1", "b2"))
    model = make_mlp_model(t, x_shape=["N", 3, "S"])
    sess = session(model, ort_lib)
    for batch, s in ((1, 5), (4, 130), (2, 1)):
        x = rng.standard_normal((batch, 3, s)).astype(np.float32)
        y = sess.run(None, {"x": x})[0]
        check(y, {**t, "x": x}, 2e-5)


def test_cpu_threads(ort_lib):
    t = random_tensors(seeding.rng(7800), batch=3, spatial=(40, 41))
    model = make_mlp_model(t, x_shape=list(t["x"].shape), residual_shape=list(t["residual"].shape))
    y = session(model, ort_lib, threads=2).run(None, {"x": t["x"], "residual": t["residual"]})[0]
    check(y, t, 2e-5)


# --- errors: name the node, never crash -------------------------------------------------------------

def expect_error(fn, *needles):
    with pytest.raises(Exception) as info:
        fn()
    msg = str(info.value)
    assert f"PointwiseMLP node '{NODE}'" in msg, msg
    for needle in needles:
        assert needle in msg, f"{needle!r} not in: {msg}"


def _run_bad(lib, tensors, **kw):
    return lambda: run(tensors, lib, **kw)


@pytest.mark.parametrize("attr,value", [("hidden_activation", 6), ("activation", -1), ("activation", 99)])
def test_error_bad_activation(attr, value, ort_lib):
    t = random_tensors(seeding.rng(0))
    expect_error(_run_bad(ort_lib, t, attrs={attr: value}), f"{attr} = {value} is invalid")


def test_error_activation_out_of_int32(ort_lib):
    t = random_tensors(seeding.rng(0))
    expect_error(_run_bad(ort_lib, t, attrs={"hidden_activation": 2 ** 40}), "out of the int32 range")


def test_error_activation_wrong_type(ort_lib):
    t = random_tensors(seeding.rng(0))
    expect_error(_run_bad(ort_lib, t, attrs={"activation": 1.5}), "'activation' must be an INT")


@pytest.mark.parametrize("name,shape,needle", [
    ("w1", (5, 4), "must equal the input channel count Cin = 3"),
    ("w1", (5,), "w1 [5] has rank 1"),
    ("w2", (7, 6), "must equal the hidden channel count Ch = 5"),
    ("b1", (6,), "b1 [6] must have shape [Ch] = [5]"),
    ("b2", (7, 1), "b2 [7, 1] must have shape [Cout] = [7]"),
    ("gate", (3,), "gate [3] must have shape [Cout] = [7]"),
])
def test_error_parameter_shapes(name, shape, needle, ort_lib):
    rng = seeding.rng(1)
    t = random_tensors(rng)
    t[name] = rng.standard_normal(shape).astype(np.float32)
    expect_error(_run_bad(ort_lib, t), needle)


def test_error_residual_shape(ort_lib):
    rng = seeding.rng(2)
    t = random_tensors(rng)
    t["residual"] = rng.standard_normal((2, 7, 36)).astype(np.float32)
    expect_error(_run_bad(ort_lib, t), "residual [2, 7, 36] must have the output's shape", "[2, 7, 37]")


def test_error_residual_broadcast(ort_lib):
    rng = seeding.rng(2)
    t = random_tensors(rng)
    t["residual"] = rng.standard_normal((1, 7, 37)).astype(np.float32)
    expect_error(_run_bad(ort_lib, t), "no broadcasting")


def test_error_gate_without_residual(ort_lib):
    t = random_tensors(seeding.rng(3), present=("b1", "b2", "gate"))
    expect_error(_run_bad(ort_lib, t), "gate is given without a residual")


def test_error_x_rank_and_zero_sizes(ort_lib):
    rng = seeding.rng(4)
    t = random_tensors(rng, present=())
    model = make_mlp_model(t, x_shape=None)
    sess = session(model, ort_lib)
    for x, needle in ((np.ones((3,), np.float32), "x [3] has rank 1"),
                      (np.ones((0, 3, 4), np.float32), "batch size N must be positive"),
                      (np.ones((2, 3, 0), np.float32), "spatial size S_1 must be positive"),
                      (np.ones((2, 4, 5), np.float32), "must equal the input channel count Cin = 4"),
                      (np.ones((1, 3) + (1,) * 9, np.float32), "at most 8 are supported")):
        expect_error(lambda: sess.run(None, {"x": x}), needle)
    # the session still works after the errors
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    check(sess.run(None, {"x": x})[0], {**t, "x": x}, 2e-5)


def test_error_mixed_dtypes(ort_lib):
    rng = seeding.rng(5)
    t = random_tensors(rng, present=("residual",))
    model = make_mlp_model(t, x_shape=[2, 3, 37], residual_shape=[2, 7, 37])
    model.graph.input[1].type.tensor_type.elem_type = TensorProto.FLOAT16
    with pytest.raises(Exception) as info:
        session(model, ort_lib).run(None, {"x": t["x"], "residual": t["residual"].astype(np.float16)})
    assert "PointwiseMLP" in str(info.value) or NODE in str(info.value), str(info.value)


def test_error_float64(ort_lib):
    t = random_tensors(seeding.rng(6), dtype=np.float64, present=())
    expect_error(_run_bad(ort_lib, t, elem=TensorProto.DOUBLE), "x has dtype float64",
                 "supports float32, float16 and bfloat16")


def test_error_missing_required_w2(ort_lib):
    t = random_tensors(seeding.rng(7), present=())
    with pytest.raises(Exception) as info:
        run(t, ort_lib, inputs=["x", "w1"])
    msg = str(info.value)
    assert NODE in msg or "PointwiseMLP" in msg, msg


# --- CUDA EP ---------------------------------------------------------------------------------------

def _cuda_skip():
    from conftest import cuda_skip_reason

    reason = cuda_skip_reason()
    if reason:
        pytest.skip(f"CUDA EP test: {reason}")


def cuda_session(model, lib, **cuda_opts):
    import onnxruntime as ort

    if hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
    opts = ort.SessionOptions()
    opts.register_custom_ops_library(lib)
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")  # the node must run on CUDA
    sess = ort.InferenceSession(model.SerializeToString(), opts,
                                providers=[("CUDAExecutionProvider", {"device_id": 0, **cuda_opts})])
    assert "CUDAExecutionProvider" in sess.get_providers()
    return sess


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float16, 3e-3)], ids=["f32", "f16"])
@pytest.mark.parametrize("present", [(), OPTIONAL], ids=["bare", "all"])
def test_cuda_matches_reference(dtype, tol, present, ort_lib):
    _cuda_skip()
    t = random_tensors(seeding.rng(8000), batch=2, cin=64, ch=32, cout=64, spatial=(33, 20), dtype=dtype,
                       present=present)
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    r = t["residual"]
    model = make_mlp_model(t, x_shape=list(t["x"].shape), residual_shape=None if r is None else list(r.shape),
                           elem=elem, hidden_activation=1, activation=4)
    feeds = {"x": t["x"]} if r is None else {"x": t["x"], "residual": r}
    y = cuda_session(model, ort_lib).run(None, feeds)[0]
    check(y, t, tol, hidden_activation=1, activation=4)


def test_cuda_bfloat16(ort_lib):
    _cuda_skip()
    import ml_dtypes

    t = random_tensors(seeding.rng(8100), spatial=(300,))
    rounded = {k: (None if v is None else v.astype(ml_dtypes.bfloat16).astype(np.float32)) for k, v in t.items()}
    model = make_mlp_model(t, x_shape=list(t["x"].shape), residual_shape=list(t["residual"].shape),
                           compute_elem=TensorProto.BFLOAT16, hidden_activation=2, activation=3)
    y = cuda_session(model, ort_lib).run(None, {"x": t["x"], "residual": t["residual"]})[0]
    check(y, rounded, 2e-2, hidden_activation=2, activation=3)


def test_cuda_graph_replays_new_data(ort_lib):
    """enable_cuda_graph: capture on the first run, replays see new input data (no host sync, no
    allocation inside the op's launch)."""
    _cuda_skip()
    import onnxruntime as ort

    rng = seeding.rng(8200)
    t = random_tensors(rng, batch=2, cin=16, ch=32, cout=8, spatial=(24, 24))
    shape_x, shape_y = list(t["x"].shape), list(t["residual"].shape)
    model = make_mlp_model(t, x_shape=shape_x, residual_shape=shape_y, hidden_activation=1, activation=1)
    sess = cuda_session(model, ort_lib, enable_cuda_graph="1")
    xv = ort.OrtValue.ortvalue_from_numpy(t["x"], "cuda", 0)
    rv = ort.OrtValue.ortvalue_from_numpy(t["residual"], "cuda", 0)
    yv = ort.OrtValue.ortvalue_from_shape_and_type(shape_y, np.float32, "cuda", 0)
    io = sess.io_binding()
    io.bind_ortvalue_input("x", xv)
    io.bind_ortvalue_input("residual", rv)
    io.bind_ortvalue_output("y", yv)
    sess.run_with_iobinding(io)  # warm-up + capture
    sess.run_with_iobinding(io)  # replay
    check(yv.numpy(), t, 1e-4, hidden_activation=1, activation=1)
    x2 = rng.standard_normal(t["x"].shape).astype(np.float32)
    r2 = rng.standard_normal(t["residual"].shape).astype(np.float32)
    xv.update_inplace(x2)
    rv.update_inplace(r2)
    sess.run_with_iobinding(io)  # replay on new data
    check(yv.numpy(), {**t, "x": x2, "residual": r2}, 1e-4, hidden_activation=1, activation=1)


def test_cuda_bad_shape_is_a_clear_error(ort_lib):
    _cuda_skip()
    rng = seeding.rng(8300)
    t = random_tensors(rng, present=("b1",))
    t["b1"] = rng.standard_normal(4).astype(np.float32)
    model = make_mlp_model(t, x_shape=list(t["x"].shape))
    with pytest.raises(Exception, match=f"PointwiseMLP node '{NODE}'.*b1 \\[4\\] must have shape"):
        cuda_session(model, ort_lib).run(None, {"x": t["x"]})
