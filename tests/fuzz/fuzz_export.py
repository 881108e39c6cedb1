"""Fuzz cases for the exporter (turbofno.export.export).

Case i of seed s is a pure function of (s, i). Kinds:
  "layer"  a small model (lifting conv -> TurboSpectralConv or neuraloperator SpectralConv -> conv)
           with random modes, channels, separable / bias / norm, grid and batch; a valid one must
           export and pass the exporter's own ORT validation (a ValidationError is a WRONG number);
  "args"   bad example inputs (rank, dtype, empty, complex, non-tensor, channel count), bad options
           (rtol, layer_rtol, opset, names, path): the exporter must refuse with an exception of its
           own kind (ExportError / ValueError / TypeError / RuntimeError from the model), never another
           exception type (reported UNCLEAN) or a crash.
"""
from __future__ import annotations

import math
import os
import tempfile

import numpy as np

KINDS = ("layer", "args", "args", "args")
CLEAN = (ValueError, TypeError, RuntimeError)  # ExportError derives from RuntimeError


def _model(rng, torch):
    from turbofno.export import TurboSpectralConv

    d = int(rng.integers(1, 3))
    c = int(rng.integers(1, 5))
    grid = [int(rng.integers(4, 17)) for _ in range(d)]
    low = [int(rng.integers(1, 4)) for _ in range(d)]
    high = [int(rng.integers(0, 3)) for _ in range(d - 1)] + [0]
    for j in range(d - 1):
        if low[j] + high[j] > grid[j]:
            high[j] = 0
            low[j] = min(low[j], grid[j])
    low[-1] = min(low[-1], grid[-1] // 2 + 1)
    separable = bool(rng.random() < 0.3)
    kept = [p + q for p, q in zip(low, high)]
    g = torch.Generator().manual_seed(int(rng.integers(2**31)))
    w = torch.randn((c, 1 if separable else c, *kept, 2), generator=g) / c
    b = torch.randn((c,), generator=g) if rng.random() < 0.5 else None
    conv = torch.nn.Conv1d if d == 1 else torch.nn.Conv2d
    norm = str(rng.choice(["backward", "forward", "ortho"]))
    model = torch.nn.Sequential(conv(1, c, 1), TurboSpectralConv(w, b, low, high, norm=norm, separable=separable),
                                torch.nn.GELU(), conv(c, 1, 1))
    batch = int(rng.integers(1, 4))
    x = torch.randn((batch, 1, *grid), generator=g)
    return model.eval(), x, f"d={d} c={c} grid={grid} low={low} high={high} sep={separable} bias={b is not None}"


def make_case(seed: int, index: int):
    """(kind, callable(tmpdir) -> None, valid, description)."""
    import torch

    rng = np.random.default_rng([seed, index])
    kind = KINDS[index % len(KINDS)]
    model, x, desc = _model(rng, torch)
    kwargs = {"verbose": False}
    valid = True
    if kind == "args":
        r = int(rng.integers(0, 12))
        valid = False
        if r == 0:
            x = x.double()
        elif r == 1:
            x = x[0]  # rank too low for the model
        elif r == 2:
            x = x[:0]
        elif r == 3:
            x = torch.complex(x, x)
        elif r == 4:
            x = x.numpy()
        elif r == 5:
            x = torch.cat([x, x], dim=1)  # two channels into a one-channel lifting
        elif r == 6:
            kwargs["rtol"] = float(rng.choice([-1.0, math.nan, 0.0]))
        elif r == 7:
            kwargs["opset"] = int(rng.choice([-1, 0, 5, 10**6]))
        elif r == 8:
            kwargs["input_names"] = ["a", "b", "c"]
        elif r == 9:
            x = (x,) * int(rng.integers(0, 3))  # () or two inputs
        elif r == 10:
            x = x.to(torch.int64)
        else:
            kwargs["layer_rtol"] = float(rng.choice([-1.0, math.nan]))
        desc += f" args#{r}"

    def run(tmpdir: str):
        from turbofno.export import export

        export(model, x, os.path.join(tmpdir, f"m{index}.onnx"), **kwargs)

    return kind, run, valid, desc


def run_case(case) -> tuple[str, str]:
    from turbofno.export import ValidationError

    kind, run, valid, desc = case
    with tempfile.TemporaryDirectory() as tmp:
        try:
            run(tmp)
        except ValidationError as err:
            return ("WRONG" if valid else "rejected"), f"validation: {str(err)[:200]}"
        except CLEAN as err:
            if valid:
                return "WRONG", f"valid model refused: {type(err).__name__}: {str(err)[:200]}"
            return "rejected", type(err).__name__
        except Exception as err:  # noqa: BLE001 - any other exception type is a finding
            return "UNCLEAN", f"{type(err).__name__}: {str(err)[:200]}"
    if not valid:
        # Some "bad" options are harmless (e.g. rtol 0 with an exact model, a large opset torch clamps):
        # the export then succeeded and validated, which is fine.
        return "ok", "accepted odd options (exported and validated)"
    return "ok", "exported and validated"
