"""Chained SpectralConv nodes (turbofno.reference.make_chain_model) in ONNX Runtime's CPU provider vs the
float64 reference applied once per node, and a CPU dry run of bench/gpu_bench.py's ORT columns (the
one-node and the chained model, IOBinding into torch tensors, the accuracy gate that keeps a wrong
chain from being timed) and of its markdown table with the chain columns.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import seeding
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ortutil import rel_l2, session  # noqa: E402
from turbofno.reference import make_chain_model, make_model, random_case, spectral_conv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FP32_TOL = 1e-5


def chain_ref(x, w, b, n, **kw):
    """The float64 reference layer applied n times."""
    y = np.asarray(x, dtype=np.float64)
    for _ in range(n):
        y = spectral_conv(y, w, b, **kw)
    return y


def test_chain_model_structure():
    _, w, b = random_case(seeding.rng(0), (8, 6), [2, 3], [2, 0], batch=1, cin=3, cout=3)
    model = make_chain_model(w, b, n_layers=3, modes_low=[2, 3], modes_high=[2, 0], x_shape=[1, 3, 8, 6])
    one = make_model(w, b, modes_low=[2, 3], modes_high=[2, 0], x_shape=[1, 3, 8, 6])
    g = model.graph
    assert [(list(n.input), list(n.output)) for n in g.node] == [
        (["x", "weight", "bias"], ["y_1"]), (["y_1", "weight", "bias"], ["y_2"]), (["y_2", "weight", "bias"], ["y"])]
    assert [n.name for n in g.node] == ["spectral_conv_0", "spectral_conv_1", "spectral_conv_2"]
    assert len(g.initializer) == 2  # shared by every node
    assert all(n.attribute == one.graph.node[0].attribute and n.domain == one.graph.node[0].domain for n in g.node)
    assert [i.name for i in g.input] == ["x"] and [o.name for o in g.output] == ["y"]
    assert list(model.opset_import) == list(one.opset_import)


def test_chain_model_refuses_what_cannot_chain():
    _, w, b = random_case(seeding.rng(0), (8, 6), [2, 3], [2, 0], batch=1, cin=3, cout=4)
    with pytest.raises(ValueError, match="Cout == Cin"):
        make_chain_model(w, b, n_layers=2, modes_low=[2, 3], modes_high=[2, 0])
    _, w, b = random_case(seeding.rng(0), (8, 6), [2, 3], [2, 0], batch=1, cin=3, cout=3)
    with pytest.raises(ValueError, match="n_layers"):
        make_chain_model(w, b, n_layers=0, modes_low=[2, 3], modes_high=[2, 0])
    with pytest.raises(ValueError, match="output_size"):
        make_chain_model(w, b, n_layers=2, modes_low=[2, 3], modes_high=[2, 0], output_size=[10, 6])


@pytest.mark.parametrize("spatial,low,high", [((20,), [6], [0]), ((12, 10), [3, 4], [3, 0]), ((8, 6, 9), [3, 3, 5], [2, 3, 0])],
                         ids=["1d", "2d", "3d"])
@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("separable", [0, 1])
def test_chain_cpu_matches_reference_applied_3_times(spatial, low, high, static, separable, ort_lib):
    rng = seeding.rng(3301)
    x, w, b = random_case(rng, spatial, low, high, batch=2, cin=4, cout=4, separable=separable)
    model = make_chain_model(w, b, n_layers=3, modes_low=low, modes_high=high, separable=separable,
                             x_shape=list(x.shape) if static else None)
    y = session(model, ort_lib).run(None, {"x": x})[0]
    kw = dict(modes_low=low, modes_high=high, separable=separable)
    want = chain_ref(x, w, b, 3, **kw)
    assert y.shape == want.shape and np.isfinite(y).all()
    err = rel_l2(y, want)
    assert err <= FP32_TOL, f"3-node chain vs the reference applied 3 times: rel-L2 {err:.3e}"
    # the check tells the depth apart: 2 or 4 applications are far off
    assert rel_l2(y, chain_ref(x, w, b, 2, **kw)) > 1e-2 and rel_l2(y, chain_ref(x, w, b, 4, **kw)) > 1e-2


# --- bench/gpu_bench.py on the CPU ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gpu_bench():
    pytest.importorskip("torch")
    saved = list(sys.path)
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import gpu_bench as mod  # imports torch and tests/gpu/tfno.py (its CUDA library only on first use)
    finally:
        sys.path[:] = saved
    return mod


def _case(rng, spatial, m, batch=2, c=6):
    """A benchmark-style case on the CPU: low = m everywhere, high = m on the leading axes, w ~ randn / C."""
    d = len(spatial)
    low, high = [m] * d, [m] * (d - 1) + [0]
    x = rng.standard_normal((batch, c, *spatial)).astype(np.float32)
    w = (rng.standard_normal((c, c, *([2 * m] * (d - 1) + [m]), 2)) / c).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    return x, w, b, low, high


def test_chain_weights_keep_the_norm(gpu_bench):
    """chain_weights: 10 layers of the benchmark's weights neither vanish nor blow up, and the output is not
    just the biases (the kept modes of x still matter)."""
    x, w, b, low, high = _case(seeding.rng(3302), (32, 24), 6, c=16)
    wch, bch = gpu_bench.chain_weights(w, b, 10)
    assert wch.dtype == np.float32 and wch.shape == w.shape and bch.shape == b.shape
    kw = dict(modes_low=low, modes_high=high)
    y = chain_ref(x, wch, bch, 10, **kw)
    y_bias_only = chain_ref(np.zeros_like(x), wch, bch, 10, **kw)
    ratio = np.linalg.norm(y) / np.linalg.norm(x)
    assert 0.05 < ratio < 20, ratio
    assert rel_l2(y_bias_only, y) > 0.3  # x's part is a sizeable share of the output
    y_unscaled = chain_ref(x, w, b, 10, **kw)
    assert rel_l2(chain_ref(np.zeros_like(x), w, b, 10, **kw), y_unscaled) < 1e-3  # why the scaling is needed


def test_chain_case_reference_matches_numpy(gpu_bench):
    """gpu_bench.chain_case's float64 PyTorch chain (the GPU run's reference) on CPU tensors equals
    turbofno.reference applied n times."""
    import torch

    S, m, n = [12, 10], 3, 4
    x, w, b, low, high = _case(seeding.rng(3303), S, m)
    c = SimpleNamespace(x=torch.from_numpy(x), w=torch.from_numpy(w), b=torch.from_numpy(b), C=x.shape[1], S=S, m=m, d=2)
    ch = gpu_bench.chain_case(c, n)
    assert ch.n == n
    want = chain_ref(x, ch.w, ch.b, n, modes_low=low, modes_high=high)
    assert rel_l2(ch.ref.numpy(), want) <= 1e-12


@pytest.mark.parametrize("spatial,m", [((16, 12), 3), ((40,), 8)], ids=["2d", "1d"])
def test_gpu_bench_ort_columns_cpu_dry_run(gpu_bench, ort_lib, spatial, m):
    """ort_columns with the CPU EP: both models run through IOBinding into torch tensors, match their float64
    references, get a time; a chain whose output disagrees with its reference gets an error and no time."""
    import torch

    n = 3
    x, w, b, low, high = _case(seeding.rng(3304), spatial, m)
    kw = dict(modes_low=low, modes_high=high)
    wch, bch = gpu_bench.chain_weights(w, b, n)
    ref = torch.from_numpy(spectral_conv(x, w, b, **kw))
    chain = SimpleNamespace(n=n, w=wch, b=bch, ref=torch.from_numpy(chain_ref(x, wch, bch, n, **kw)))
    xs = torch.from_numpy(x)
    r = {}
    gpu_bench.ort_columns(r, "f32", xs, w, b, ref, low, high, iters=3, warm=1, chain=chain, device="cpu", lib=ort_lib,
                          timer=gpu_bench.wall_bench)
    assert not [k for k in r if k.endswith("_error")], r
    assert set(r) == {"ort_f32_ms", "ort_f32_err", "ort_f32_chain_ms", "ort_f32_chain_err"}
    assert r["ort_f32_err"] <= FP32_TOL and r["ort_f32_chain_err"] <= FP32_TOL
    assert r["ort_f32_ms"] > 0 and r["ort_f32_chain_ms"] > 0

    wrong = SimpleNamespace(n=n, w=wch, b=bch, ref=torch.from_numpy(chain_ref(x, wch, bch, n - 1, **kw)))
    r = {}
    gpu_bench.ort_columns(r, "f32", xs, w, b, ref, low, high, iters=3, warm=1, chain=wrong, device="cpu", lib=ort_lib,
                          timer=gpu_bench.wall_bench)
    assert "ort_f32_chain_ms" not in r and "not timed" in r["ort_f32_chain_error"], r
    assert r["ort_f32_chain_err"] > gpu_bench.CHAIN_TOL["f32"] and r["ort_f32_ms"] > 0


def _row(shape, torch_graph, ours, ort_cg, chain_cg):
    return {"shape": shape, "torch_eager_ms": 1.0, "torch_graph_ms": torch_graph, "ours_f32_auto_ms": ours, "ort_f32_ms": ort_cg * 1.2,
            "ort_f32_cg_ms": ort_cg, "ort_f32_chain_ms": chain_cg * 1.1, "ort_f32_chain_cg_ms": chain_cg, "floor_f32_ms": 0.001,
            "torch_f32_err": 1e-7, "ours_f32_auto_err": 1e-7, "ort_f32_cg_err": 1e-7, "ort_f32_chain_cg_err": 2e-7}


@pytest.mark.parametrize("chain", [10, 0], ids=["chain", "no-ort-chain"])
def test_gpu_bench_table_chain_columns(gpu_bench, tmp_path, chain):
    rows = [_row("a", 0.033, 0.029, 0.047, 0.030), _row("b", 0.2, 0.1, 0.16, 0.125), _row("c", 0.5, 0.4, 0.45, 0.42)]
    for r in rows:
        if not chain:
            for k in [k for k in r if "chain" in k]:
                del r[k]
    if chain:  # a chain that failed its accuracy check: an error, no time
        del rows[2]["ort_f32_chain_cg_ms"]
        rows[2]["ort_f32_chain_cg_error"] = "output rel-L2 1 > 0.0001: not timed"
    meta = dict(gpu="CPU dry run", date="today", commit="abc", copy_bw_TBps=4.0, paths=[], reps=10, ort_chain=chain)
    gpu_bench.write_outputs(dict(meta=meta, rows=rows), tmp_path)
    md = (tmp_path / "gpu_bench.md").read_text()
    tables = [[line for line in block.splitlines() if line.startswith("|")] for block in md.split("\n\n")]
    assert len([t for t in tables if t]) == 2
    for t in [t for t in tables if t]:
        assert len({line.count("|") for line in t}) == 1, t  # every row has the header's columns
    gm_one = (0.033 / 0.047 * 0.2 / 0.16 * 0.5 / 0.45) ** (1 / 3)
    assert (f"one node per session run, over PyTorch CUDA-graph replay: geometric mean **{gm_one:.2f}×** "
            f"(min {0.033 / 0.047:.2f}×, max {0.2 / 0.16:.2f}×, 3 shapes)") in md
    if chain:
        gm_chain = math.sqrt((0.033 / 0.030) * (0.2 / 0.125))
        assert "10 chained SpectralConv nodes in one ONNX model" in md
        assert "| ORT f32 ×10 (per layer) | ORT f32 cg ×10 (per layer) |" in md and "ORT cg ×10 vs torch graph |" in md
        assert (f"10 chained nodes per session run (ms per layer), over PyTorch CUDA-graph replay: geometric mean "
                f"**{gm_chain:.2f}×** (min {0.033 / 0.030:.2f}×, max {0.2 / 0.125:.2f}×, 2 shapes)") in md
        assert "| c | " in md and "c: ort_f32_chain_cg_error output rel-L2 1 > 0.0001: not timed" in md
        assert " 2.0e-07 |" in md  # the chain's accuracy column
    else:
        assert "chain" not in md and "×10 (per layer)" not in md
