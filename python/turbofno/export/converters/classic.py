"""Classic FNO layers (Li et al. 2020, `fourier_neural_operator` repo): SpectralConv1d/2d/3d.

Recognized by structure, whatever the class is called: integer attributes modes1..modes_d and
complex weight blocks weights1..weights_{2^(d-1)} of shape [Cin, Cout, modes1..modes_d] (real
[..., 2] blocks are accepted too). The forward is assumed to be the classic one (corner blocks
written by slice assignment, later blocks win on overlap, no bias); the exporter checks every
converted layer against the original module on the example input, so a layer that only looks
classic fails loudly instead of being exported wrong.
"""
from __future__ import annotations

from turbofno.export.converters import _corners


def matches(module) -> bool:
    return _corners.find_rank(module) is not None


def convert(module, ctx):
    return _corners.convert_corners(module, ctx, combine="overwrite")
