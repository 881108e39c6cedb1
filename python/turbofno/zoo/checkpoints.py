"""Load the bundled FNO checkpoints: checkpoints/<name>/{config.json, model.pt}.

config.json holds the neuraloperator FNO constructor arguments ("fno"), the data recipe ("recipe"),
the scalar input/output normalisation ("normalization") and the measured test errors ("test").
model.pt is a plain fp32 state_dict (loaded with weights_only=True).
"""
from __future__ import annotations

import json
import os
import pathlib

import numpy as np

# $TURBOFNO_CHECKPOINT_DIR overrides the bundled folder (e.g. to try a freshly trained checkpoint)
CHECKPOINT_DIR = pathlib.Path(os.environ.get("TURBOFNO_CHECKPOINT_DIR") or pathlib.Path(__file__).resolve().parent / "checkpoints")


def available() -> list[str]:
    """Names of the bundled checkpoints."""
    if not CHECKPOINT_DIR.is_dir():
        return []
    return sorted(p.name for p in CHECKPOINT_DIR.iterdir() if (p / "config.json").is_file() and (p / "model.pt").is_file())


def load_config(name: str) -> dict:
    path = CHECKPOINT_DIR / name / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"no bundled model {name!r} (have: {', '.join(available()) or 'none'})")
    return json.loads(path.read_text())


def build_model(config: dict):
    """An untrained neuraloperator FNO with the checkpoint's constructor arguments."""
    from neuralop.models import FNO

    kwargs = dict(config["fno"])
    kwargs["n_modes"] = tuple(kwargs["n_modes"])
    return FNO(**kwargs)


def load_model(name: str):
    """(FNO in eval mode on CPU, config) for a bundled checkpoint."""
    import torch

    config = load_config(name)
    model = build_model(config)
    state = torch.load(CHECKPOINT_DIR / name / "model.pt", map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.eval(), config


class Normalizer:
    """The scalar affine maps between physical fields and the network's inputs/outputs."""

    def __init__(self, norm: dict):
        self.x_mean, self.x_std = float(norm["x_mean"]), float(norm["x_std"])
        self.y_mean, self.y_std = float(norm["y_mean"]), float(norm["y_std"])

    def encode_input(self, x):
        return (x - self.x_mean) / self.x_std

    def decode_output(self, y):
        return y * self.y_std + self.y_mean

    def encode_output(self, y):
        return (y - self.y_mean) / self.y_std


def relative_l2(pred, truth) -> np.ndarray:
    """Per-sample ||pred - truth||_2 / ||truth||_2 over all non-batch axes (numpy arrays)."""
    pred = np.asarray(pred, dtype=np.float64).reshape(len(pred), -1)
    truth = np.asarray(truth, dtype=np.float64).reshape(len(truth), -1)
    return np.linalg.norm(pred - truth, axis=1) / np.linalg.norm(truth, axis=1)
