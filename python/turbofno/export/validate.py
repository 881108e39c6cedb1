"""Post-export check: run the ONNX file in ONNX Runtime with our op library, compare with PyTorch."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np


@dataclass
class ValidationResult:
    max_abs_err: float      # max |ort - torch| over all outputs
    rel_l2_err: float       # ||ort - torch|| / ||torch|| over all outputs together
    rtol: float
    batch_checked: list     # batch sizes run through ORT
    passed: bool
    providers: list
    spatial_checked: list = field(default_factory=list)   # spatial shapes of input 0 run through ORT

    def summary(self) -> str:
        verdict = "ok" if self.passed else "FAILED"
        sizes = " and spatial " + ", ".join("x".join(map(str, s)) for s in self.spatial_checked) \
            if len(self.spatial_checked) > 1 else ""
        return (f"ORT vs PyTorch: max abs err {self.max_abs_err:.3g}, relative L2 err {self.rel_l2_err:.3g} "
                f"(tolerance {self.rtol:g}) on batch {self.batch_checked}{sizes} -> {verdict}")

    def merge(self, other: "ValidationResult") -> "ValidationResult":
        """Both checks together: worst errors, every batch and size tried, passed only if both passed."""
        return ValidationResult(
            max_abs_err=max(self.max_abs_err, other.max_abs_err), rel_l2_err=max(self.rel_l2_err, other.rel_l2_err),
            rtol=self.rtol, batch_checked=sorted(set(self.batch_checked + other.batch_checked)),
            passed=self.passed and other.passed, providers=self.providers,
            spatial_checked=self.spatial_checked + [s for s in other.spatial_checked if s not in self.spatial_checked])


def probe_size(size: int, last: bool) -> int:
    """A second spatial size for the validation: about 1.5x; parity kept, except the last axis (flipped),
    so that an odd last axis and non-square shapes are exercised."""
    return size + 2 * max(1, size // 4) + (1 if last else 0)


def probe_inputs(inputs, dynamic_axes) -> tuple:
    """Random normal inputs whose symbolic non-batch axes have probe sizes (same for equal sizes)."""
    import torch

    g = torch.Generator().manual_seed(4321)
    out = []
    for x, axes in zip(inputs, dynamic_axes):
        spatial = [a for a in axes if a != 0]
        shape = [probe_size(s, a == x.dim() - 1) if a in spatial else s for a, s in enumerate(x.shape)]
        out.append(torch.randn(shape, generator=g, dtype=x.dtype))
    return tuple(out)


def make_session(path: str, providers: Sequence[str] | None = None):
    """An ORT session for `path` with the TurboFNO op library registered (CPU unless told otherwise)."""
    from turbofno.session import make_session as _make_session

    return _make_session(path, providers=list(providers or ["CPUExecutionProvider"]), log_severity_level=3)


def _errors(got: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> tuple[float, float]:
    diff2 = ref2 = 0.0
    max_abs = 0.0
    for g, e in zip(got, expected):
        g64, e64 = np.asarray(g, dtype=np.float64), np.asarray(e, dtype=np.float64)
        if g64.shape != e64.shape:
            raise ValueError(f"ONNX output shape {g64.shape} != PyTorch output shape {e64.shape}")
        d = g64 - e64
        max_abs = max(max_abs, float(np.max(np.abs(d))) if d.size else 0.0)
        diff2 += float(np.sum(d * d))
        ref2 += float(np.sum(e64 * e64))
    return max_abs, float(np.sqrt(diff2) / max(np.sqrt(ref2), 1e-30))


def check_onnx(path: str, inputs: Sequence[np.ndarray], expected: Sequence[np.ndarray], *, rtol: float,
               dynamic_batch: bool, providers: Sequence[str] | None = None) -> ValidationResult:
    """Run `path` on `inputs` and compare with `expected` (the PyTorch outputs).

    With a dynamic batch, also runs the inputs stacked twice along axis 0 and checks that both
    halves reproduce `expected`: the batch axis really is free in the exported graph.
    """
    session = make_session(path, providers)
    names = [i.name for i in session.get_inputs()]
    if len(names) != len(inputs):
        raise ValueError(f"ONNX model has {len(names)} inputs, got {len(inputs)} example inputs")
    got = session.run(None, dict(zip(names, inputs)))
    max_abs, rel = _errors(got, expected)
    batches = [int(inputs[0].shape[0])] if inputs and np.ndim(inputs[0]) else []
    if dynamic_batch and batches:
        doubled = session.run(None, {n: np.concatenate([x, x], axis=0) for n, x in zip(names, inputs)})
        halves = [o[: len(o) // 2] for o in doubled] + [o[len(o) // 2:] for o in doubled]
        m2, r2 = _errors(halves, list(expected) * 2)
        max_abs, rel = max(max_abs, m2), max(rel, r2)
        batches.append(2 * batches[0])
    return ValidationResult(max_abs_err=max_abs, rel_l2_err=rel, rtol=rtol, batch_checked=batches,
                            passed=bool(rel <= rtol), providers=list(session.get_providers()),
                            spatial_checked=[list(np.shape(inputs[0])[2:])] if inputs else [])
