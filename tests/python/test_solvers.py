"""Sanity checks of the solvers that made the bundled models' data (turbofno.zoo)."""
from __future__ import annotations

import numpy as np

import seeding
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
    rng = seeding.rng(7)
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
    u0 = grf_periodic_1d(1024, seeding.rng(3)) + 0.2
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
    base = solve_burgers(grf_periodic_1d(1024, seeding.rng(rng_seed)), 1.0, 0.01, 5e-4)
    fine = solve_burgers(grf_periodic_1d(2048, seeding.rng(rng_seed)), 1.0, 0.01, 1.25e-4)
    assert np.abs(base - fine[::2]).max() < 1e-6 * np.abs(fine).max()


def test_burgers_rejects_bad_parameters():
    with pytest.raises(ValueError):
        solve_burgers(np.zeros(64) + 1.0, 1.0, nu=-0.1, dt=1e-3)
    with pytest.raises(ValueError):
        grf_periodic_1d(256, seeding.rng(0))  # too coarse for 256 modes


# --- 2D Navier-Stokes (vorticity form) -------------------------------------------------------------

def _grid(n: int):
    t = np.arange(n) / n
    return np.meshgrid(t, t, indexing="ij")


def test_navier_stokes_single_shell_decays_exactly():
    """Vorticity on one wavenumber shell makes u . grad w vanish: w(t) = w0 exp(-nu |k|^2 t)."""
    from turbofno.zoo.navier_stokes import solve_navier_stokes

    x, y = _grid(48)  # non-power-of-two grid
    w0 = np.cos(2 * np.pi * x) + 0.5 * np.sin(2 * np.pi * y)  # both modes have |k| = 2 pi
    nu = 0.01
    w = solve_navier_stokes(w0, 1.0, nu, 1e-2)
    np.testing.assert_allclose(w, w0 * np.exp(-nu * 4 * np.pi**2), atol=1e-10)


def test_navier_stokes_forced_from_rest_matches_closed_form():
    from turbofno.zoo.navier_stokes import kolmogorov_forcing, solve_navier_stokes

    n, nu, t = 40, 1e-3, 5.0
    f = kolmogorov_forcing(n)  # one shell, |k|^2 = 8 pi^2: w stays parallel to f
    lam = nu * 8 * np.pi**2
    w = solve_navier_stokes(np.zeros((n, n)), t, nu, 1e-2, f)
    np.testing.assert_allclose(w, f * (1 - np.exp(-lam * t)) / lam, atol=1e-10)


def test_navier_stokes_velocity_is_divergence_free_and_curl_is_vorticity():
    from turbofno.zoo.grf import grf_periodic_2d
    from turbofno.zoo.navier_stokes import velocity

    n = 70
    w = grf_periodic_2d(n, seeding.rng(5))
    u, v = velocity(w)
    k = 2 * np.pi * np.fft.fftfreq(n, d=1.0 / n)
    dx = lambda g: np.real(np.fft.ifft(1j * k[:, None] * np.fft.fft(g, axis=0), axis=0))  # noqa: E731
    dy = lambda g: np.real(np.fft.ifft(1j * k[None, :] * np.fft.fft(g, axis=1), axis=1))  # noqa: E731
    assert np.abs(dx(u) + dy(v)).max() < 1e-10
    np.testing.assert_allclose(dx(v) - dy(u), w - w.mean(), atol=1e-10)


def test_navier_stokes_recipe_is_resolved():
    """The data recipe (64x64, dt 1e-2, nu 1e-3) agrees with 2x finer grid and 2x smaller step."""
    from turbofno.zoo.grf import grf_periodic_2d
    from turbofno.zoo.navier_stokes import kolmogorov_forcing, solve_navier_stokes

    rng_seed = [11, 1, 0]
    base = solve_navier_stokes(grf_periodic_2d(64, seeding.rng(rng_seed)), 2.0, 1e-3, 1e-2, kolmogorov_forcing(64))
    fine = solve_navier_stokes(grf_periodic_2d(128, seeding.rng(rng_seed)), 2.0, 1e-3, 5e-3, kolmogorov_forcing(128))
    assert np.abs(base - fine[::2, ::2]).max() < 1e-8 * np.abs(fine).max()


def test_navier_stokes_unforced_energy_decays():
    from turbofno.zoo.grf import grf_periodic_2d
    from turbofno.zoo.navier_stokes import solve_navier_stokes, velocity

    w = grf_periodic_2d(64, seeding.rng(9)) * 10  # strong enough to be nonlinear
    energies = []
    for _ in range(4):
        u, v = velocity(w)
        energies.append(float(np.mean(u**2 + v**2)))
        w = solve_navier_stokes(w, 0.5, 1e-3, 1e-2)
    assert all(e1 < e0 for e0, e1 in zip(energies, energies[1:]))
    assert abs(w.mean()) < 1e-12


def test_navier_stokes_rejects_bad_input():
    from turbofno.zoo.navier_stokes import solve_navier_stokes

    with pytest.raises(ValueError):
        solve_navier_stokes(np.zeros((8, 6)), 1.0, 1e-3, 1e-2)
    with pytest.raises(ValueError):
        solve_navier_stokes(np.zeros((8, 8)), 1.0, 0.0, 1e-2)
