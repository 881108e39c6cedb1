"""Converter registry: which function turns which spectral layer into a `TurboSpectralConv`.

A converter is `fn(module, ctx) -> TurboSpectralConv`, where `ctx` is a `LayerContext` (the
module's path and the input shape it saw on the example input). It raises `ValueError` (or
`ConversionError`) with a reason when the layer uses something the op cannot express; the
exporter turns that into an error naming the module path and class.

Lookup order: converters registered with `register_converter` (most-derived class first), then
the built-in families: TurboSpectralConv itself (kept as is), neuraloperator, PhysicsNeMo, classic
FNO (recognized by structure).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from torch import nn

from turbofno.export.converters import classic, neuraloperator, physicsnemo
from turbofno.export.module import TurboSpectralConv


@dataclass(frozen=True)
class LayerContext:
    path: str                       # dotted module path inside the model ("fno_blocks.convs.0")
    input_shape: tuple[int, ...]    # [N, C, S_1..S_d] of the layer's input on the example input
    output_spatial: Optional[tuple[int, ...]] = None   # [T_1..T_d] of its output; None: same as input

    @property
    def spatial_shape(self) -> tuple[int, ...]:
        return tuple(self.input_shape[2:])

    @property
    def output_spatial_shape(self) -> tuple[int, ...]:
        return self.spatial_shape if self.output_spatial is None else tuple(self.output_spatial)

    @property
    def resamples(self) -> bool:
        """True when the layer's output spatial size differs from its input's (resolution scaling)."""
        return self.output_spatial_shape != self.spatial_shape


Converter = Callable[[nn.Module, LayerContext], nn.Module]

_USER: dict[type, Converter] = {}

# (family name, predicate, converter), tried in order after the user registry
_BUILTIN = [
    ("turbofno", lambda m: isinstance(m, TurboSpectralConv), lambda m, ctx: m),  # already converted
    ("neuraloperator", neuraloperator.matches, neuraloperator.convert),
    ("physicsnemo", physicsnemo.matches, physicsnemo.convert),
    ("classic", classic.matches, classic.convert),
]


def register_converter(module_class: type, fn: Converter) -> None:
    """Convert every instance of `module_class` (and its subclasses) with `fn(module, ctx)`.

    Registering a class again replaces its converter; user converters take precedence over the
    built-in ones, so this also overrides how a built-in family is converted.
    """
    if not isinstance(module_class, type) or not issubclass(module_class, nn.Module):
        raise TypeError(f"register_converter needs an nn.Module subclass, got {module_class!r}")
    if not callable(fn):
        raise TypeError(f"converter for {module_class.__name__} must be callable, got {fn!r}")
    _USER[module_class] = fn


def unregister_converter(module_class: type) -> None:
    _USER.pop(module_class, None)


def find_converter(module: nn.Module) -> Optional[tuple[str, Converter]]:
    """(family name, converter) for `module`, or None when no converter recognizes it."""
    for cls in type(module).__mro__:
        if cls in _USER:
            return f"user:{cls.__qualname__}", _USER[cls]
    for name, matches, convert in _BUILTIN:
        if matches(module):
            return name, convert
    return None
