"""Export PyTorch FNOs to ONNX graphs that call TurboFNO's `ai.turbofno::SpectralConv` op.

    from turbofno.export import export
    report = export(model, torch.randn(1, 3, 64, 64), "fno.onnx")

Public names: `export`, `register_converter`, `unregister_converter`, `TurboSpectralConv`,
`LayerContext`, `ExportReport`, `ExportError`, `ConversionError`, `ValidationError`,
`spectral_conv_reference`, `convert_to_fp16` (an exported graph in float16), `Fp16ConversionError`. They are imported lazily, so `import turbofno.export` (and the
`turbofno` CLI) does not pull in torch or onnx until one is used.
"""
from __future__ import annotations

import importlib
import sys
import types

_LAZY = {
    "export": "turbofno.export.exporter",
    "DEFAULT_RTOL": "turbofno.export.exporter",
    "register_converter": "turbofno.export.converters",
    "unregister_converter": "turbofno.export.converters",
    "LayerContext": "turbofno.export.converters",
    "TurboSpectralConv": "turbofno.export.module",
    "ExportReport": "turbofno.export.report",
    "ExportError": "turbofno.export.errors",
    "ConversionError": "turbofno.export.errors",
    "ValidationError": "turbofno.export.errors",
    "spectral_conv_reference": "turbofno.export.torch_op",
    "convert_to_fp16": "turbofno.export.fp16",
    "Fp16ConversionError": "turbofno.export.fp16",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'turbofno.export' has no attribute {name!r}")


class _CallableModule(types.ModuleType):
    """`turbofno.export` is both this package and, per turbofno/__init__.py, the export function:
    once the package is imported the attribute is the module, so calling it forwards to export()."""

    def __call__(self, *args, **kwargs):
        return self.export(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
