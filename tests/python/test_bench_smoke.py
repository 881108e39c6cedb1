"""Smoke tests of the benchmarks on the CPU (tiny settings): they run, check accuracy before timing,
and write their JSON / markdown (/ PNG) files. Numbers are not checked: a loaded CI machine is noisy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("onnxruntime")
pytest.importorskip("neuralop")


def _run(script, *args, tmp_path):
    env = dict(os.environ, TURBOFNO_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], capture_output=True, text=True,
                          env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_model_bench_cpu_quick(tmp_path):
    out = tmp_path / "mb"
    _run("model_bench.py", "--quick", "--device", "cpu", "--models", "fno3d-tiny", "tfno2d-tiny", "--batches", "1", "2",
         "--min-time", "0.01", "--threads", "1", "--fp16", "--out", str(out), tmp_path=tmp_path)
    data = json.loads((out / "model_bench.json").read_text())
    assert {r["model"] for r in data["rows"]} == {"fno3d-tiny", "tfno2d-tiny"}
    fp32 = [r for r in data["rows"] if r["dtype"] == "fp32"]
    fp16 = [r for r in data["rows"] if r["dtype"] == "fp16"]
    assert len(fp32) == len(fp16) == 4
    for r in fp32:
        assert r["ms"]["torch_eager"] > 0 and r["ms"]["ort_cpu"] > 0
        assert r["rel_l2"]["ort_cpu"] <= 1e-5 and r["fused_nodes"] == r["spectral_nodes"] == 2
    for r in fp16:  # the float16 export (turbofno.export.fp16) in ORT CPU, against PyTorch fp32
        assert r["ms"]["ort_cpu"] > 0 and 1e-6 < r["rel_l2"]["ort_cpu"] <= 5e-3, r
    assert data["meta"]["commit"] and data["meta"]["date"]
    md = (out / "model_bench.md").read_text()
    assert (out / "model_bench.png").stat().st_size > 0 and "ORT CPU" in md and "fp16 rows: our export" in md


def test_fused_layer_bench_cpu_quick(tmp_path):
    out = tmp_path / "fl"
    _run("fused_layer_bench.py", "--device", "cpu", "--quick", "--threads", "1", "--out", str(out), tmp_path=tmp_path)
    data = json.loads((out / "fused_layer.json").read_text())
    (row,) = data["rows"]
    assert row["fused_ms"] > 0 and row["chain_ms"] > 0 and row["rel_l2_fused"] <= 1e-5


def test_fused_layer_bench_chained_layers(tmp_path):
    """--depth: the layers chained in one model, checked against the float64 layer applied that often."""
    out = tmp_path / "fl3"
    _run("fused_layer_bench.py", "--device", "cpu", "--quick", "--threads", "1", "--depth", "3", "--out", str(out),
         tmp_path=tmp_path)
    data = json.loads((out / "fused_layer.json").read_text())
    assert [(r["variant"], r["layers"]) for r in data["rows"]] == [("ORT CPU", 1), ("ORT CPU x3 (per layer)", 3)]
    for r in data["rows"]:
        assert r["fused_ms"] > 0 and r["chain_ms"] > 0 and r["rel_l2_fused"] <= 1e-5 and r["rel_l2_chain"] <= 1e-5
    assert "x3 (per layer)" in (out / "fused_layer.md").read_text()
