"""Sanity checks of the solvers that made the bundled models' data (turbofno.zoo)."""
from __future__ import annotations

import numpy as np
import pytest

from turbofno.zoo.burgers import solve_burgers
from turbofno.zoo.darcy import darcy_matrix, darcy_permeability, solve_darcy
from turbofno.zoo.grf import grf_periodic_1d


def _manufactured_darcy_error(size: int) -> float:
    """Max error against u = sin(pi x) sin(pi y) with a = 1 + x + y^2 (f derived by hand)."""
    t = np.linspace(0, 1, size)
    x, y = np.meshgrid(t, t, indexing="ij")
    pi = np.pi
    a = 1 + x + y**2
    u = np.sin(pi * x) * np.sin(pi * y)
    ux, uy = pi * np.cos(pi * x) * np.sin(pi * y), pi * np.sin(pi * x) * np.cos(pi * y)
    f = -(1.0 * ux + 2 * y * uy - 2 * pi**2 * a * u)  # -(a_x u_x + a_y u_y + a lap u)
    return float(np.abs(solve_darcy(a, f) - u).max())


def test_darcy_manufactured_solution_second_order():
    coarse, fine = _manufactured_darcy_error(33), _manufactured_darcy_error(65)
    assert fine < 2e-3
    assert np.log2(coarse / fine) > 1.8  # h halves -> error / 4


def test_darcy_piecewise_constant_discrete_system():
    rng = np.random.default_rng(7)
    a = darcy_permeability(37, rng)  # odd, non-power-of-two grid
    assert set(np.unique(a)) == {3.0, 12.0}
    mat = darcy_matrix(a)
    assert abs(mat - mat.T).max() < 1e-9 * abs(mat).max()  # symmetric (conservative fluxes)
    u = solve_darcy(a, 1.0)
    assert np.all(u[0, :] == 0) and np.all(u[:, -1] == 0)
    residual = mat @ u[1:-1, 1:-1].ravel() - 1.0
    assert np.abs(residual).max() < 1e-8
    assert u[1:-1, 1:-1].min() > 0  # maximum principle: positive source, zero boundary


@pytest.mark.parametrize("bad", [np.ones((4, 5)), -np.ones((8, 8)), np.full((8, 8), np.nan), np.ones((2, 2))])
def test_darcy_rejects_bad_coefficients(bad):
    with pytest.raises(ValueError):
        solve_darcy(bad)


def _cole_hopf(x: np.ndarray, t: float, nu: float) -> np.ndarray:
    """Exact periodic Burgers solution u = -2 nu phi_x / phi, phi a positive solution of phi_t = nu phi_xx."""
    terms = [(0.6, 1), (0.3, 3)]  # (amplitude, wavenumber); 1 - 0.6 - 0.3 > 0 keeps phi positive
    phi = 1 + sum(b * np.exp(-nu * (2 * np.pi * k) ** 2 * t) * np.cos(2 * np.pi * k * x) for b, k in terms)
    phi_x = sum(-b * 2 * np.pi * k * np.exp(-nu * (2 * np.pi * k) ** 2 * t) * np.sin(2 * np.pi * k * x) for b, k in terms)
    return -2 * nu * phi_x / phi


@pytest.mark.parametrize("n", [256, 384])
def test_burgers_matches_cole_hopf(n):
    nu = 0.01
    x = np.arange(n) / n
    u = solve_burgers(_cole_hopf(x, 0.0, nu), t_end=0.5, nu=nu, dt=5e-4)
    exact = _cole_hopf(x, 0.5, nu)
    assert np.abs(u - exact).max() < 1e-8 * max(1.0, np.abs(exact).max())


def test_burgers_energy_decays_and_mean_is_conserved():
    u0 = grf_periodic_1d(1024, np.random.default_rng(3)) + 0.2
    energies, means = [], []
    for t in (0.0, 0.25, 0.5, 1.0):
        u = solve_burgers(u0, t_end=t, nu=0.01, dt=5e-4) if t else u0
        energies.append(float(np.mean(u**2)))
        means.append(float(np.mean(u)))
    assert all(e1 < e0 for e0, e1 in zip(energies, energies[1:]))
    assert np.allclose(means, 0.2, atol=1e-12)


def test_burgers_resolution_and_time_step_converged():
    """The data recipe (1024 points, dt 5e-4, nu 0.01) agrees with a 2x finer grid and 4x smaller step."""
    rng_seed = [11, 1, 0]
    base = solve_burgers(grf_periodic_1d(1024, np.random.default_rng(rng_seed)), 1.0, 0.01, 5e-4)
    fine = solve_burgers(grf_periodic_1d(2048, np.random.default_rng(rng_seed)), 1.0, 0.01, 1.25e-4)
    assert np.abs(base - fine[::2]).max() < 1e-6 * np.abs(fine).max()


def test_burgers_rejects_bad_parameters():
    with pytest.raises(ValueError):
        solve_burgers(np.zeros(64) + 1.0, 1.0, nu=-0.1, dt=1e-3)
    with pytest.raises(ValueError):
        grf_periodic_1d(256, np.random.default_rng(0))  # too coarse for 256 modes
