"""Symbolic spatial sizes: prepare a converted model so that torch.export keeps its spatial axes free.

torch.export specializes an axis as soon as the model computes with its size as a Python number
(caches keyed by the resolution, `round(fraction * size)`, `if size == ...`). The modules known to do
that are replaced here by equivalents that compute the same values from the input's shape inside the
graph (docs/exporter.md, "Dynamic spatial sizes"):

- neuraloperator `GridEmbeddingND` / `GridEmbedding2D` (positional grid, cached per resolution):
  the same `regular_grid_*` function, recomputed on every call;
- neuraloperator `DomainPadding` (`round(fraction * S)` per axis, cached per resolution): the same
  rounding (Python's round-half-even) in integer arithmetic on the symbolic size. A fraction whose
  integer form does not reproduce Python's `round` for every S <= 8192 is refused (static export).

`prepare` raises `DynamicUnsupported` with the reason when a module cannot be made size-free.
"""
from __future__ import annotations

from fractions import Fraction

import torch
from torch import nn

MAX_CHECKED_SIZE = 8192   # DomainPadding: the integer rounding is checked against round() up to here


class DynamicUnsupported(Exception):
    """A module of the model cannot be traced with symbolic spatial sizes (message: path, class, why)."""


def _cls(m) -> str:
    return f"{type(m).__module__}.{type(m).__qualname__}"


def _is(module, qualname: str) -> bool:
    return any(f"{c.__module__}.{c.__qualname__}" == qualname for c in type(module).__mro__)


# --- positional grids --------------------------------------------------------------------------------

class DynamicGridEmbedding(nn.Module):
    """neuraloperator's grid embedding without its per-resolution cache (same grid function)."""

    def __init__(self, original: nn.Module, two_d: bool):
        super().__init__()
        self.grid_boundaries = original.grid_boundaries
        self.in_channels = original.in_channels
        self.dim = 2 if two_d else original.dim
        self.two_d = two_d

    @property
    def out_channels(self):
        return self.in_channels + self.dim

    def forward(self, data, batched=True):
        from neuralop.layers import embeddings

        if not batched and data.ndim == self.dim + 1:
            data = data.unsqueeze(0)
        n = data.shape[0]
        if self.two_d:
            grids = embeddings.regular_grid_2d(data.shape[-2:], grid_boundaries=self.grid_boundaries)
        else:
            grids = embeddings.regular_grid_nd(data.shape[2:], grid_boundaries=self.grid_boundaries)
        grids = [g.to(data.device).to(data.dtype).unsqueeze(0).unsqueeze(0) for g in grids]
        out = torch.cat((data, *[g.expand(n, *([-1] * (g.dim() - 1))) for g in grids]), dim=1)
        if not batched and n == 1:
            return out.squeeze(0)
        return out


# --- domain padding ----------------------------------------------------------------------------------

def _round_half_even(num, den: int):
    """round(num / den) like Python's round (ties to even), num a (symbolic) int >= 0, den > 0, branch-free.

    Written as `half_down + Max(0, odd - r)`: two sympy atoms, each >= 0 by its value range. torch's
    symbolic shapes can then prove, without hints, that the unpadding slice lies within the padded axis
    (start p >= 0, padded size - 2p == size, whatever sympy form a reshape gave the padded size). A
    bound it cannot prove makes the slice's size data-dependent: torch.onnx (2.11) decomposes the
    graph with backed_size_oblivious and then fails ("Could not guard on data-dependent expression").
    """
    t = 2 * num + den
    half_down = (t - 1) // (2 * den)
    r = t % (2 * den)             # 0 exactly on a tie
    # on a tie (r == 0) an odd half_down goes up to the even neighbour: + max(0, 1 - 0); else + 0 (r >= 1)
    return half_down + torch.sym_max(0, half_down % 2 - r)


def padding_fraction(p: float, path: str, module) -> Fraction:
    """p as a small fraction whose integer rounding equals Python's round(p * S) for every S checked."""
    frac = Fraction(float(p)).limit_denominator(1 << 20)
    if frac < 0:
        raise DynamicUnsupported(f"module '{path}' ({_cls(module)}): negative domain padding {p}")
    for s in range(1, MAX_CHECKED_SIZE + 1):
        if _round_half_even(frac.numerator * s, frac.denominator) != round(float(p) * s):
            raise DynamicUnsupported(
                f"module '{path}' ({_cls(module)}): domain padding fraction {p!r} cannot be reproduced with "
                f"integer arithmetic on the size (differs at S = {s})")
    return frac


class DynamicDomainPadding(nn.Module):
    """neuraloperator's DomainPadding (symmetric, resolution scaling 1) with sizes computed in the graph."""

    def __init__(self, original: nn.Module, path: str):
        super().__init__()
        scaling = getattr(original, "resolution_scaling_factor", 1)
        flat = scaling if isinstance(scaling, (list, tuple)) else [scaling]
        flat = [v for s in flat for v in (s if isinstance(s, (list, tuple)) else [s])]
        if any(float(v) != 1.0 for v in flat):
            raise DynamicUnsupported(f"module '{path}' ({_cls(original)}): domain padding with resolution scaling "
                                     f"{scaling} (the padded size depends on the scaled size)")
        mode = getattr(original, "padding_mode", "symmetric")
        if mode not in (None, "symmetric"):
            raise DynamicUnsupported(f"module '{path}' ({_cls(original)}): padding_mode {mode!r}")
        fracs = original.domain_padding
        self.fractions = [padding_fraction(p, path, original) for p in (fracs if isinstance(fracs, (list, tuple))
                                                                        else [fracs])]
        self.path = path

    def _amounts(self, sizes):
        fr = self.fractions * len(sizes) if len(self.fractions) == 1 else self.fractions
        if len(fr) != len(sizes):
            raise ValueError(f"domain padding has {len(fr)} fractions for {len(sizes)} spatial axes")
        return [_round_half_even(f.numerator * s, f.denominator) for f, s in zip(fr, sizes)]

    def pad(self, x, verbose=False):
        amounts = self._amounts(list(x.shape[2:]))
        self._last = amounts
        pads = [v for p in reversed(amounts) for v in (p, p)]   # F.pad: last axis first
        return nn.functional.pad(x, pads, mode="constant")

    def unpad(self, x):
        sizes = list(x.shape[2:])
        amounts = self._last
        index = (Ellipsis,) + tuple(slice(p, s - p) for p, s in zip(amounts, sizes))
        return x[index]

    def forward(self, x):
        return self.pad(x)


# --- entry point -------------------------------------------------------------------------------------

def prepare(model: nn.Module) -> tuple[nn.Module, list[str]]:
    """Replace the size-specializing modules of `model` (in place). Returns (model, descriptions)."""
    done = []
    for path, module in list(model.named_modules()):
        if _is(module, "neuralop.layers.embeddings.GridEmbeddingND"):
            new = DynamicGridEmbedding(module, two_d=False)
        elif _is(module, "neuralop.layers.embeddings.GridEmbedding2D"):
            new = DynamicGridEmbedding(module, two_d=True)
        elif _is(module, "neuralop.layers.padding.DomainPadding"):
            new = DynamicDomainPadding(module, path)
        else:
            continue
        if not path:
            raise DynamicUnsupported(f"the model itself is a {_cls(module)}")
        parent_path, _, name = path.rpartition(".")
        setattr(model.get_submodule(parent_path) if parent_path else model, name, new)
        done.append(f"{path} ({type(module).__name__})")
    return model, done
