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
