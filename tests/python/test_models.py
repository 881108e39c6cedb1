"""The bundled checkpoints: their model cards' stated test errors are re-measured on the first few held-out
samples, regenerated with the card's seed recipe and solver; and `turbofno demo` runs end to end on CPU."""
from __future__ import annotations

import json
import pathlib
import re

import numpy as np
import pytest

from turbofno.zoo.checkpoints import Normalizer, available, load_model, relative_l2
from turbofno.zoo.recipes import TEST, TRAIN, make_samples

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ["darcy", "burgers", "navier_stokes"]


def test_both_models_are_bundled():
    assert set(MODELS) <= set(available())


def _predict(name: str, x: np.ndarray) -> np.ndarray:
    import torch

    model, config = load_model(name)
    norm = Normalizer(config["normalization"])
    with torch.inference_mode():
        y = model(torch.from_numpy(norm.encode_input(x).astype(np.float32))).double().numpy()
    return norm.decode_output(y)


@pytest.mark.parametrize("name", MODELS)
def test_model_card_states_the_checkpoint_numbers(name):
    test = load_model(name)[1]["test"]
    card = (ROOT / "models" / name / "README.md").read_text()
    mean = re.search(r"\| mean over the (\d+) test samples \| \*\*([0-9.]+)\*\* \|", card)
    check = re.search(r"\| mean over test samples 0\.\.(\d+) .*\| ([0-9.]+) \|", card)
    assert mean and check, "model card lacks the test-error table"
    assert int(mean.group(1)) == test["n"] and abs(float(mean.group(2)) - test["rel_l2_mean"]) < 6e-6
    assert int(check.group(1)) == test["check_n"] - 1 and abs(float(check.group(2)) - test["check_rel_l2_mean"]) < 6e-6


@pytest.mark.parametrize("name", MODELS)
def test_stated_test_error_holds_on_regenerated_samples(name):
    config = load_model(name)[1]
    test = config["test"]
    x, truth = make_samples(config["recipe"], TEST, range(test["check_n"]))
    errors = relative_l2(_predict(name, x), truth)
    # same samples, same weights: only solver / BLAS rounding differs from the card's measurement
    np.testing.assert_allclose(errors, test["check_rel_l2"], rtol=0.02, atol=1e-4)
    assert abs(errors.mean() - test["check_rel_l2_mean"]) <= 0.02 * test["check_rel_l2_mean"] + 1e-4
    # the re-checked subset is representative of the whole test set the card summarises
    assert errors.mean() < 2.0 * test["rel_l2_mean"]
    # a trained model: far better than predicting the training mean field
    assert errors.mean() < 0.2


@pytest.mark.parametrize("name", MODELS)
def test_test_split_differs_from_training_split(name):
    recipe = load_model(name)[1]["recipe"]
    x_train, _ = make_samples(recipe, TRAIN, [0])
    x_test, _ = make_samples(recipe, TEST, [0])
    assert not np.allclose(x_train, x_test)


def test_demo_runs_on_cpu(tmp_path, ort_lib, capsys):
    from turbofno.cli import main

    out = tmp_path / "demo-out"
    rc = main(["demo", "--model", "burgers", "--device", "cpu", "--batch", "2", "--threads", "1",
               "--min-time", "0.05", "--out", str(out)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "latency per sample" in printed and "plot:" in printed
    summary = json.loads((out / "summary.json").read_text())
    (result,) = summary
    assert result["spectral_nodes"] == 4
    assert result["ort_vs_torch_max_abs"] < 1e-4
    assert result["ort_vs_solver_rel_l2"] < 3 * result["card_test_rel_l2"] + 0.01
    png = pathlib.Path(result["plot"])
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "burgers.onnx").stat().st_size > 0


def test_demo_rejects_unknown_model(capsys):
    from turbofno.cli import main

    assert main(["demo", "--model", "no-such-model"]) == 2
    assert "unknown model" in capsys.readouterr().err


def test_demo_reports_a_missing_op_library(tmp_path, monkeypatch, capsys):
    from turbofno.cli import main

    monkeypatch.setenv("TURBOFNO_LIB_DIR", str(tmp_path))  # a folder without libturbofno_ort.so
    assert main(["demo", "--model", "burgers", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "library not found" in err and "pip install ." in err


def test_demo_reports_a_broken_checkpoint(tmp_path, monkeypatch, ort_lib, capsys):
    import shutil

    from turbofno.cli import main
    from turbofno.zoo import checkpoints

    broken = tmp_path / "ckpt" / "burgers"
    broken.mkdir(parents=True)
    shutil.copy(checkpoints.CHECKPOINT_DIR / "burgers" / "config.json", broken / "config.json")
    (broken / "model.pt").write_bytes(b"not a checkpoint")
    monkeypatch.setattr(checkpoints, "CHECKPOINT_DIR", tmp_path / "ckpt")
    assert main(["demo", "--model", "burgers", "--threads", "1", "--out", str(tmp_path / "out")]) == 1
    assert "demo of 'burgers' failed" in capsys.readouterr().err


def test_demo_device_cuda_without_cuda_provider_is_a_clear_error(capsys):
    import onnxruntime as ort

    from turbofno.cli import main

    if "CUDAExecutionProvider" in ort.get_available_providers():
        pytest.skip("onnxruntime has CUDA here")
    assert main(["demo", "--model", "burgers", "--device", "cuda"]) == 2
    assert "CUDAExecutionProvider" in capsys.readouterr().err
