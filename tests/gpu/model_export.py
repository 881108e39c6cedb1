"""A model of bench/configs/model_bench.json exported statically at one batch size (fused by default),
for the GPU scripts that look at a whole model's kernels (kernel_profile_model.py, ort_profile_model.py,
ort_run_model.py)."""
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from model_bench import build, find_spec  # noqa: E402
from turbofno.export import export  # noqa: E402


def export_static(name, batch, fuse=True, folder=None):
    """(PyTorch model, random input of that batch, path of the ONNX file in `folder` or a new temp folder)."""
    model, shape = build(find_spec(name))
    x = torch.randn(batch, *shape)
    path = Path(folder or tempfile.mkdtemp()) / "m.onnx"
    export(model, x, path, dynamic_batch=False, dynamic_spatial=False, validate=False, fuse=bool(fuse), verbose=False)
    return model, x, path
