"""2D Darcy flow  -div(a grad u) = f  on [0,1]^2, u = 0 on the boundary.

Finite differences on a size x size vertex grid (h = 1/(size-1)): the 5-point stencil with the
harmonic mean of a on each face (second order for smooth a, flux-conservative for piecewise-constant
a), one sparse direct solve per sample.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from .grf import grf_neumann_2d


def darcy_matrix(a: np.ndarray) -> scipy.sparse.csr_matrix:
    """The (size-2)^2 x (size-2)^2 operator -div(a grad .) on interior nodes (zero Dirichlet data)."""
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] < 3:
        raise ValueError(f"a must be a square grid of at least 3x3, got {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError("the coefficient a must be finite and positive")
    s = a.shape[0]
    h2 = (1.0 / (s - 1)) ** 2
    m = s - 2
    # face coefficients: ax[i, j] between nodes (i, j) and (i+1, j); ay[i, j] between (i, j) and (i, j+1)
    ax = 2 * a[:-1, :] * a[1:, :] / (a[:-1, :] + a[1:, :])
    ay = 2 * a[:, :-1] * a[:, 1:] / (a[:, :-1] + a[:, 1:])
    west, east = ax[:-1, 1:-1], ax[1:, 1:-1]    # faces around interior node (i, j): (i-1/2, j), (i+1/2, j)
    south, north = ay[1:-1, :-1], ay[1:-1, 1:]  # (i, j-1/2), (i, j+1/2)
    idx = np.arange(m * m).reshape(m, m)
    rows = [idx.ravel()]
    cols = [idx.ravel()]
    vals = [(west + east + south + north).ravel() / h2]
    for coef, di, dj in ((west, -1, 0), (east, 1, 0), (south, 0, -1), (north, 0, 1)):
        ii, jj = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
        ni, nj = ii + di, jj + dj
        inside = (ni >= 0) & (ni < m) & (nj >= 0) & (nj < m)  # boundary neighbours carry u = 0
        rows.append(idx[inside])
        cols.append(idx[ni[inside], nj[inside]])
        vals.append(-coef[inside] / h2)
    return scipy.sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(m * m, m * m))


def solve_darcy(a: np.ndarray, f: float | np.ndarray = 1.0) -> np.ndarray:
    """u on the full size x size grid (boundary rows/columns are 0), float64."""
    a = np.asarray(a, dtype=np.float64)
    mat = darcy_matrix(a)
    s = a.shape[0]
    rhs = np.broadcast_to(np.asarray(f, dtype=np.float64), a.shape)[1:-1, 1:-1].ravel()
    u = np.zeros((s, s))
    u[1:-1, 1:-1] = scipy.sparse.linalg.spsolve(mat.tocsc(), rhs).reshape(s - 2, s - 2)
    return u


def darcy_permeability(size: int, rng: np.random.Generator, *, high: float = 12.0, low: float = 3.0) -> np.ndarray:
    """Piecewise-constant permeability: a GRF thresholded at 0 to {high, low} (Li et al.'s recipe)."""
    return np.where(grf_neumann_2d(size, rng) >= 0, high, low)


def darcy_sample(size: int, seed: int, split: int, index: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, u) for sample `index` of `split` (0 train, 1 test); each sample has its own stream, so any
    subset can be regenerated without the rest."""
    rng = np.random.default_rng([seed, split, index])
    a = darcy_permeability(size, rng)
    return a, solve_darcy(a, 1.0)
