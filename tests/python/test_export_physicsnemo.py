"""NVIDIA PhysicsNeMo SpectralConv1d/2d/3d -> ONNX -> ORT, against PyTorch.

Uses the real layer code of the installed `nvidia-physicsnemo` wheel. The package's __init__ needs
`warp-lang` (a large binary wheel that is not installed here), so the one file that defines the
layers, physicsnemo/nn/module/spectral_layers.py (needs only torch, numpy, jaxtyping), is loaded
directly under its real module name."""
from __future__ import annotations

import importlib.util
import sys

import pytest
import torch
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


@pytest.fixture(scope="module")
def pn():
    return _load_layers()


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
    torch.manual_seed(sum(shape))
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
