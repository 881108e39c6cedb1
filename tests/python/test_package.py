"""The Python package itself: light import, library lookup, the name table matches core.h, the CLI."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_import_is_light():
    """`import turbofno` must not import torch, onnx, onnxruntime or tensorrt."""
    code = ("import sys, turbofno; heavy = [m for m in ('torch', 'onnx', 'onnxruntime', 'tensorrt') if m in sys.modules];"
            "print(heavy); sys.exit(1 if heavy else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_names_match_core_header():
    from turbofno import _op

    header = (ROOT / "plugins/include/turbofno/core.h").read_text()
    consts = dict(re.findall(r'constexpr const char\* (k\w+) = "([^"]*)"', header))
    assert consts["kOpType"] == _op.OP_TYPE
    assert consts["kOpDomain"] == _op.DOMAIN
    assert consts["kPluginVersion"] == _op.PLUGIN_VERSION
    assert consts["kAttrModesLow"] == _op.ATTR_MODES_LOW
    assert consts["kAttrModesHigh"] == _op.ATTR_MODES_HIGH
    assert consts["kAttrNorm"] == _op.ATTR_NORM
    assert consts["kAttrSeparable"] == _op.ATTR_SEPARABLE
    assert consts["kAttrOutputSize"] == _op.ATTR_OUTPUT_SIZE
    assert consts["kAttrActivation"] == _op.ATTR_ACTIVATION
    assert int(re.search(r"constexpr int kOpMinVersion = (\d+);", header).group(1)) == _op.OPSET_VERSION
    assert int(re.search(r"constexpr int kOpVersion = (\d+);", header).group(1)) == _op.OPSET_VERSION_FUSED
    params = (ROOT / "plugins/include/turbofno/params.h").read_text()
    enum = re.search(r"enum class Activation : int32_t \{([^}]*)\}", params).group(1)
    values = {name: int(v) for name, v in re.findall(r"k(\w+) = (\d+)", enum)}
    assert values == {"Identity": 0, "GeluErf": 1, "GeluTanh": 2, "Relu": 3, "Silu": 4, "Tanh": 5}
    assert _op.ACTIVATIONS == {"identity": 0, "gelu": 1, "gelu_tanh": 2, "relu": 3, "silu": 4, "tanh": 5}


def test_library_path(ort_lib):
    assert Path(ort_lib).is_file() and Path(ort_lib).name == "libturbofno_ort.so"


def test_library_path_errors(monkeypatch, tmp_path):
    import turbofno

    monkeypatch.setenv("TURBOFNO_LIB_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="TurboFNO ort library not found"):
        turbofno.get_library_path("ort")
    with pytest.raises(ValueError, match="unknown library kind"):
        turbofno.get_library_path("tflite")


def test_library_exports_only_register(ort_lib):
    """The version script keeps every symbol but RegisterCustomOps local."""
    nm = subprocess.run(["nm", "-D", "--defined-only", ort_lib], capture_output=True, text=True)
    if nm.returncode != 0:
        pytest.skip("nm not available")
    symbols = [line.split()[-1] for line in nm.stdout.splitlines() if line.split()[1:2] and line.split()[1] in "TtDdBbWwVv"]
    assert symbols == ["RegisterCustomOps"], symbols


def test_info_cli(ort_lib):
    proc = subprocess.run([sys.executable, "-m", "turbofno", "info", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    import json

    info = json.loads(proc.stdout)
    assert info["ort_library"] == ort_lib
    assert info["build"]["ort_api_version"] == 17
