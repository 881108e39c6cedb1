"""2D incompressible Navier-Stokes in vorticity form on the periodic unit square:

    w_t + u . grad w = nu Laplacian w + f,   u = (psi_y, -psi_x),   -Laplacian psi = w.

Fourier pseudo-spectral (2/3-rule dealiasing), ETDRK4 in time with the viscous term integrated exactly
(Kassam & Trefethen contour integrals for the phi-functions, etdrk4.py).
"""
from __future__ import annotations

import numpy as np

from .etdrk4 import etdrk4_coefficients, etdrk4_integrate


def _wavenumbers(n: int):
    kx = 2 * np.pi * np.fft.fftfreq(n, d=1.0 / n)[:, None]   # first axis: x
    ky = 2 * np.pi * np.fft.rfftfreq(n, d=1.0 / n)[None, :]  # last axis: y (one-sided)
    return kx, ky


def kolmogorov_forcing(n: int) -> np.ndarray:
    """Li et al.'s forcing 0.1 (sin(2 pi (x + y)) + cos(2 pi (x + y))) on the n x n grid."""
    t = np.arange(n) / n
    s = 2 * np.pi * (t[:, None] + t[None, :])
    return 0.1 * (np.sin(s) + np.cos(s))


def solve_navier_stokes(w0: np.ndarray, t_end: float, nu: float, dt: float, forcing: np.ndarray | None = None) -> np.ndarray:
    """w(t_end) for vorticities w0 of shape [..., n, n] (x then y, n points each on [0, 1)), float64."""
    w0 = np.asarray(w0, dtype=np.float64)
    n = w0.shape[-1]
    if w0.ndim < 2 or w0.shape[-2] != n or n < 4:
        raise ValueError(f"w0 must end in a square grid of at least 4x4, got {w0.shape}")
    if nu <= 0 or dt <= 0 or t_end < 0:
        raise ValueError("nu and dt must be positive and t_end non-negative")
    kx, ky = _wavenumbers(n)
    k2 = kx**2 + ky**2
    inv_k2 = np.where(k2 > 0, 1.0 / np.where(k2 > 0, k2, 1.0), 0.0)
    cut = 2 * np.pi * n / 3
    dealias = (np.abs(kx) < cut) & (np.abs(ky) < cut)
    f_hat = np.fft.rfft2(forcing) if forcing is not None else 0.0
    steps = max(1, int(np.ceil(t_end / dt - 1e-9)))
    dt = t_end / steps

    def nonlinear(wh):
        psi = wh * inv_k2
        u = np.fft.irfft2(1j * ky * psi, s=(n, n))
        v = np.fft.irfft2(-1j * kx * psi, s=(n, n))
        wx = np.fft.irfft2(1j * kx * wh, s=(n, n))
        wy = np.fft.irfft2(1j * ky * wh, s=(n, n))
        return -np.fft.rfft2(u * wx + v * wy) * dealias + f_hat

    wh = etdrk4_integrate(np.fft.rfft2(w0), steps, etdrk4_coefficients(-nu * k2, dt), nonlinear)
    return np.fft.irfft2(wh, s=(n, n))


def velocity(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) of a vorticity field [..., n, n] (zero-mean velocity)."""
    n = w.shape[-1]
    kx, ky = _wavenumbers(n)
    k2 = kx**2 + ky**2
    psi = np.fft.rfft2(w) * np.where(k2 > 0, 1.0 / np.where(k2 > 0, k2, 1.0), 0.0)
    return np.fft.irfft2(1j * ky * psi, s=(n, n)), np.fft.irfft2(-1j * kx * psi, s=(n, n))
