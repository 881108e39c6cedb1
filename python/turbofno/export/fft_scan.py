"""Which modules of a model compute FFTs: for the error when no spectral layer was recognized.

Runs the model once on the example input under a TorchFunctionMode that notes every `torch.fft.*`
call together with the innermost module running at that moment (forward pre/post hooks keep the
stack). Works on any model that runs eagerly; no tracing involved.
"""
from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode

from turbofno.export.errors import class_name


class _Recorder(TorchFunctionMode):
    def __init__(self, stack: list, found: dict):
        super().__init__()
        self.stack, self.found = stack, found

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__module__", "") or ""
        if name.startswith("torch._C._fft") or name.startswith("torch.fft"):
            path, module = self.stack[-1] if self.stack else ("", None)
            key = (path, class_name(module) if module is not None else "?")
            self.found.setdefault(key, []).append("torch.fft." + func.__name__.removeprefix("fft_"))
        return func(*args, **(kwargs or {}))


def fft_modules(model: torch.nn.Module, inputs: tuple) -> list[tuple[str, str, list]]:
    """[(module path, class, [fft functions])] in call order; empty when the model computes no FFT
    (or fails on the input: that error is reported elsewhere)."""
    stack: list = []
    found: dict = {}
    handles = []
    def enter(path):
        def hook(module, _args):
            stack.append((path, module))   # returns None: the input is left alone
        return hook

    def leave(_module, _args, _output):
        stack.pop()                         # returns None: the output is left alone

    for path, module in model.named_modules():
        handles.append(module.register_forward_pre_hook(enter(path)))
        handles.append(module.register_forward_hook(leave))
    try:
        with torch.no_grad(), _Recorder(stack, found):
            model(*inputs)
    except Exception:  # noqa: BLE001 - the caller has already run the model successfully once
        pass
    finally:
        for h in handles:
            h.remove()
    return [(path, cls, sorted(set(fns))) for (path, cls), fns in found.items()]


def describe(found: list) -> str:
    """The modules that compute FFTs and what to do about them."""
    lines = [f"module '{path or '<root>'}' ({cls}) computes {', '.join(fns)}" for path, cls, fns in found]
    classes = sorted({cls.rsplit('.', 1)[-1] for _, cls, _ in found})
    return ("\n  ".join(lines) + f"\nnext step: register a converter for {', '.join(classes)} with "
            "turbofno.export.register_converter(cls, fn) (docs/exporter.md, 'Your own spectral layer')")
