"""Run metadata shared by the benchmarks: date, machine (CPU model or GPU name), commit, versions."""
from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_name() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20)
        names = [line.strip() for line in out.stdout.splitlines() if line.strip()]
        return names[0] if out.returncode == 0 and names else None
    except (OSError, subprocess.SubprocessError):
        return None


def git_commit() -> str:
    # TURBOFNO_COMMIT wins: a tree copied to another machine (the GPU machine) may carry stale git metadata
    if os.environ.get("TURBOFNO_COMMIT"):
        return os.environ["TURBOFNO_COMMIT"]
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                               text=True).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("TURBOFNO_COMMIT", "unknown")


def _version(module: str) -> str | None:
    try:
        return __import__(module).__version__
    except Exception:  # noqa: BLE001 - a missing optional package is reported as None
        return None


def run_meta(device: str, **extra) -> dict:
    gpu = gpu_name() if device == "cuda" else None
    meta = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": device,
        "machine": f"GPU {gpu}" if gpu else f"CPU {cpu_model()} ({os.cpu_count()} logical CPUs)",
        "cpu": cpu_model(),
        "gpu": gpu,
        "commit": git_commit(),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "onnxruntime": _version("onnxruntime"),
        "onnx": _version("onnx"),
        "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    meta.update(extra)
    return meta
