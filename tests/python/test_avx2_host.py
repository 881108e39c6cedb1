"""bench/avx2_host: a process run through it sees no AVX-512 (numpy's dispatch as witness), and a real
segmentation fault still reaches the application's handler (Python's faulthandler) and kills it."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "bench" / "avx2_host" / "run.sh"


def _cpu_flags() -> set:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


needs_fault = pytest.mark.skipif("cpuid_fault" not in _cpu_flags(), reason="CPU / kernel without CPUID faulting")


def _run(code: str, *py_args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, CPUID_AVX2_QUIET="1")
    return subprocess.run(["bash", str(RUN), sys.executable, *py_args, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)


FEATURES = "import numpy as np; f = np._core._multiarray_umath.__cpu_features__; print(f['AVX512F'], f['AVX2'])"


@needs_fault
def test_avx512_hidden_avx2_kept():
    native = subprocess.run([sys.executable, "-c", FEATURES], capture_output=True, text=True, check=True).stdout.split()
    shimmed = _run(FEATURES)
    assert shimmed.returncode == 0, shimmed.stderr
    avx512, avx2 = shimmed.stdout.split()
    assert avx512 == "False"
    assert avx2 == native[1]


@needs_fault
def test_segfault_still_reaches_faulthandler():
    r = _run("import ctypes; ctypes.string_at(0)", "-X", "faulthandler")
    assert r.returncode == -11
    assert "Fatal Python error: Segmentation fault" in r.stderr


def test_refuses_without_cpuid_fault_flag_or_runs():
    """Without the flag the wrapper refuses with a clear message (exit 3); with it, commands run."""
    r = _run("print('ran')")
    if "cpuid_fault" in _cpu_flags():
        assert r.returncode == 0 and r.stdout.strip() == "ran", r.stderr
    else:
        assert r.returncode == 3 and "cpuid_fault" in r.stderr
