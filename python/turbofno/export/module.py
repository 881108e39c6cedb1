"""`TurboSpectralConv`: the nn.Module that replaces a recognized spectral convolution.

It holds its weight already in the op layout (docs/op.md: `[Cin, Cout, K_1..K_d, 2]`, low modes
first on every axis) and calls `torch.ops.turbofno.spectral_conv`, so `torch.onnx` emits exactly
one `ai.turbofno::SpectralConv` node per layer with the weight and bias as initializers.
"""
from __future__ import annotations

from typing import Optional, Sequence

import torch
from torch import nn

from turbofno.export import torch_op  # registers torch.ops.turbofno.spectral_conv


class TurboSpectralConv(nn.Module):
    """One SpectralConv node. `weight`: real `[Cin, Cout|1, K_1..K_d, 2]`; `bias`: `[Cout]` or None.

    `output_size` (optional, d ints): the output's spatial size, for layers that end in
    `irfftn(Y, s=output_size)` (resolution scaling); None keeps the input's size (docs/op.md).
    """

    def __init__(self, weight: torch.Tensor, bias: Optional[torch.Tensor], modes_low: Sequence[int],
                 modes_high: Sequence[int], norm: str | None = "backward", separable: bool = False,
                 source: str = "", output_size: Optional[Sequence[int]] = None):
        super().__init__()
        d = len(modes_low)
        if weight.dim() != d + 3 or weight.shape[-1] != 2 or weight.is_complex():
            raise ValueError(f"weight must be real [Cin, Cout, K_1..K_{d}, 2], got {tuple(weight.shape)} {weight.dtype}")
        kept = [p + q for p, q in zip(modes_low, modes_high)]
        if list(weight.shape[2:-1]) != kept:
            raise ValueError(f"weight mode dims {list(weight.shape[2:-1])} do not match modes_low + modes_high = {kept}")
        self.weight = nn.Parameter(weight.detach().clone().contiguous(), requires_grad=False)
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone().reshape(-1).contiguous(), requires_grad=False)
        self.modes_low = [int(v) for v in modes_low]
        self.modes_high = [int(v) for v in modes_high]
        self.norm = torch_op.norm_code(norm)
        self.separable = int(bool(separable))
        self.output_size = None if output_size is None else [int(v) for v in output_size]
        if self.output_size is not None and (len(self.output_size) != d or min(self.output_size) < 1):
            raise ValueError(f"output_size must have {d} entries >= 1, got {list(output_size)}")
        self.source = source  # class of the layer this replaced, for reports
        # Set by a converter when the original layer's kept modes depend on the input size: the node is
        # then right only at the example's size, so the exporter keeps the spatial axes static.
        self.fixed_size_reason = ""

    @property
    def in_channels(self) -> int:
        return self.weight.shape[0]

    @property
    def out_channels(self) -> int:
        return self.weight.shape[0] if self.separable else self.weight.shape[1]

    def output_spatial(self, x: torch.Tensor) -> list:
        """The spatial size this layer outputs for input `x`."""
        return list(x.shape[2:]) if self.output_size is None else list(self.output_size)

    def _check_output_shape(self, x: torch.Tensor, output_shape: Optional[Sequence[int]]) -> None:
        # `output_shape` mirrors neuraloperator's call signature; the node's output size is fixed.
        if output_shape is not None and [int(v) for v in output_shape] != self.output_spatial(x):
            raise ValueError(f"this converted layer outputs spatial size {self.output_spatial(x)} "
                             f"(fixed when it was converted), but the call asks for {list(output_shape)}")

    def forward(self, x: torch.Tensor, output_shape: Optional[Sequence[int]] = None) -> torch.Tensor:
        self._check_output_shape(x, output_shape)
        return torch.ops.turbofno.spectral_conv(x, self.weight, self.bias, self.modes_low, self.modes_high,
                                                self.norm, self.separable, self.output_size)

    def transform(self, x: torch.Tensor, output_shape: Optional[Sequence[int]] = None) -> torch.Tensor:
        """Skip-path transform used by neuraloperator's FNOBlocks: identity (no resampling)."""
        self._check_output_shape(x, output_shape)
        if self.output_size is not None and self.output_size != list(x.shape[2:]):
            raise ValueError("TurboSpectralConv.transform cannot resample a skip path; the neuraloperator "
                             "converter's subclass does")
        return x

    def extra_repr(self) -> str:
        out = "" if self.output_size is None else f", output_size={self.output_size}"
        return (f"in={self.in_channels}, out={self.out_channels}, modes_low={self.modes_low}, "
                f"modes_high={self.modes_high}, norm={self.norm}, separable={self.separable}{out}, "
                f"bias={self.bias is not None}, replaces={self.source or '?'}")
