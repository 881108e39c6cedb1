"""Exceptions raised by the exporter. Each names what failed and why, so nothing fails silently."""
from __future__ import annotations

import re

from torch import nn


def class_name(module_or_class) -> str:
    cls = module_or_class if isinstance(module_or_class, type) else type(module_or_class)
    return f"{cls.__module__}.{cls.__qualname__}"


def brief(err: BaseException) -> str:
    """One line for an exception raised inside torch: the innermost cause's type and first line (torch.onnx
    wraps the actual error in a ConversionError whose own text is mostly advice)."""
    root, seen = err, {id(err)}
    while root.__cause__ is not None and id(root.__cause__) not in seen:
        root = root.__cause__
        seen.add(id(root))
    first = next((line.strip() for line in str(root).splitlines() if line.strip()), "")
    first = re.sub(r"\x1b\[[0-9;]*m", "", first)  # torch.onnx colours its messages
    where = "" if root is err else f"{type(err).__name__}, caused by "
    return f"{where}{type(root).__name__}: {first}"


class ExportError(RuntimeError):
    """Base class: the export stopped and no ONNX file was produced."""


class ConversionError(ExportError):
    """A spectral layer could not be converted to the SpectralConv op."""

    def __init__(self, path: str, module: nn.Module | type, reason: str):
        self.path = path or "<root>"
        self.cls = class_name(module)
        self.reason = reason
        super().__init__(f"cannot convert module '{self.path}' ({self.cls}): {reason}\nnext step: {NEXT_STEP}")


# What to do when a layer cannot be converted (appended to every ConversionError).
NEXT_STEP = ("change what the reason names (docs/exporter.md, 'Refused'), or convert the class yourself with "
             "turbofno.export.register_converter(cls, fn) (docs/exporter.md, 'Your own spectral layer')")


class ValidationError(ExportError):
    """The exported ONNX model does not reproduce the PyTorch model within tolerance."""

    def __init__(self, message: str, report=None):
        self.report = report
        super().__init__(message)
