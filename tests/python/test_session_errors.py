"""make_session's error for ORT's CUDA graph on a model with dynamic axes names the fix (static export);
other session errors pass through unchanged. ORT's own failure is simulated (no GPU needed)."""
from __future__ import annotations

import onnxruntime as ort
import pytest

from turbofno.session import make_session

GRAPH_CAPTURE_ERR = ("[ONNXRuntimeError] : 1 : FAIL : This session cannot use the graph capture feature as requested by "
                     "the user  as all compute graph nodes have not been partitioned to the CUDAExecutionProvider")


def _failing(message):
    def session(*args, **kwargs):
        raise ort.capi.onnxruntime_pybind11_state.Fail(message)
    return session


def test_graph_capture_failure_says_export_static(monkeypatch):
    monkeypatch.setattr(ort, "InferenceSession", _failing(GRAPH_CAPTURE_ERR))
    with pytest.raises(RuntimeError) as info:
        make_session(b"model", providers=[("CUDAExecutionProvider", {"enable_cuda_graph": "1"})])
    text = str(info.value)
    assert "graph capture" in text and "dynamic_spatial=False" in text and "--static-spatial" in text
    assert isinstance(info.value.__cause__, ort.capi.onnxruntime_pybind11_state.Fail)


def test_other_session_errors_pass_through(monkeypatch):
    monkeypatch.setattr(ort, "InferenceSession", _failing("Load model from x failed: no such file"))
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.Fail, match="no such file"):
        make_session(b"model", providers=["CPUExecutionProvider"])
