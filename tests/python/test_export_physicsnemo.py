"""NVIDIA PhysicsNeMo SpectralConv1d/2d/3d -> ONNX -> ORT, against PyTorch.

Two sources of the layers, each test runs with both:
- "installed": the real code of the installed `nvidia-physicsnemo` (2.2.2) wheel. Its package
  __init__ needs `warp-lang` (a large binary wheel, not installed), so the one file defining the
  layers, physicsnemo/nn/module/spectral_layers.py (needs torch, numpy, jaxtyping), is loaded
  directly under its real module name. Skipped, with the reason, when not installed.
- "reimplementation": our own faithful copy of those layers (below), so CI covers the family even
  without the wheel."""
from __future__ import annotations

import seeding

import importlib.util
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from export_util import export_and_check
from turbofno.export import ConversionError, export

_NAME = "physicsnemo.nn.module.spectral_layers"


def _load_layers():
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    spec = importlib.util.find_spec("physicsnemo")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("nvidia-physicsnemo is not installed")
    path = f"{spec.submodule_search_locations[0]}/nn/module/spectral_layers.py"
    if importlib.util.find_spec("jaxtyping") is None:
        pytest.skip("jaxtyping (needed by physicsnemo's spectral_layers.py) is not installed")
    file_spec = importlib.util.spec_from_file_location(_NAME, path)
    module = importlib.util.module_from_spec(file_spec)
    file_spec.loader.exec_module(module)
    sys.modules[_NAME] = module
    return module


class _Reimpl:
    """PhysicsNeMo 2.2.2's SpectralConv1d/2d/3d/4d forward: real [..., 2] weights, corners accumulated."""

    class _Base(nn.Module):
        def __init__(self, cin, cout, *modes):
            super().__init__()
            self.in_channels, self.out_channels = cin, cout
            for j, m in enumerate(modes):
                setattr(self, f"modes{j + 1}", m)
            for b in range(2 ** (len(modes) - 1)):
                setattr(self, f"weights{b + 1}",
                        nn.Parameter(torch.rand(cin, cout, *modes, 2) / (cin * cout)))

        def forward(self, x):
            d = sum(hasattr(self, f"modes{j}") for j in range(1, 5))
            modes = [getattr(self, f"modes{j + 1}") for j in range(d)]
            x_ft = torch.fft.rfftn(x, dim=tuple(range(-d, 0)))
            sizes = x_ft.shape[2:]
            out = torch.zeros(x.shape[0], self.out_channels, *sizes, dtype=torch.cfloat)
            letters = "xyzw"[:d]
            for b in range(2 ** (d - 1)):
                high = [(b >> j) & 1 for j in range(d - 1)] + [0]   # axis 1 varies fastest
                idx = tuple(slice(-m, None) if h else slice(None, m) for m, h in zip(modes, high))
                w = torch.view_as_complex(getattr(self, f"weights{b + 1}"))
                block = torch.einsum(f"bi{letters},io{letters}->bo{letters}",
                                     x_ft[(slice(None), slice(None), *idx)].contiguous(), w)
                pad = []
                for m, h, s in reversed(list(zip(modes, high, sizes))):  # F.pad: last axis first
                    pad += [s - m, 0] if h else [0, s - m]
                out = out + F.pad(block, pad)
            return torch.fft.irfftn(out, s=x.shape[2:], dim=tuple(range(-d, 0)))

    SpectralConv1d = type("SpectralConv1d", (_Base,), {"__module__": _NAME})
    SpectralConv2d = type("SpectralConv2d", (_Base,), {"__module__": _NAME})
    SpectralConv3d = type("SpectralConv3d", (_Base,), {"__module__": _NAME})
    SpectralConv4d = type("SpectralConv4d", (_Base,), {"__module__": _NAME})


@pytest.fixture(scope="module", params=["installed", "reimplementation"])
def pn(request):
    return _load_layers() if request.param == "installed" else _Reimpl


def test_reimplementation_matches_installed():
    real = _load_layers()
    torch.manual_seed(seeding.torch_seed(0))
    for cls, modes, shape in [("SpectralConv1d", (5,), (2, 3, 12)), ("SpectralConv2d", (5, 3), (2, 3, 9, 6)),
                              ("SpectralConv3d", (3, 4, 2), (1, 3, 6, 7, 5))]:
        a = getattr(real, cls)(3, 3, *modes)
        b = getattr(_Reimpl, cls)(3, 3, *modes)
        b.load_state_dict(a.state_dict())
        x = torch.randn(shape)
        with torch.no_grad():
            assert torch.allclose(a(x), b(x), rtol=1e-5, atol=1e-6), cls


class Block(nn.Module):
    """One PhysicsNeMo-style FNO layer: spectral conv + pointwise conv skip, activation, projection."""

    def __init__(self, spectral, d, cin, width):
        super().__init__()
        conv = (nn.Conv1d, nn.Conv2d, nn.Conv3d)[d - 1]
        self.lift = conv(cin, width, 1)
        self.spec = spectral
        self.skip = conv(width, width, 1)
        self.proj = conv(width, 1, 1)

    def forward(self, x):
        x = self.lift(x)
        return self.proj(torch.nn.functional.gelu(self.spec(x) + self.skip(x)))


CASES = [  # (id, class name, constructor args after (width, width), input shape)
    ("1d", "SpectralConv1d", (7,), (2, 2, 23)),
    ("1d-nyquist", "SpectralConv1d", (9,), (1, 1, 16)),
    ("2d", "SpectralConv2d", (4, 5), (1, 3, 12, 11)),
    ("2d-overlap-odd", "SpectralConv2d", (5, 3), (2, 1, 9, 6)),     # 2*5 > 9: corners add up
    ("3d", "SpectralConv3d", (3, 2, 3), (1, 2, 8, 7, 6)),
    ("3d-overlap", "SpectralConv3d", (3, 4, 2), (1, 1, 6, 7, 5)),
]


@pytest.mark.parametrize("cls,modes,shape", [pytest.param(c, m, s, id=i) for i, c, m, s in CASES])
def test_physicsnemo_layer(tmp_path, pn, cls, modes, shape):
    torch.manual_seed(seeding.torch_seed(sum(shape)))
    width = 4
    spectral = getattr(pn, cls)(width, width, *modes)
    model = Block(spectral, len(modes), shape[1], width)
    report = export_and_check(model, torch.randn(shape), tmp_path / "m.onnx", n_spectral=1)
    (layer,) = report.converted
    assert layer.family == "physicsnemo" and layer.path == "spec" and not layer.bias


def test_physicsnemo_4d_is_rejected(tmp_path, pn):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.spec = pn.SpectralConv4d(1, 1, 2, 2, 2, 2)

        def forward(self, x):
            return self.spec(x)

    with pytest.raises(ConversionError, match=r"'spec'.*SpectralConv4d.*4 spatial dimensions"):
        export(Net(), torch.randn(1, 1, 4, 4, 4, 4), tmp_path / "m.onnx", verbose=False)
