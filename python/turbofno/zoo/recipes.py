"""Data recipes of the bundled models: which solver, grid, seed and split sizes made each data set.

A checkpoint's config.json carries its recipe, so its test samples can be regenerated exactly:
sample i of split s (0 train, 1 test) is drawn from np.random.default_rng([seed, s, i]).
"""
from __future__ import annotations

import numpy as np

# `permeability` and `initial` record the solver modules' defaults (darcy.py, grf.py) for the model cards.
RECIPES = {
    "darcy": dict(solver="darcy", size=64, seed=20261129, n_train=1000, n_test=100, forcing=1.0,
                  permeability=dict(high=12.0, low=3.0, grf_alpha=2.0, grf_tau=3.0)),
    "burgers": dict(solver="burgers", size=256, seed=20261129, n_train=1000, n_test=100,
                    nu=0.01, t_end=1.0, dt=5e-4, fine=1024,
                    initial=dict(grf_alpha=2.0, grf_tau=5.0, grf_sigma=25.0, grf_modes=256)),
    "navier_stokes": dict(solver="navier_stokes", size=64, seed=20261129, n_train=1000, n_test=100,
                          nu=1e-3, t_end=10.0, dt=1e-2, forcing="0.1 (sin(2 pi (x + y)) + cos(2 pi (x + y)))",
                          initial=dict(grf_alpha=2.5, grf_tau=7.0, grf_sigma=7.0**1.5, grf_modes=32)),
}

TRAIN, TEST = 0, 1


def make_samples(recipe: dict, split: int, indices) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, solutions), each [n, 1, *grid] float64, for the given sample indices of `split`."""
    indices = [int(i) for i in indices]
    if recipe["solver"] == "darcy":
        from .darcy import darcy_sample
        pairs = [darcy_sample(recipe["size"], recipe["seed"], split, i) for i in indices]
        x = np.stack([a for a, _ in pairs])
        y = np.stack([u for _, u in pairs])
    elif recipe["solver"] == "burgers":
        from .burgers import burgers_samples
        x, y = burgers_samples(recipe["seed"], split, indices, nu=recipe["nu"], t_end=recipe["t_end"],
                               dt=recipe["dt"], fine=recipe["fine"], size=recipe["size"])
    elif recipe["solver"] == "navier_stokes":
        from .grf import grf_periodic_2d
        from .navier_stokes import kolmogorov_forcing, solve_navier_stokes
        x = np.stack([grf_periodic_2d(recipe["size"], np.random.default_rng([recipe["seed"], split, i])) for i in indices])
        y = solve_navier_stokes(x, recipe["t_end"], recipe["nu"], recipe["dt"], kolmogorov_forcing(recipe["size"]))
    else:
        raise ValueError(f"unknown solver {recipe['solver']!r}")
    return x[:, None], y[:, None]
