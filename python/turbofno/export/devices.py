"""Tensors a model keeps outside its parameters and buffers, moved with it.

`model.cpu()` moves parameters and buffers only. Modules that cache tensors in plain attributes
keep those on the device of their last forward: neuraloperator's GridEmbedding2D / GridEmbeddingND
cache their positional grid (`_grid`, a tuple / list of tensors) and reuse it while the resolution
is unchanged, so after a CUDA forward, `model.cpu()` and a CPU forward fail with "Expected all
tensors to be on the same device ... (wrapper_CUDA_cat)". The exporter works on a CPU copy, so it
moves every such cached tensor (in attributes, lists, tuples and dicts, any depth) to the CPU too.
"""
from __future__ import annotations

import torch
from torch import nn


def _moved(value, device: torch.device, seen: set):
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if id(value) in seen:
        return value
    if isinstance(value, (list, tuple)):
        seen.add(id(value))
        items = [_moved(v, device, seen) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        if isinstance(value, list):
            value[:] = items
            return value
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        seen.add(id(value))
        for k in list(value):
            value[k] = _moved(value[k], device, seen)
    return value


def move_cached_tensors(model: nn.Module, device="cpu") -> int:
    """Moves tensors held in plain module attributes (not parameters / buffers, which `.to()`
    handles) to `device`. Returns how many attributes changed."""
    device = torch.device(device)
    changed = 0
    for module in model.modules():
        own = set(module._parameters) | set(module._buffers) | set(module._modules)
        for name, value in list(vars(module).items()):
            if name in own or name in ("_parameters", "_buffers", "_modules"):
                continue
            if isinstance(value, (torch.Tensor, list, tuple, dict)) and _has_tensor_off(value, device, set()):
                setattr(module, name, _moved(value, device, set()))
                changed += 1
    return changed


def _has_tensor_off(value, device: torch.device, seen: set) -> bool:
    if isinstance(value, torch.Tensor):
        return value.device.type != device.type or (device.index is not None and value.device.index != device.index)
    if id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, (list, tuple)):
        return any(_has_tensor_off(v, device, seen) for v in value)
    if isinstance(value, dict):
        return any(_has_tensor_off(v, device, seen) for v in value.values())
    return False
