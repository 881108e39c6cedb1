"""neuraloperator 2.0 `neuralop.layers.spectral_convolution.SpectralConv` (used by FNO, TFNO, UNO...).

What its forward does (neuralop 2.0.0), and how it maps onto the op:

- `rfftn(x, norm=fft_norm)` over the d spatial axes, then `fftshift` on all axes but the last
  (only when d > 1), so frequency 0 sits at index S_j//2.
- The weight is `[Cin, Cout, *max_n_modes]` (separable: `[C, *max_n_modes]`), possibly a
  tensorly-torch factorized tensor (Dense/Tucker/CP/TT). It is first cut down to the current
  `n_modes` (and to the input's spectrum size) by `starts = max_n_modes - min(fft_size, n_modes)`:
  the centre of the non-last axes is kept, the first entries of the last axis.
- Along a non-last axis with K kept weight entries, the window is the K spectrum entries around
  the centre: frequencies -(K//2) .. ceil(K/2)-1, with weight entry i at frequency i - K//2. In the
  op's layout that is p = ceil(K/2), q = floor(K/2), and the weight is un-shifted by
  `ifftshift` (entry m of ours = entry (m + K//2) mod K of theirs).
- Along the last axis the first K entries: p = K, q = 0.
- bias `[Cout, 1, .., 1]` is added after `irfftn(s=mode_sizes)`, where mode_sizes is the input size,
  or `output_shape` / `round(S * resolution_scaling_factor)` (UNO, resampling layers). The spectrum
  stays in the input's layout and torch cuts or zero-pads it at the end of each axis: exactly the
  op's `output_size` semantics (docs/op.md), so such a layer is one node with `output_size`. Its skip
  path (`transform`) is resampled by neuralop's `resample` (F.interpolate for d = 1, 2), reproduced by
  `NeuralopTurboSpectralConv.transform`.

Odd input sizes on a non-last axis (d > 1) are rejected: neuralop 2.0.0 undoes the fftshift with a
second `fftshift` (not `ifftshift`), which for odd S_j puts every output frequency one bin off;
the result is not a spectral convolution.

Also not expressible, and rejected: complex_data, fno_block_precision other than "full", windows
wider than the spectrum, and 3D resampling layers (their skip paths use an FFT interpolation).
"""
from __future__ import annotations

import torch

from turbofno.export.module import TurboSpectralConv

_NORMS = ("backward", "forward", "ortho")


class NeuralopTurboSpectralConv(TurboSpectralConv):
    """A converted neuraloperator SpectralConv: the node, plus neuralop's skip-path `transform`."""

    def transform(self, x: torch.Tensor, output_shape=None) -> torch.Tensor:
        self._check_output_shape(x, output_shape)
        out_shape = self.output_spatial(x)
        if out_shape == list(x.shape[2:]):
            return x
        from neuralop.layers.resample import resample  # what neuralop's own transform calls

        return resample(x, 1.0, list(range(2, x.ndim)), output_shape=out_shape)


def _is_neuralop_spectral_conv(cls) -> bool:
    return cls.__module__ == "neuralop.layers.spectral_convolution" and cls.__name__ == "SpectralConv"


def matches(module) -> bool:
    return any(_is_neuralop_spectral_conv(cls) for cls in type(module).__mro__)


def _dense_weight(module) -> torch.Tensor:
    """The full complex weight, reconstructing tensorly-torch factorized tensors."""
    w = module.weight
    if not torch.is_tensor(w):
        if not hasattr(w, "to_tensor"):
            raise ValueError(f"weight of type {type(w).__name__} is neither a tensor nor a factorized tensor")
        w = w.to_tensor()
    w = w.detach()
    if not w.is_complex():
        raise ValueError(f"expected a complex weight, got {w.dtype}")
    return w.to(torch.complex128)


def _window(module, weight: torch.Tensor, spatial: list[int]) -> torch.Tensor:
    """The weight slice neuralop's forward uses for an input of this spatial size (same arithmetic)."""
    fft_size = list(spatial)
    fft_size[-1] = fft_size[-1] // 2 + 1
    starts = [max_modes - min(size, n_mode)
              for size, n_mode, max_modes in zip(fft_size, module.n_modes, module.max_n_modes)]
    slices = [slice(None)] if module.separable else [slice(None), slice(None)]
    slices += [slice(start // 2, -start // 2) if start else slice(start, None) for start in starts[:-1]]
    slices += [slice(None, -starts[-1]) if starts[-1] else slice(None)]
    return weight[tuple(slices)]


def convert(module, ctx) -> TurboSpectralConv:
    if getattr(module, "complex_data", False):
        raise ValueError("complex_data=True (complex-valued fields); the op is real-to-real")
    precision = getattr(module, "fno_block_precision", "full")
    if precision != "full":
        raise ValueError(f"fno_block_precision={precision!r}; only 'full' is supported (export in float32)")
    norm = module.fft_norm
    if norm not in _NORMS:
        raise ValueError(f"fft_norm={norm!r} is not one of {_NORMS}")

    d = module.order
    spatial = list(ctx.spatial_shape)
    if len(spatial) != d:
        raise ValueError(f"layer has {d} spatial axes but its input has shape {ctx.input_shape}")
    odd = [j for j, s in enumerate(spatial[:-1]) if s % 2]
    if d > 1 and odd:
        raise ValueError(
            f"input spatial size {spatial} is odd on axis {odd}: neuraloperator 2.0 undoes its fftshift with "
            "a second fftshift (not ifftshift), which moves the output spectrum by one frequency on odd-sized "
            "non-last axes; that is not a spectral convolution the op can express. Export at an even size on "
            "all axes but the last (odd mode counts and an odd last axis are fine)")
    if d == 3 and ctx.resamples:
        raise ValueError(
            f"it changes the resolution {list(ctx.spatial_shape)} -> {list(ctx.output_spatial_shape)} in 3D, where "
            "neuraloperator resamples the skip paths with an FFT interpolation (neuralop.layers.resample) that "
            "re-anchors both spectrum corners at the output's ends: not the op's output_size semantics, so that "
            "part cannot be exported. Export 3D models without resolution scaling (1D/2D UNO export, their skip "
            "paths use F.interpolate)")
    weight = _window(module, _dense_weight(module), spatial)
    fft_size = spatial[:-1] + [spatial[-1] // 2 + 1]
    clipped = [j for j, (n, f) in enumerate(zip(module.n_modes, fft_size)) if n > f]
    if module.separable:
        weight = weight.unsqueeze(1)                       # [C, 1, K_1..K_d]
    kept = list(weight.shape[2:])
    if len(kept) != d:
        raise ValueError(f"weight has {len(kept)} mode axes, expected {d}")
    for j, (k, s) in enumerate(zip(kept, spatial)):
        limit = s if j < d - 1 else s // 2 + 1
        if not 1 <= k <= limit:
            raise ValueError(f"axis {j}: {k} kept modes do not fit an input of size {s} (at most {limit})")
    lows = [k - k // 2 for k in kept[:-1]] + [kept[-1]]
    highs = [k // 2 for k in kept[:-1]] + [0]
    if d > 1:  # undo the fftshift-centred order on the non-last axes
        weight = torch.fft.ifftshift(weight, dim=list(range(2, 1 + d)))
    bias = None
    if module.bias is not None:
        bias = module.bias.detach().to(torch.float32).reshape(-1)
    new = NeuralopTurboSpectralConv(torch.view_as_real(weight.contiguous()).to(torch.float32), bias, lows, highs,
                                    norm=norm, separable=bool(module.separable),
                                    source=f"{type(module).__module__}.{type(module).__qualname__}",
                                    output_size=list(ctx.output_spatial_shape) if ctx.resamples else None)
    if clipped:
        new.fixed_size_reason = (f"its n_modes {list(module.n_modes)} exceed the example's spectrum {fft_size} on "
                                 f"axes {clipped}, so neuraloperator keeps more modes at larger sizes")
    return new
