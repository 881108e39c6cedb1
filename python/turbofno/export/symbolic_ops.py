"""torch functions that torch.export would silently freeze at the example's sizes, redone size-free.

`torch.linspace(start, end, steps)` takes `steps` as a plain int in its schema: with a symbolic size
torch.export records the example's number and no guard, so a positional grid built from
`x.shape[-1]` is a baked constant in the ONNX file (wrong at any other size, and nothing says so).
While tracing, `patched()` makes `torch.linspace` compute a symbolic `steps` with arange, the same
two-sided formula as ATen's kernel in the output dtype (values agree to about one ulp).
"""
from __future__ import annotations

import contextlib

import torch

_ORIGINAL_LINSPACE = torch.linspace


def linspace(start, end, steps, *args, dtype=None, device=None, layout=None, requires_grad=False, pin_memory=False,
             out=None):
    if isinstance(steps, int) or out is not None or args or isinstance(start, torch.Tensor) \
            or isinstance(end, torch.Tensor):
        kwargs = {k: v for k, v in dict(dtype=dtype, device=device, layout=layout, out=out).items() if v is not None}
        return _ORIGINAL_LINSPACE(start, end, steps, *args, requires_grad=requires_grad, **kwargs)
    return arange_linspace(start, end, steps, dtype or torch.get_default_dtype(), device).requires_grad_(requires_grad)


def arange_linspace(start, end, steps, dtype, device):
    """ATen's linspace formula with arange: start + step*i below steps//2, end - step*(steps-1-i) above."""
    idx = torch.arange(steps, dtype=dtype, device=device)
    step = torch.full((), float(end) - float(start), dtype=dtype, device=device) / \
        (torch.ones((), dtype=dtype, device=device) * (steps - 1))
    low = float(start) + step * idx
    high = float(end) - step * ((steps - 1) - idx)
    return torch.where(idx < steps // 2, low, high)


@contextlib.contextmanager
def patched():
    """torch.linspace -> `linspace` above for the duration (tracing only)."""
    torch.linspace = linspace
    try:
        yield
    finally:
        torch.linspace = _ORIGINAL_LINSPACE
