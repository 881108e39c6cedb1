"""Shared by the classic FNO and PhysicsNeMo converters: corner weight blocks -> the op layout.

Those layers keep, on every axis but the last, the `m` lowest rows `[:m]` (frequencies 0..m-1) and
the `m` highest rows `[-m:]` (frequencies -m..-1), each with its own weight block, and the first
`m_d` columns of the one-sided last axis. Without overlap (2m <= S) that is exactly the op's
p = q = m. When the two blocks overlap (2m > S) the kept set is the whole axis: K = S, the weight
index is the frequency itself, and the overlapping rows get either the later block (slice
assignment, classic) or the sum of both (accumulation, PhysicsNeMo).
"""
from __future__ import annotations

import itertools
from typing import Sequence

import torch

from turbofno.export.module import TurboSpectralConv


def as_complex(weight: torch.Tensor, what: str) -> torch.Tensor:
    """A layer weight as complex128: complex tensors as is, real ones must end in a (re, im) dim of 2."""
    w = weight.detach()
    if w.is_complex():
        return w.to(torch.complex128)
    if w.shape[-1] != 2:
        raise ValueError(f"{what} is real with shape {tuple(w.shape)}; expected complex or a trailing (re, im) dim of 2")
    return torch.view_as_complex(w.to(torch.float64).contiguous())


def corner_layout(blocks: Sequence[torch.Tensor], corners: Sequence[Sequence[str]], modes: Sequence[int],
                  spatial: Sequence[int], combine: str):
    """Merge corner blocks into one op weight. Returns (weight [Cin,Cout,K..,2] float32, p, q).

    blocks[b]: complex [Cin, Cout, m_1..m_d]; corners[b][j] in {'low', 'high'} for axes j < d-1,
    applied in order; combine: 'overwrite' (later block wins) or 'add'.
    """
    d = len(modes)
    if len(spatial) != d:
        raise ValueError(f"layer has {d} spatial axes but its input has {len(spatial)}")
    lows, highs, kept = [], [], []
    for j, (m, s) in enumerate(zip(modes, spatial)):
        last = j == d - 1
        limit = s // 2 + 1 if last else s
        if m < 1 or m > limit:
            raise ValueError(f"axis {j}: {m} modes do not fit an input of size {s} (at most {limit})")
        if last:
            lows.append(m), highs.append(0), kept.append(m)
        elif 2 * m <= s:
            lows.append(m), highs.append(m), kept.append(2 * m)
        else:  # overlapping corners: keep the whole axis, weight index == frequency
            lows.append(m), highs.append(s - m), kept.append(s)
    cin, cout = blocks[0].shape[:2]
    merged = torch.zeros((cin, cout, *kept), dtype=torch.complex128)
    written = torch.zeros(kept, dtype=torch.bool)
    for block, corner in zip(blocks, corners):
        if tuple(block.shape) != (cin, cout, *modes):
            raise ValueError(f"weight block has shape {tuple(block.shape)}, expected {(cin, cout, *modes)}")
        index = tuple(slice(0, m) if j == d - 1 or corner[j] == "low" else slice(k - m, k)
                      for j, (m, k) in enumerate(zip(modes, kept)))
        if combine == "add":
            merged[(slice(None), slice(None), *index)] += block
        elif combine == "overwrite":
            merged[(slice(None), slice(None), *index)] = block
        else:
            raise ValueError(f"unknown combine mode {combine!r}")
        written[index] = True
    assert bool(written.all()), "corner blocks must cover every kept mode"
    return torch.view_as_real(merged).to(torch.float32), lows, highs


def corner_names(d: int) -> list[tuple[str, ...]]:
    """Corner of weights1..weights{2^(d-1)} in the classic/PhysicsNeMo order: axis 1 varies fastest."""
    return [tuple(reversed(c)) for c in itertools.product(("low", "high"), repeat=d - 1)]


def find_rank(module) -> int | None:
    """Spatial rank d of a corner-block layer from its attributes, or None if it is not one.

    Needs modes1..modes_d (ints) and exactly weights1..weights_{2^(d-1)} with shapes
    [Cin, Cout, modes1..modes_d] (complex) or [..., 2] (real)."""
    d = 0
    while isinstance(getattr(module, f"modes{d + 1}", None), int):
        d += 1
    if d not in (1, 2, 3):
        return None
    n_blocks = 2 ** (d - 1)
    modes = [getattr(module, f"modes{j + 1}") for j in range(d)]
    for b in range(1, n_blocks + 1):
        w = getattr(module, f"weights{b}", None)
        if not isinstance(w, torch.Tensor):
            return None
        shape = list(w.shape) if w.is_complex() else list(w.shape[:-1])
        if (not w.is_complex() and w.shape[-1] != 2) or len(shape) != d + 2 or shape[2:] != modes:
            return None
    if getattr(module, f"weights{n_blocks + 1}", None) is not None:
        return None
    return d


def convert_corners(module, ctx, combine: str) -> TurboSpectralConv:
    d = find_rank(module)
    if d is None:
        raise ValueError("not a corner-block spectral layer (needs modes1..modes_d and weights1..weights_2^(d-1))")
    modes = [getattr(module, f"modes{j + 1}") for j in range(d)]
    blocks = [as_complex(getattr(module, f"weights{b + 1}"), f"weights{b + 1}") for b in range(2 ** (d - 1))]
    weight, lows, highs = corner_layout(blocks, corner_names(d), modes, ctx.spatial_shape, combine)
    bias = getattr(module, "bias", None)
    if isinstance(bias, torch.Tensor):
        raise ValueError("has a `bias` tensor; the classic corner-block layer has none, so its forward is unknown")
    new = TurboSpectralConv(weight, None, lows, highs, norm="backward", separable=False,
                            source=f"{type(module).__module__}.{type(module).__qualname__}")
    spatial = list(ctx.spatial_shape)
    overlap = [j for j in range(d - 1) if 2 * modes[j] > spatial[j]]
    if overlap or modes[-1] > spatial[-1] // 2 + 1:
        new.fixed_size_reason = (f"its corner blocks overlap or are clipped at the example's size {spatial} "
                                 f"(modes {modes}), so the kept modes change with the input size")
    return new
