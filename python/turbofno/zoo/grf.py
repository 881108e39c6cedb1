"""Gaussian random fields N(0, (-Laplacian + tau^2)^(-alpha)), the input distributions of the FNO benchmarks.

Only the field's shape matters for our use (Darcy thresholds it at 0; Burgers scales it), so the
normalisation follows Li et al. (2021) loosely: sigma * (4 pi^2 |k|^2 + tau^2)^(-alpha/2) per mode.
"""
from __future__ import annotations

import numpy as np
import scipy.fft


def grf_neumann_2d(size: int, rng: np.random.Generator, *, alpha: float = 2.0, tau: float = 3.0) -> np.ndarray:
    """One zero-mean field on a size x size vertex grid of [0,1]^2 with cosine (Neumann) modes."""
    k = np.arange(size)
    k2 = k[:, None] ** 2 + k[None, :] ** 2
    sigma = tau ** (0.5 * (2 * alpha - 2))
    coef = sigma * (np.pi**2 * k2 + tau**2) ** (-alpha / 2)
    coef[0, 0] = 0.0  # zero mean, so thresholding at 0 gives both phases
    xi = rng.standard_normal((size, size))
    # DCT-I synthesis evaluates sum_k c_k cos(pi k x) exactly at the vertices x = i / (size - 1)
    return scipy.fft.idctn(xi * coef, type=1) * (2 * (size - 1)) ** 2


def grf_periodic_1d(size: int, rng: np.random.Generator, *, alpha: float = 2.0, tau: float = 5.0,
                    sigma: float = 25.0, n_modes: int = 256) -> np.ndarray:
    """One real field on `size` equispaced points of the periodic [0, 1) (Li et al.'s Burgers u0: sigma=25, tau=5).

    Exactly `n_modes` Fourier modes are drawn whatever `size` is, so the same rng gives the same field on
    every grid fine enough to hold it (size > 2 * n_modes): resolution studies compare like with like.
    """
    if size <= 2 * n_modes:
        raise ValueError(f"size must exceed 2*n_modes = {2 * n_modes}, got {size}")
    k = np.arange(1, n_modes + 1)
    amp = sigma * (4 * np.pi**2 * k**2 + tau**2) ** (-alpha / 2)
    coef = np.zeros(size // 2 + 1, dtype=np.complex128)  # mode 0 stays 0: the conserved mean only shifts u
    coef[1:n_modes + 1] = (rng.standard_normal(n_modes) + 1j * rng.standard_normal(n_modes)) * amp / np.sqrt(2)
    return np.fft.irfft(coef * size, n=size)


def grf_periodic_2d(size: int, rng: np.random.Generator, *, alpha: float = 2.5, tau: float = 7.0,
                    sigma: float = 7.0**1.5, n_modes: int = 32) -> np.ndarray:
    """One real field on a size x size grid of the periodic unit square (Li et al.'s Navier-Stokes w0:
    alpha 2.5, tau 7, sigma 7^1.5). Modes |k_x|, |k_y| < n_modes are drawn from a fixed 2 n_modes grid of
    white noise, so the same rng gives the same field on every grid with size >= 2 * n_modes."""
    base = 2 * n_modes
    if size < base:
        raise ValueError(f"size must be at least 2*n_modes = {base}, got {size}")
    noise = np.fft.fft2(rng.standard_normal((base, base)))
    k = np.fft.fftfreq(base, d=1.0 / base)
    k2 = k[:, None] ** 2 + k[None, :] ** 2
    spec = noise * sigma * (4 * np.pi**2 * k2 + tau**2) ** (-alpha / 2)
    spec[0, 0] = 0.0
    spec[n_modes, :] = 0.0  # drop the Nyquist row/column: their symmetric partners do not exist on finer grids
    spec[:, n_modes] = 0.0
    full = np.zeros((size, size), dtype=np.complex128)
    idx = np.r_[0:n_modes, size - n_modes + 1:size] if size > base else np.arange(base)
    src = np.r_[0:n_modes, n_modes + 1:base]
    full[np.ix_(idx if size > base else src, idx if size > base else src)] = spec[np.ix_(src, src)]
    # fft2 of unit white noise has per-mode std `base`; ifft2 divides by size^2: each mode gets sigma * amp * N(0, 1)
    return np.real(np.fft.ifft2(full)) * size**2 / base
