"""NVIDIA PhysicsNeMo (2.x) `physicsnemo.nn.module.spectral_layers.SpectralConv1d/2d/3d`.

Real weights `weights1..weights_{2^(d-1)}` of shape [Cin, Cout, modes1..modes_d, 2]; rfftn with the
default (backward) norm, no bias; the corner blocks are accumulated (`out_ft + F.pad(...)`), so
overlapping corners add up. SpectralConv4d has four spatial axes, which the op does not support.
"""
from __future__ import annotations

from turbofno.export.converters import _corners

_CLASSES = {"SpectralConv1d", "SpectralConv2d", "SpectralConv3d", "SpectralConv4d"}


def _is_physicsnemo(module) -> bool:
    return any(cls.__module__.split(".")[0] in ("physicsnemo", "modulus") and cls.__name__ in _CLASSES
               for cls in type(module).__mro__)


def matches(module) -> bool:
    return _is_physicsnemo(module)


def convert(module, ctx):
    if _corners.find_rank(module) is None:
        if isinstance(getattr(module, "modes4", None), int):
            raise ValueError("4 spatial dimensions; the SpectralConv op supports 1 to 3")
        raise ValueError("unexpected attributes for a PhysicsNeMo spectral layer (needs modes1.. and weights1..)")
    return _corners.convert_corners(module, ctx, combine="add")
