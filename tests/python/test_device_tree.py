"""tests/gpu/device_tree.sh: the lean working tree for device sessions moves only committed evidence aside and
gives it back unchanged (run in a scratch git repository, not in the checkout)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tests" / "gpu" / "device_tree.sh"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / "tests" / "gpu" / "logs" / "s1").mkdir(parents=True)
    (r / "bench" / "results").mkdir(parents=True)
    shutil.copy(SCRIPT, r / "tests" / "gpu" / "device_tree.sh")
    (r / "tests" / "gpu" / "logs" / "s1" / "run.log").write_text("log\n")
    (r / "bench" / "results" / "table.md").write_text("| a |\n")
    (r / "plugins.txt").write_text("code\n")
    _git(r, "init", "-q")
    _git(r, "add", ".")
    _git(r, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return r


def _run(repo: Path, stash: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "tests/gpu/device_tree.sh", *args], cwd=repo, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "DEVICE_TREE_STASH": str(stash), "HOME": str(stash.parent)})


def test_lean_then_restore_gives_the_committed_tree_back(repo: Path, tmp_path: Path) -> None:
    stash = tmp_path / "stash"
    assert _run(repo, stash, "status").stdout.strip() == "whole"
    r = _run(repo, stash, "lean")
    assert r.returncode == 0, r.stderr
    assert not (repo / "tests" / "gpu" / "logs").exists() and not (repo / "bench" / "results").exists()
    assert (repo / "plugins.txt").exists() and (repo / "tests" / "gpu" / "device_tree.sh").exists()
    assert "restore before committing" in _run(repo, stash, "status").stdout
    # a second lean would overwrite the stash: refused
    again = _run(repo, stash, "lean")
    assert again.returncode != 0 and "restore" in again.stderr
    r = _run(repo, stash, "restore")
    assert r.returncode == 0, r.stderr
    assert _git(repo, "status", "--porcelain") == ""
    assert (repo / "bench" / "results" / "table.md").read_text() == "| a |\n"
    assert not stash.exists()


def test_lean_refuses_uncommitted_evidence(repo: Path, tmp_path: Path) -> None:
    (repo / "tests" / "gpu" / "logs" / "s1" / "new.log").write_text("not committed\n")
    r = _run(repo, tmp_path / "stash", "lean")
    assert r.returncode != 0 and "uncommitted" in r.stderr
    assert (repo / "tests" / "gpu" / "logs" / "s1" / "new.log").exists()
    assert (repo / "bench" / "results" / "table.md").exists()


def test_restore_refuses_to_overwrite_files_that_came_back(repo: Path, tmp_path: Path) -> None:
    stash = tmp_path / "stash"
    assert _run(repo, stash, "lean").returncode == 0
    _git(repo, "checkout", "--", "bench/results")  # the folder returned another way
    r = _run(repo, stash, "restore")
    assert r.returncode != 0 and "exists again" in r.stderr
    assert (stash / "tests" / "gpu" / "logs" / "s1" / "run.log").exists()  # nothing lost


def test_restore_without_lean_is_an_error(repo: Path, tmp_path: Path) -> None:
    r = _run(repo, tmp_path / "stash", "restore")
    assert r.returncode != 0 and "no lean tree" in r.stderr
