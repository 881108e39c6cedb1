"""The random seed of the Python tests: TURBOFNO_TEST_SEED (a number, or "random" for a fresh one;
default 20261129, so CI runs are reproducible). conftest.py prints it in the report of every failed
test. Tests derive their generators from it with `rng(offset)` / `torch_seed(offset)` (an offset
keeps cases of one test on different streams)."""
from __future__ import annotations

import os
import secrets

import numpy as np

_DEFAULT = 20261129


def _read_seed() -> int:
    raw = os.environ.get("TURBOFNO_TEST_SEED", "").strip()
    if not raw:
        return _DEFAULT
    if raw == "random":
        return secrets.randbits(32)
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"TURBOFNO_TEST_SEED={raw!r} is not a number or 'random'") from None


SEED = _read_seed()


def rng(offset: int = 0) -> np.random.Generator:
    """A NumPy generator on stream `offset` of the run's seed."""
    return np.random.default_rng([SEED, offset])


def torch_seed(offset: int = 0) -> int:
    """An integer seed for torch.manual_seed / torch.Generator on stream `offset` of the run's seed."""
    return int(np.random.SeedSequence([SEED, offset]).generate_state(1)[0])
