"""ONNX Runtime sessions with the TurboFNO op library registered."""
from __future__ import annotations

import os
from typing import Sequence, Union

from turbofno._library import get_library_path


def default_providers() -> list[str]:
    """CUDA (then CPU) when the installed onnxruntime has the CUDA provider, else CPU."""
    import onnxruntime as ort

    available = ort.get_available_providers()
    if "CUDAExecutionProvider" in available:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def make_session_options(**opts):
    """SessionOptions with the library registered; keyword arguments set SessionOptions attributes
    (e.g. intra_op_num_threads=2, graph_optimization_level=...)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    for key, value in opts.items():
        if not hasattr(options, key):
            raise TypeError(f"onnxruntime.SessionOptions has no attribute {key!r}")
        setattr(options, key, value)
    options.register_custom_ops_library(get_library_path("ort"))
    return options


def make_session(model: Union[str, os.PathLike, bytes], providers: Sequence | None = None, **opts):
    """onnxruntime.InferenceSession for `model` (a path or serialized bytes) with SpectralConv available.

    providers: as for InferenceSession; default: see default_providers().
    opts: SessionOptions attributes (see make_session_options).
    """
    import onnxruntime as ort

    options = make_session_options(**opts)
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    return ort.InferenceSession(model, options, providers=list(providers) if providers else default_providers())
