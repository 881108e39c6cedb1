"""TurboFNO: a fused FNO spectral convolution for ONNX Runtime and TensorRT.

Importing this package loads nothing heavy (no torch, onnx, onnxruntime or tensorrt).

    turbofno.get_library_path("ort")    # -> .../turbofno/lib/libturbofno_ort.so
    turbofno.make_session("model.onnx") # onnxruntime session with the op registered
    turbofno.export(model, example)     # PyTorch FNO -> ONNX (needs the `export` extra)
"""
from __future__ import annotations

from turbofno._library import get_library_path

__version__ = "0.1.0"

__all__ = ["__version__", "get_library_path", "make_session", "export"]


def __getattr__(name: str):
    # Lazy attributes: importing their modules pulls in onnxruntime / torch.
    if name == "make_session":
        from turbofno.session import make_session

        return make_session
    if name == "export":
        from turbofno.export import export

        return export
    raise AttributeError(f"module 'turbofno' has no attribute {name!r}")
