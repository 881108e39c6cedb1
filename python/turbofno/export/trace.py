"""torch.export of the converted model with a dynamic batch and, when asked, dynamic spatial axes.

Spatial axes are marked `Dim.AUTO`: torch.export keeps an axis symbolic unless the model computes with
its size as a Python number, in which case that axis silently becomes the example's size. `trace`
therefore reads back which axes stayed symbolic, so the report states it and the validation probes
them. Modules known to specialize sizes are first replaced (turbofno.export.dynamic), and torch functions
that would freeze a symbolic size without a guard are swapped while tracing (symbolic_ops).
"""
from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Optional

import torch

from turbofno.export import dynamic, symbolic_ops
from turbofno.export.errors import ExportError, brief


@dataclass
class Axes:
    """Which input axes of the exported graph are symbolic."""
    dynamic: list = field(default_factory=list)   # per input: sorted axis indices that are symbolic
    replaced: list = field(default_factory=list)  # modules swapped for size-free equivalents
    static_reason: str = ""                       # why the spatial axes are fixed ("" when they are not)

    def spatial(self, i: int) -> list:
        return [a for a in self.dynamic[i] if a != 0] if i < len(self.dynamic) else []

    def any_spatial(self) -> bool:
        return any(self.spatial(i) for i in range(len(self.dynamic)))

    def describe(self, names: list) -> str:
        parts = []
        for i, axes in enumerate(self.dynamic):
            name = names[i] if i < len(names) else f"input {i}"
            parts.append(f"{name}: " + (", ".join("0 (batch)" if a == 0 else str(a) for a in axes) or "none"))
        text = "dynamic axes: " + "; ".join(parts)
        if self.static_reason:
            text += f"\n  spatial axes fixed to the example's sizes: {self.static_reason}"
        return text


def trace_inputs(inputs: tuple, dynamic_batch: bool) -> tuple:
    """torch.export specializes size-1 dims, so a batch of 1 is traced as a batch of 2."""
    if dynamic_batch and any(x.shape[0] == 1 for x in inputs):
        return tuple(torch.cat([x] * (2 if x.shape[0] == 1 else 1)) for x in inputs)
    return inputs


def free_axes(model, inputs: tuple) -> list:
    """Per input, the non-batch axes the model accepts at another size (spatial axes, whatever the layout):
    the model is run once per axis with only that axis resized (validate.probe_size); an axis whose
    change makes it fail (a channel axis) is not free."""
    from turbofno.export.validate import probe_size

    free = []
    for i, x in enumerate(inputs):
        axes = []
        for a in range(1, x.dim()):
            if x.shape[a] < 2:
                continue
            shape = list(x.shape)
            shape[a] = probe_size(shape[a], a == x.dim() - 1)
            trial = list(inputs)
            trial[i] = torch.zeros(shape, dtype=x.dtype)
            try:
                with torch.no_grad():
                    model(*trial)
            except Exception:  # noqa: BLE001 - any failure means "not free"
                continue
            axes.append(a)
        free.append(axes)
    return free


def _dynamic_shapes(inputs: tuple, dynamic_batch: bool, free: Optional[list]):
    if not dynamic_batch and not free:
        return None
    shapes = []
    for i, x in enumerate(inputs):
        spec = {0: torch.export.Dim.DYNAMIC} if dynamic_batch else {}
        if free:  # AUTO: an axis the model still specializes becomes static instead of failing the export
            spec.update({a: torch.export.Dim.AUTO for a in free[i]})
        shapes.append(spec or None)
    return tuple(shapes)


def _symbolic_axes(program: torch.export.ExportedProgram, count: int) -> list:
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    user = [n for n in placeholders if n.name in set(program.graph_signature.user_inputs)][:count]
    out = []
    for node in user:
        val = node.meta.get("val")
        shape = getattr(val, "shape", ())
        out.append([a for a, s in enumerate(shape) if not isinstance(s, int)])
    return out


def _export(model, inputs, dynamic_batch, free):
    with symbolic_ops.patched() if free else contextlib.nullcontext():
        return torch.export.export(model, trace_inputs(inputs, dynamic_batch),
                                   dynamic_shapes=_dynamic_shapes(inputs, dynamic_batch, free), strict=False)


def refused(reason: str, torch_failed: bool = False) -> ExportError:
    """The error when dynamic_spatial=True but the spatial axes cannot be symbolic, with the next step."""
    step = "export with dynamic_spatial=False (CLI: --static-spatial; one file per input resolution)"
    if torch_failed:
        step += ("; the default dynamic_spatial=None does that by itself and states this reason in the report. "
                 "The failure is inside torch: another torch version may trace the model with symbolic sizes")
    return ExportError(f"dynamic_spatial=True, but {reason}\nnext step: {step}")


def torch_failure(step: str, err: BaseException) -> str:
    """The reason for static spatial axes when `step` (torch.export, torch.onnx.export) failed with
    symbolic spatial sizes."""
    return f"{step} failed with symbolic spatial sizes (torch {torch.__version__}): {brief(err)}"


def fell_back(axes: Axes, reason: str) -> None:
    """Record that the spatial axes are static after a torch failure, and warn: the caller asked for the
    default (dynamic where possible) and gets a file that runs at the example's size only."""
    axes.static_reason = reason
    warnings.warn(f"turbofno.export: spatial axes fixed to the example's sizes: {reason}", RuntimeWarning)


def trace(model, inputs: tuple, *, dynamic_batch: bool, dynamic_spatial: Optional[bool],
          fixed: list) -> tuple[torch.export.ExportedProgram, Axes]:
    """Export `model`. dynamic_spatial: True (required), None (when possible), False (never).

    `fixed`: "layer 'path' <reason>" for each converted layer that is right only at the example's spatial
    size (a fixed output_size, kept modes that depend on the size): the spatial axes then stay static.
    Raises ExportError.
    """
    axes = Axes()
    spatial = dynamic_spatial is not False
    if spatial and fixed:
        axes.static_reason = "; ".join(fixed)
        if dynamic_spatial:
            raise refused(axes.static_reason)
        spatial = False
    free = None
    if spatial:
        try:
            model, axes.replaced = dynamic.prepare(model)
        except dynamic.DynamicUnsupported as err:
            if dynamic_spatial:
                raise refused(str(err)) from err
            axes.static_reason = str(err)
        else:
            free = free_axes(model, inputs)
            if not any(free):
                axes.static_reason = "the PyTorch model itself fails at any other spatial size"
                if dynamic_spatial:
                    raise refused(axes.static_reason)
    try:
        program = _export(model, inputs, dynamic_batch, free)
    except Exception as err:  # noqa: BLE001 - re-raised with context, or retried without spatial axes
        if not free:
            raise ExportError(f"torch.export failed on the converted model: {err}") from err
        reason = torch_failure("torch.export", err)
        if dynamic_spatial:
            raise refused(reason, torch_failed=True) from err
        try:
            program = _export(model, inputs, dynamic_batch, None)
        except Exception as err2:  # noqa: BLE001
            raise ExportError(f"torch.export failed on the converted model: {err2}") from err2
        fell_back(axes, reason)
    axes.dynamic = _symbolic_axes(program, len(inputs))
    if free and not axes.any_spatial() and not axes.static_reason:
        axes.static_reason = ("the model computes with its spatial sizes as Python numbers, so torch.export fixed "
                              "them (see docs/exporter.md, 'Dynamic spatial sizes')")
        if dynamic_spatial:
            raise refused(axes.static_reason)
    return program, axes
