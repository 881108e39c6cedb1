"""ETDRK4 time stepping for the zoo's pseudo-spectral solvers (Cox & Matthews 2002), with the
Kassam & Trefethen 2005 contour-integral evaluation of the phi-functions.

For v' = L v + N(v) with a diagonal (Fourier-space) linear operator L, the stiff part is integrated
exactly, so the step is limited only by the nonlinearity.
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def etdrk4_coefficients(lin: np.ndarray, dt: float, contour_points: int = 32):
    """(e, e2, q, f1, f2, f3) for the diagonal linear operator `lin` (any shape) and step `dt`."""
    lin = np.asarray(lin)
    flat = lin.ravel()
    r = np.exp(1j * np.pi * (np.arange(1, contour_points + 1) - 0.5) / contour_points)
    lr = dt * flat[:, None] + r[None, :]
    e = np.exp(dt * flat)
    e2 = np.exp(dt * flat / 2)
    q = dt * np.real(np.mean((np.exp(lr / 2) - 1) / lr, axis=1))
    f1 = dt * np.real(np.mean((-4 - lr + np.exp(lr) * (4 - 3 * lr + lr**2)) / lr**3, axis=1))
    f2 = dt * np.real(np.mean((2 + lr + np.exp(lr) * (-2 + lr)) / lr**3, axis=1))
    f3 = dt * np.real(np.mean((-4 - 3 * lr - lr**2 + np.exp(lr) * (4 - lr)) / lr**3, axis=1))
    return tuple(c.reshape(lin.shape) for c in (e, e2, q, f1, f2, f3))


def etdrk4_integrate(v: np.ndarray, steps: int, coefficients, nonlinear: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """`steps` ETDRK4 steps of the spectral state `v` with N(v) = nonlinear(v)."""
    e, e2, q, f1, f2, f3 = coefficients
    for _ in range(steps):
        nv = nonlinear(v)
        a = e2 * v + q * nv
        na = nonlinear(a)
        b = e2 * v + q * na
        nb = nonlinear(b)
        c = e2 * a + q * (2 * nb - nv)
        nc = nonlinear(c)
        v = e * v + nv * f1 + 2 * (na + nb) * f2 + nc * f3
    return v
