"""Helpers for the exporter tests (tests/python/test_export_*.py)."""
from __future__ import annotations

import numpy as np

import seeding
import onnx
import torch

from turbofno import _op

TOL = 1e-5  # relative L2, ORT (fp32) vs PyTorch (fp32), per issue 4


def rel_l2(got, ref) -> float:
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, f"shape {got.shape} != reference {ref.shape}"
    return float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-300))


def run_ort(path, *inputs: np.ndarray) -> list[np.ndarray]:
    """Run an exported file in ORT (CPU, our library), independently of the exporter's own check."""
    import onnxruntime as ort

    import turbofno

    opts = ort.SessionOptions()
    opts.register_custom_ops_library(turbofno.get_library_path("ort"))
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, dict(zip(names, inputs)))


def spectral_nodes(path) -> list[onnx.NodeProto]:
    model = onnx.load(str(path))
    return [n for n in model.graph.node if n.op_type == _op.OP_TYPE and n.domain == _op.DOMAIN]


def attrs(node: onnx.NodeProto) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def export_and_check(model: torch.nn.Module, x: torch.Tensor, path, n_spectral: int, **kw):
    """Export, then check in ORT at the example batch and at another batch against the PyTorch model."""
    from turbofno.export import export

    model = model.eval()
    report = export(model, x, path, verbose=False, rtol=TOL, **kw)
    assert report.spectral_nodes == n_spectral, report.summary()
    assert len(spectral_nodes(path)) == n_spectral
    assert report.validation is not None and report.validation.rel_l2_err <= TOL, report.summary()
    # independent ORT run on a fresh input with a different batch size (dynamic batch)
    g = torch.Generator().manual_seed(seeding.torch_seed(1234))
    x2 = torch.randn((x.shape[0] + 2, *x.shape[1:]), generator=g)
    with torch.no_grad():
        ref = model(x2)
    got = run_ort(path, x2.numpy())[0]
    err = rel_l2(got, ref.numpy())
    assert err <= TOL, f"ORT vs PyTorch at batch {x2.shape[0]}: rel L2 {err:.3g}"
    return report
