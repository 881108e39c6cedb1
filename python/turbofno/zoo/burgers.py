"""1D viscous Burgers  u_t + (u^2/2)_x = nu u_xx  on the periodic [0, 1).

Fourier pseudo-spectral in space (2/3-rule dealiasing), ETDRK4 in time (Cox & Matthews 2002, with the
Kassam & Trefethen 2005 contour-integral evaluation of the phi-functions). The stiff linear part
-nu k^2 is integrated exactly, so the step is limited only by the advection.
"""
from __future__ import annotations

import numpy as np

from .grf import grf_periodic_1d


def _etdrk4_coefficients(lin: np.ndarray, dt: float, contour_points: int = 32):
    r = np.exp(1j * np.pi * (np.arange(1, contour_points + 1) - 0.5) / contour_points)
    lr = dt * lin[:, None] + r[None, :]
    e = np.exp(dt * lin)
    e2 = np.exp(dt * lin / 2)
    q = dt * np.real(np.mean((np.exp(lr / 2) - 1) / lr, axis=1))
    f1 = dt * np.real(np.mean((-4 - lr + np.exp(lr) * (4 - 3 * lr + lr**2)) / lr**3, axis=1))
    f2 = dt * np.real(np.mean((2 + lr + np.exp(lr) * (-2 + lr)) / lr**3, axis=1))
    f3 = dt * np.real(np.mean((-4 - 3 * lr - lr**2 + np.exp(lr) * (4 - lr)) / lr**3, axis=1))
    return e, e2, q, f1, f2, f3


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
    e, e2, q, f1, f2, f3 = _etdrk4_coefficients(-nu * k**2, dt)
    g = -0.5j * k * dealias

    def nonlinear(v):
        return g * np.fft.rfft(np.fft.irfft(v, n=n) ** 2)

    v = np.fft.rfft(u0)
    for _ in range(steps):
        nv = nonlinear(v)
        a = e2 * v + q * nv
        na = nonlinear(a)
        b = e2 * v + q * na
        nb = nonlinear(b)
        c = e2 * a + q * (2 * nb - nv)
        nc = nonlinear(c)
        v = e * v + nv * f1 + 2 * (na + nb) * f2 + nc * f3
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
