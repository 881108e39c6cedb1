"""Find the spectral layers of a model, convert them, check each against the original, swap them in.

Works on a copy made by the caller. Steps:
1. walk `named_modules()`; a module some converter recognizes is a candidate (its children are not
   visited: the whole layer is replaced);
2. run the model once on the example input with hooks that record each candidate's input (and
   that its output keeps the input's spatial size) -- this run's output is also the reference;
3. convert each candidate (errors name the module path and class);
4. run each converted layer on the recorded inputs and compare with the original layer's output:
   this checks that the layer's forward really is what its converter assumes;
5. replace the modules in their parents.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import torch
from torch import nn

from turbofno.export.converters import LayerContext, find_converter
from turbofno.export.errors import ConversionError, ExportError, class_name
from turbofno.export.module import TurboSpectralConv


@dataclass
class ConvertedLayer:
    path: str
    source_class: str
    family: str
    input_shape: tuple
    modes_low: list
    modes_high: list
    norm: int
    separable: int
    bias: bool
    layer_rel_err: float = float("nan")   # worst relative L2 error of the layer check
    calls: int = 1                        # times the model calls it (shared layers: one node per call)
    output_size: Optional[list] = None    # fixed output spatial size of a resampling layer (None: the input's)
    fixed_size_reason: str = ""           # why the node is right only at the example's spatial size


@dataclass
class _Calls:
    inputs: list = field(default_factory=list)    # recorded (args, kwargs) of each call
    outputs: list = field(default_factory=list)


def find_candidates(model: nn.Module) -> list[tuple[str, nn.Module, str, object]]:
    """[(path, module, family, converter)] for every recognized layer, outermost first."""
    found, skip = [], []
    for path, module in model.named_modules():
        if any(p == "" or path.startswith(p + ".") for p in skip):
            continue
        hit = find_converter(module)
        if hit is not None:
            found.append((path, module, hit[0], hit[1]))
            skip.append(path)
    return found


def _rel_l2(a: torch.Tensor, b: torch.Tensor) -> float:
    a64, b64 = a.detach().double(), b.detach().double()
    return float(torch.linalg.vector_norm(a64 - b64) / torch.linalg.vector_norm(b64).clamp_min(1e-30))


def _first_tensor(args, kwargs):
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, torch.Tensor):
            return v
    return None


def run_and_record(model: nn.Module, example_inputs: tuple, candidates) -> tuple[object, dict[str, _Calls]]:
    """Run the model once, recording every candidate's calls. Returns (model output, calls by path)."""
    calls = {path: _Calls() for path, *_ in candidates}
    handles = []

    def pre_hook(path):
        def hook(_module, args, kwargs):
            calls[path].inputs.append((tuple(a.detach().clone() if isinstance(a, torch.Tensor) else a for a in args),
                                       dict(kwargs)))
        return hook

    def post_hook(path):
        def hook(_module, _args, _kwargs, output):
            calls[path].outputs.append(output.detach().clone() if isinstance(output, torch.Tensor) else output)
        return hook

    try:
        for path, module, *_ in candidates:
            handles.append(module.register_forward_pre_hook(pre_hook(path), with_kwargs=True))
            handles.append(module.register_forward_hook(post_hook(path), with_kwargs=True))
        with torch.no_grad():
            try:
                output = model(*example_inputs)
            except Exception as err:  # noqa: BLE001 - the user's model, any error
                raise ExportError(f"the PyTorch model fails on the example input: {type(err).__name__}: {err}") from err
    finally:
        for h in handles:
            h.remove()
    return output, calls


def _context(path, module, record: _Calls) -> LayerContext:
    args, kwargs = record.inputs[0]
    x = _first_tensor(args, kwargs)
    if x is None or x.dim() < 3:
        raise ConversionError(path, module, "its input is not a [N, C, spatial...] tensor")
    if x.is_complex():
        raise ConversionError(path, module, "its input is complex-valued; the op is real-to-real")
    pairs = []   # (input spatial, output spatial) of every call
    for (a, k), out in zip(record.inputs, record.outputs):
        xin = _first_tensor(a, k)
        if not isinstance(out, torch.Tensor):
            raise ConversionError(path, module, f"it returns {type(out).__name__}, not one tensor")
        pairs.append((tuple(xin.shape[2:]), tuple(out.shape[2:])))
    resampling = [p for p in pairs if p[0] != p[1]]
    if resampling and len(set(pairs)) > 1:
        raise ConversionError(path, module, f"it changes the resolution and is called with different sizes "
                              f"{sorted(set(pairs))}; one node has one output size -- give each call its own layer")
    return LayerContext(path=path, input_shape=tuple(x.shape), output_spatial=pairs[0][1] if resampling else None)


def convert_layers(model: nn.Module, example_inputs: tuple, *, layer_rtol: float = 1e-5):
    """Convert and swap every recognized layer of `model` in place.

    Returns (model, reference output of the unmodified model, [ConvertedLayer]); the model returned
    is `model` itself unless the root module was the spectral layer. Raises ConversionError.
    """
    candidates = find_candidates(model)
    reference, calls = run_and_record(model, example_inputs, candidates)
    converted = []
    for path, module, family, convert in candidates:
        record = calls[path]
        if not record.inputs:
            continue  # never called on the example input: not part of the exported graph
        ctx = _context(path, module, record)
        try:
            new = convert(module, ctx)
        except ExportError:
            raise
        except (ValueError, TypeError, NotImplementedError, AttributeError, RuntimeError) as err:
            raise ConversionError(path, module, str(err)) from err
        if not isinstance(new, nn.Module):
            raise ConversionError(path, module, f"converter {family} returned {type(new).__name__}, not an nn.Module")
        worst = 0.0
        with torch.no_grad():
            for (args, kwargs), expected in zip(record.inputs, record.outputs):
                try:
                    got = new(*args, **kwargs)
                except (ValueError, RuntimeError, TypeError) as err:
                    raise ConversionError(path, module, f"converted layer failed on the recorded input: {err}") from err
                if tuple(got.shape) != tuple(expected.shape):
                    why = ""
                    if ctx.resamples:
                        why = (f"; the original changes the resolution {ctx.spatial_shape} -> "
                               f"{ctx.output_spatial_shape} and the '{family}' converter does not (a converter "
                               "expresses that with TurboSpectralConv(..., output_size=ctx.output_spatial_shape))")
                    raise ConversionError(path, module, f"converted layer returns shape {tuple(got.shape)}, "
                                          f"the original {tuple(expected.shape)}{why}")
                worst = max(worst, _rel_l2(got, expected))
        if not worst <= layer_rtol:
            raise ConversionError(path, module, f"converted layer does not reproduce the original forward "
                                  f"(relative L2 error {worst:.3g} > {layer_rtol:g}); its forward differs from what "
                                  f"the '{family}' converter assumes -- register a converter for this class")
        model = _replace(model, path, new)
        info = new if isinstance(new, TurboSpectralConv) else None
        converted.append(ConvertedLayer(
            path=path, source_class=class_name(module), family=family, input_shape=ctx.input_shape,
            modes_low=list(info.modes_low) if info else [], modes_high=list(info.modes_high) if info else [],
            norm=info.norm if info else -1, separable=info.separable if info else 0,
            bias=(info.bias is not None) if info else False, layer_rel_err=worst, calls=len(record.inputs),
            output_size=list(info.output_size) if info is not None and info.output_size is not None else None,
            fixed_size_reason=getattr(new, "fixed_size_reason", "")))
    return model, reference, converted


def _replace(model: nn.Module, path: str, new: nn.Module) -> nn.Module:
    if not path:
        return new  # the model is itself one spectral layer
    parent_path, _, name = path.rpartition(".")
    parent = model.get_submodule(parent_path) if parent_path else model
    setattr(parent, name, new)
    return model
