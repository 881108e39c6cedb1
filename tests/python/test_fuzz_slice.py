"""The CI slice of the fuzz campaign (tests/fuzz/campaign.py): 400 ORT op cases and 2 exporter cases
in child processes; any crash, hang, wrong number, accepted invalid input or unclean exporter error
fails. (The TensorRT slice is the ctest entry trt_fuzz_slice; the full campaign: tests/fuzz/README.md.)"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

CAMPAIGN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz", "campaign.py")


def test_fuzz_slice(ort_lib, test_seed):
    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, CAMPAIGN, "--ort", "400", "--export", "2", "--trt", "0", "--minutes", "10",
                          "--lib", ort_lib, "--seed", str(test_seed)], capture_output=True, text=True, timeout=900)
    print(out.stdout[-3000:])
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "total cases: 402; crashes/hangs: 0; wrong/accepted/unclean: 0" in out.stdout
