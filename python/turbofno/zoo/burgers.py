"""1D viscous Burgers  u_t + (u^2/2)_x = nu u_xx  on the periodic [0, 1).

Fourier pseudo-spectral in space (2/3-rule dealiasing), ETDRK4 in time (Cox & Matthews 2002, with the
Kassam & Trefethen 2005 contour-integral evaluation of the phi-functions). The stiff linear part
-nu k^2 is integrated exactly, so the step is limited only by the advection.
"""
from __future__ import annotations

import numpy as np

from .etdrk4 import etdrk4_coefficients, etdrk4_integrate
from .grf import grf_periodic_1d


def solve_burgers(u0: np.ndarray, t_end: float, nu: float, dt: float) -> np.ndarray:
    """u(t_end) for initial states u0 of shape [..., N] on N equispaced points of [0, 1), float64."""
    u0 = np.asarray(u0, dtype=np.float64)
    if nu <= 0 or dt <= 0 or t_end < 0:
        raise ValueError("nu and dt must be positive and t_end non-negative")
    n = u0.shape[-1]
    k = 2 * np.pi * np.fft.rfftfreq(n, d=1.0 / n)
    dealias = np.fft.rfftfreq(n, d=1.0 / n) < n / 3
    steps = max(1, int(np.ceil(t_end / dt - 1e-9)))
    dt = t_end / steps
    g = -0.5j * k * dealias

    def nonlinear(v):
        return g * np.fft.rfft(np.fft.irfft(v, n=n) ** 2)

    v = etdrk4_integrate(np.fft.rfft(u0), steps, etdrk4_coefficients(-nu * k**2, dt), nonlinear)
    return np.fft.irfft(v, n=n)


# The dataset recipe (see models/burgers/README.md): solve on a fine grid, keep every `stride`-th point.
BURGERS_RECIPE = dict(nu=0.01, t_end=1.0, dt=5e-4, fine=1024, size=256)


def burgers_samples(seed: int, split: int, indices, **recipe) -> tuple[np.ndarray, np.ndarray]:
    """(u0, u(T)) at `size` points for the given sample indices; each index has its own random stream."""
    r = {**BURGERS_RECIPE, **recipe}
    fine, size = r["fine"], r["size"]
    if fine % size:
        raise ValueError("fine must be a multiple of size")
    u0 = np.stack([grf_periodic_1d(fine, np.random.default_rng([seed, split, int(i)])) for i in indices])
    ut = solve_burgers(u0, r["t_end"], r["nu"], r["dt"])
    stride = fine // size
    return u0[:, ::stride], ut[:, ::stride]
