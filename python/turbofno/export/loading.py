"""Build a model for the CLI from a spec (`file.py:factory`, `package.module:factory`, or a pickled
module `.pt`) and load a checkpoint into it."""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pickle
import sys
import zipfile
from pathlib import Path

import torch
from torch import nn

_STATE_KEYS = ("state_dict", "model_state_dict", "model", "net", "module")


class LoadError(RuntimeError):
    pass


def _import_file(path: Path):
    name = f"_turbofno_user_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))  # let the file import its neighbours
    try:
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


def _safe_globals() -> list:
    """Non-tensor objects that neuraloperator writes into its state dicts' `_metadata` (the init
    kwargs: activation functions, the conv class), allowed for weights_only loading."""
    import torch.nn.functional as F

    allowed = [F.gelu, F.relu, F.silu, F.tanh, F.sigmoid, F.elu, F.leaky_relu, torch.tanh, torch.sigmoid]
    try:
        from neuralop.layers.spectral_convolution import SpectralConv

        allowed.append(SpectralConv)
    except ImportError:
        pass
    return allowed


def _torch_load(path: str, unsafe: bool, what: str = "file"):
    if not os.path.exists(path):
        raise LoadError(f"{what} {path} not found")
    if not os.path.isfile(path):
        raise LoadError(f"{what} {path} is not a file")
    try:
        if unsafe:
            return torch.load(path, map_location="cpu", weights_only=False)
        with torch.serialization.safe_globals(_safe_globals()):
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        if unsafe or not zipfile.is_zipfile(path):  # not torch.save's archive: unpickling would not help
            raise LoadError(f"cannot load {what} {path}: {_first_line(err)} (expected a file written by "
                            "torch.save)") from err
        # weights_only refused an object of the file: only then can --unsafe-load help
        raise LoadError(f"cannot load {what} {path} with torch.load(weights_only=True): {_first_line(err)}; "
                        "if you trust the file, pass --unsafe-load to unpickle arbitrary objects") from err
    except Exception as err:  # noqa: BLE001 - not a torch.save file, truncated, ...
        raise LoadError(f"cannot load {what} {path}: {type(err).__name__}: {_first_line(err)} "
                        "(expected a file written by torch.save)") from err


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def parse_kwargs(kwargs_json: str | None) -> dict:
    """--model-kwargs: a JSON object, else a one-line LoadError saying where the JSON is wrong."""
    if not kwargs_json:
        return {}
    try:
        kwargs = json.loads(kwargs_json)
    except json.JSONDecodeError as err:
        raise LoadError(f"--model-kwargs is not valid JSON: {err.msg} at line {err.lineno} column {err.colno} "
                        f"(got {kwargs_json!r}); write e.g. '{{\"n_modes\": [16, 16], \"hidden_channels\": 32}}'") from err
    if not isinstance(kwargs, dict):
        raise LoadError(f"--model-kwargs must be a JSON object, got {kwargs_json!r}")
    return kwargs


def build_model(spec: str, kwargs_json: str | None = None, unsafe_load: bool = False) -> nn.Module:
    """`file.py:name` / `pkg.module:name` (a factory function or class, called with the JSON kwargs),
    or `model.pt` (a whole pickled nn.Module, needs unsafe_load)."""
    kwargs = parse_kwargs(kwargs_json)
    if ":" not in spec and os.path.isfile(spec):
        if kwargs:
            raise LoadError("--model-kwargs does not apply to a pickled model file")
        obj = _torch_load(spec, unsafe_load, "model file")
        if not isinstance(obj, nn.Module):
            raise LoadError(f"{spec} holds a {type(obj).__name__}, not an nn.Module; "
                            "use `--model file.py:factory --checkpoint` for state dicts")
        return obj
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise LoadError(f"--model must be FILE.py:NAME, MODULE:NAME or a pickled model file, got {spec!r}")
    if target.endswith(".py") or os.sep in target:
        if not os.path.isfile(target):
            raise LoadError(f"model file {target} not found")
        module = _import_file(Path(target))
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as err:
            raise LoadError(f"cannot import module {target!r}: {err}") from err
    factory = getattr(module, attr, None)
    if factory is None or not callable(factory):
        raise LoadError(f"{target} has no callable {attr!r}")
    try:
        model = factory(**kwargs)
    except Exception as err:  # noqa: BLE001 - the user's factory: report it in one line
        raise LoadError(f"{spec}(**{kwargs!r}) failed: {type(err).__name__}: {_first_line(err)}") from err
    if not isinstance(model, nn.Module):
        raise LoadError(f"{spec}(**kwargs) returned {type(model).__name__}, not an nn.Module")
    return model


def load_checkpoint(model: nn.Module, path: str, key: str | None = None, unsafe_load: bool = False) -> None:
    """Load a state dict (or a dict holding one under `key` / a usual key) into `model`, strictly."""
    state = _torch_load(path, unsafe_load, "checkpoint")
    if key:
        if not isinstance(state, dict) or key not in state:
            raise LoadError(f"checkpoint {path} has no key {key!r}")
        state = state[key]
    elif isinstance(state, dict) and not any(isinstance(v, torch.Tensor) for v in state.values()):
        for k in _STATE_KEYS:
            if isinstance(state.get(k), dict):
                state = state[k]
                break
    if isinstance(state, nn.Module):
        state = state.state_dict()
    if not isinstance(state, dict):
        raise LoadError(f"checkpoint {path} holds a {type(state).__name__}, not a state dict")
    if state and all(k.startswith("module.") for k in state if k != "_metadata"):
        state = {k.removeprefix("module."): v for k, v in state.items()}  # saved from DataParallel/DDP
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as err:
        raise LoadError(f"checkpoint {path} does not fit the model: {err}") from err


def parse_shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in text.replace("x", ",").split(",") if v.strip())
    except ValueError as err:
        raise LoadError(f"bad --input-shape {text!r}: expected comma-separated integers like 1,3,64,64") from err
    if len(shape) < 3 or any(v <= 0 for v in shape):
        raise LoadError(f"bad --input-shape {text!r}: need N,C,S1[,S2[,S3]] with positive sizes")
    return shape


def load_input(path: str) -> torch.Tensor:
    if not os.path.isfile(path):
        raise LoadError(f"input file {path} not found")
    if path.endswith(".npy"):
        import numpy as np

        try:
            return torch.from_numpy(np.load(path)).float()
        except (ValueError, OSError) as err:
            raise LoadError(f"cannot read {path} as a .npy array: {_first_line(err)}") from err
    obj = _torch_load(path, False, "input file")
    if not isinstance(obj, torch.Tensor):
        raise LoadError(f"{path} holds a {type(obj).__name__}, not a tensor")
    return obj.float()
