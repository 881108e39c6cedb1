"""Write models/<name>/README.md (the model card) from the checkpoint's config.json, so the numbers a card
states are the ones train.py measured (tests/python/test_models.py re-checks them).

    python models/make_card.py darcy burgers
"""
from __future__ import annotations

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "python" / "turbofno" / "zoo" / "checkpoints"

PROBLEMS = {
    "darcy": dict(
        title="2D Darcy flow: permeability -> pressure",
        problem="-div(a(x) grad u(x)) = 1 on the unit square, u = 0 on the boundary. The FNO maps the "
                "permeability a to the pressure u.",
        solver="`turbofno/zoo/darcy.py`: finite differences on the {size}x{size} vertex grid (h = 1/{h}), 5-point "
               "stencil with harmonic-mean face coefficients, one sparse direct solve (scipy spsolve) per sample. "
               "Checked in `tests/python/test_solvers.py` (manufactured solution, second order; symmetric "
               "system; maximum principle).",
        inputs="a = 12 where a Gaussian random field N(0, (-Laplacian + 9 I)^-2) (cosine modes) is >= 0, "
               "else 3 (`darcy_permeability`).",
    ),
    "burgers": dict(
        title="1D viscous Burgers: u(x, 0) -> u(x, 1)",
        problem="u_t + (u^2/2)_x = nu u_xx on the periodic [0, 1), nu = {nu}. The FNO maps u(., 0) to u(., {t_end}).",
        solver="`turbofno/zoo/burgers.py`: Fourier pseudo-spectral with 2/3 dealiasing on {fine} points, ETDRK4 "
               "(Kassam-Trefethen contour integrals), dt = {dt}; every {stride}th point is kept ({size} points). "
               "Checked in `tests/python/test_solvers.py` (exact Cole-Hopf solution to 1e-8, energy decay, "
               "agreement with a 2x finer grid and 4x smaller step).",
        inputs="u0 ~ N(0, 625 (-Laplacian + 25 I)^-2) on the periodic domain, 256 Fourier modes, zero mean "
               "(`grf_periodic_1d`).",
    ),
    "navier_stokes": dict(
        title="2D Navier-Stokes (vorticity form): w(x, 0) -> w(x, 10)",
        problem="w_t + u . grad w = nu Laplacian w + f on the periodic unit square, u = (psi_y, -psi_x), "
                "-Laplacian psi = w, nu = {nu:g}, f = {forcing}. The FNO maps w(., 0) to w(., {t_end:g}).",
        solver="`turbofno/zoo/navier_stokes.py`: Fourier pseudo-spectral with 2/3 dealiasing on the {size}x{size} "
               "grid, ETDRK4 with the viscous term integrated exactly, dt = {dt}. Checked in "
               "`tests/python/test_solvers.py` (exact single-shell decay, exact forced growth from rest, "
               "divergence-free velocity, energy decay, agreement with a 2x finer grid and 2x smaller step).",
        inputs="w0 ~ N(0, 7^3 (-Laplacian + 49 I)^-2.5) on the periodic square, |k_x|, |k_y| < 32, zero mean "
               "(`grf_periodic_2d`).",
    ),
}


def card(name: str) -> str:
    cfg = json.loads((CHECKPOINTS / name / "config.json").read_text())
    r, t, tr, fno = cfg["recipe"], cfg["test"], cfg["training"], cfg["fno"]
    p = PROBLEMS[name]
    fmt = dict(r, h=r["size"] - 1, stride=r.get("fine", r["size"]) // r["size"])
    size_kb = (CHECKPOINTS / name / "model.pt").stat().st_size / 1024
    grid = "x".join([str(r["size"])] * len(fno["n_modes"]))
    per_sample = ", ".join(f"{e:.5f}" for e in t["check_rel_l2"])
    return f"""# `{name}`: {p['title']}

Bundled checkpoint: `python/turbofno/zoo/checkpoints/{name}/` (`model.pt`: fp32 state_dict, {size_kb:.0f} KiB;
`config.json`: constructor arguments, data recipe, normalisation, measured errors). Load it with
`turbofno.zoo.checkpoints.load_model("{name}")`; run it through the exporter and ONNX Runtime with
`turbofno demo --model {name}`.

## Problem and data
- {p['problem'].format(**fmt)}
- Solver: {p['solver'].format(**fmt)}
- Inputs: {p['inputs']}
- Resolution: {grid}. Seed recipe: sample i of split s (0 train, 1 test, 2+ the demo's fresh samples) is drawn from
  `numpy.random.default_rng([{r['seed']}, s, i])`; {r['n_train']} train and {r['n_test']} test samples.
  No downloaded data.

## Network
neuraloperator 2.0.0 `FNO({', '.join(f'{k}={tuple(v) if isinstance(v, list) else v}' for k, v in fno.items())})`
(other arguments: the library's defaults, e.g. grid positional embedding, lifting/projection ratio 2,
soft-gating channel MLP skip). {cfg['parameters']:,} parameters. Inputs and outputs are normalised with
the scalar mean/std of the training set (`normalization` in config.json; `turbofno.zoo.checkpoints.Normalizer`).

## Training
{tr['optimizer']}, peak lr {tr['lr']}, weight decay {tr['weight_decay']}, batch {tr['batch']}, {tr['epochs']} epochs,
loss: relative L2 in physical units, torch seed {tr['seed']}; {tr['n_train']} samples; {tr['wall_s'] / 60:.0f} min on
{tr['device']} ({f"{tr.get('threads', 1)} thread(s) of a shared 2-core machine" if tr['device'] == 'cpu' else tr['device']}).

## Test error against the solver
| | relative L2 |
|---|---|
| mean over the {t['n']} test samples | **{t["rel_l2_mean"]:.5f}** |
| max over the {t['n']} test samples | {t["rel_l2_max"]:.5f} |
| mean over test samples 0..{t['check_n'] - 1} (re-checked by `tests/python/test_models.py`) | {t["check_rel_l2_mean"]:.5f} |

Per sample 0..{t['check_n'] - 1}: {per_sample}.

## Regenerate
```
python models/generate_data.py {name}                    # -> models/data/{name}.npz (solver, CPU)
python models/train.py {name} --epochs {tr['epochs']} --threads {tr.get('threads', 1)}   # -> the checkpoint above (CPU; --device cuda on a GPU)
python models/make_card.py {name}                        # -> this card
pytest tests/python/test_models.py -k {name}             # re-check the stated errors
```
Results are reproducible up to floating-point non-determinism of the BLAS/FFT libraries.
"""


def main(names: list[str]) -> int:
    for name in names or sorted(PROBLEMS):
        out = ROOT / "models" / name / "README.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(card(name))
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
