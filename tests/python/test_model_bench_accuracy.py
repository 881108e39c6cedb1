"""bench/model_bench.py's exit status: only our export's accuracy fails a run, not PyTorch's own CUDA or
torch.compile departures (they stay in the table's notes)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _model_bench():
    spec = importlib.util.spec_from_file_location("model_bench", ROOT / "bench" / "model_bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(rel_l2, cpu_ref=None, dtype="fp32"):
    row = {"model": "m", "batch": 1, "dtype": dtype, "rel_l2": rel_l2}
    if cpu_ref is not None:
        row["rel_l2_cpu_ref"] = cpu_ref
    return row


def test_accuracy_failures_only_ours():
    mb = _model_bench()
    tol = mb.ACCURACY_TOL
    ok = _row({"ort_cpu": tol / 10, "ort_cuda_graph": tol / 2, "torch_graph": 0.0})
    # PyTorch's CUDA forward departs from its CPU forward; ORT matches the CPU one: not a failure
    pytorch_cuda_off = _row({"torch_cuda_vs_cpu": 1e-2, "ort_cuda_graph": 1e-2}, {"ort_cuda_graph": 1e-6})
    compile_off = _row({"torch_compile": 1e-2, "ort_cuda_graph": 1e-7}, {"torch_compile": 1e-2, "ort_cuda_graph": 1e-7})
    assert mb.accuracy_failures([ok, pytorch_cuda_off, compile_off]) == []
    ours_off = _row({"ort_cuda_graph": 1e-3}, {"ort_cuda_graph": 1e-3})
    ours_off_no_cpu = _row({"ort_cpu": 2 * tol})
    nan = _row({"ort_cuda_iobinding": float("nan")}, {"ort_cuda_iobinding": float("nan")})
    bad = mb.accuracy_failures([ok, ours_off, ours_off_no_cpu, nan])
    assert len(bad) == 3
    assert "ort_cuda_graph rel-L2 1.00e-03, vs PyTorch on the CPU 1.00e-03" in bad[0]
    assert "ort_cpu" in bad[1] and "ort_cuda_iobinding" in bad[2]


def test_fp16_rows_use_the_fp16_tolerance():
    mb = _model_bench()
    tol16 = mb.FP16_ACCURACY_TOL
    assert mb.ACCURACY_TOL < 4e-4 < tol16  # a float16 model's usual error fails fp32's tolerance, passes fp16's
    assert mb.accuracy_failures([_row({"ort_cuda_graph": 4e-4, "ort_cpu": 4e-4}, dtype="fp16")]) == []
    bad = mb.accuracy_failures([_row({"ort_cuda_graph": 2 * tol16, "ort_cpu": float("nan")}, dtype="fp16")])
    assert len(bad) == 2 and "fp16: ort_cuda_graph" in bad[0] and "ort_cpu" in bad[1]


def test_fp16_row_judged_against_pytorch_on_the_cpu_too():
    """The TFNO case on a GPU: PyTorch's CUDA forward departs from its CPU forward (1.4e-2); an fp16 output close to
    the CPU forward passes, as in the fp32 row, and one far from both fails."""
    import numpy as np

    mb = _model_bench()
    rng = np.random.default_rng(0)
    y_cpu = rng.standard_normal(1000)
    y_cuda = y_cpu + 1.4e-2 * rng.standard_normal(1000)  # PyTorch's CUDA forward, off by ~1.4e-2
    near_cpu = (y_cpu + 4e-4 * rng.standard_normal(1000)).astype(np.float16)
    far = (y_cpu + 5e-2 * rng.standard_normal(1000)).astype(np.float16)
    row = {"model": "tfno", "batch": 1, "dtype": "fp16", "ms": {}, "rel_l2": {}, "notes": []}
    mb.add_cpu_reference(row, y_cuda, y_cpu)
    assert 1e-2 < row["rel_l2"]["torch_cuda_vs_cpu"] < 2e-2 and row["rel_l2_cpu_ref"] == {}
    for key, out in (("ort_cuda_graph", near_cpu), ("ort_cpu", far)):
        mb.time_cell(row, key, lambda out=out: (lambda: None, lambda: out), y_cuda, mb.FP16_ACCURACY_TOL, 0.001, y_cpu)
    assert row["rel_l2_cpu_ref"]["ort_cuda_graph"] < 1e-3 < row["rel_l2"]["ort_cuda_graph"]
    assert any("ort_cuda_graph: rel-L2 vs PyTorch" in n and "vs PyTorch on the CPU" in n for n in row["notes"])
    bad = mb.accuracy_failures([row])
    assert len(bad) == 1 and "ort_cpu" in bad[0]
    # without the CPU reference (the code before: fp16 rows got no y_cpu) the same near-CPU output would fail
    bare = {"model": "tfno", "batch": 1, "dtype": "fp16", "rel_l2": {"ort_cuda_graph": row["rel_l2"]["ort_cuda_graph"]}}
    assert len(mb.accuracy_failures([bare])) == 1
