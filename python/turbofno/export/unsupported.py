"""Modules the exporter knows it cannot put into an ONNX file, each with the reason and the next step.

Checked before tracing, so that the user gets an explanation instead of torch.export's message about
a data-dependent guard deep inside the module.
"""
from __future__ import annotations

import torch
from torch import nn

from turbofno.export.errors import ExportError, class_name

_GNO_WHY = ("a graph neural operator block: its neighbour search (radius ball around each query point) returns "
            "a neighbour list whose length depends on the coordinate values, and the block branches on it "
            "(`if n_nbrs > 0`), so torch.export cannot trace it to a fixed graph (data-dependent shapes); "
            "ONNX has no radius-neighbour-search op either")
_GNO_NEXT = ("export the FNO part on its own (it converts to SpectralConv nodes), e.g. a module whose forward "
             "runs the model's lifting + fno_blocks on the regular grid (FNOGNO: model.latent_embedding(in_p, f) "
             "for a fixed in_p), and keep the GNO part in PyTorch (docs/exporter.md, 'FNOGNO and GINO')")

# class (module.qualname) -> (why, next step)
UNSUPPORTED = {
    "neuralop.layers.gno_block.GNOBlock": (_GNO_WHY, _GNO_NEXT),
    "neuralop.layers.integral_transform.IntegralTransform": (_GNO_WHY, _GNO_NEXT),
}


def _match(module):
    for cls in type(module).__mro__:
        hit = UNSUPPORTED.get(f"{cls.__module__}.{cls.__qualname__}")
        if hit:
            return hit
    return None


class _Called(Exception):
    def __init__(self, path, module, hit):
        super().__init__(path)
        self.path, self.module, self.hit = path, module, hit


def check(model: nn.Module, inputs: tuple) -> None:
    """Raise ExportError naming the first unsupported module the model calls on `inputs` (path, class),
    why, and what to do instead. Unsupported modules that are present but not called are fine."""
    found = [(path, m, hit) for path, m in model.named_modules() if (hit := _match(m)) is not None]
    if not found:
        return
    handles = []

    def stop(path, hit):
        def hook(module, _args):
            raise _Called(path, module, hit)
        return hook

    try:
        for path, module, hit in found:
            handles.append(module.register_forward_pre_hook(stop(path, hit)))
        with torch.no_grad():
            model(*inputs)
    except _Called as called:
        why, next_step = called.hit
        raise ExportError(f"module '{called.path or '<root>'}' ({class_name(called.module)}) cannot be exported: "
                          f"it is {why}.\nnext step: {next_step}") from None
    except Exception:  # noqa: BLE001 - the model's own failure is reported by the exporter's reference run
        return
    finally:
        for h in handles:
            h.remove()
