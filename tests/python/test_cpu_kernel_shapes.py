"""The CPU kernel through ORT on shapes that exercise its blocking and SIMD paths (plugins/cpu/):
full and partial GEMM register tiles, channel blocks, mixing mode/output blocks, several threads,
each instruction-set path (TURBOFNO_CPU_ISA), unaligned rows, and the paired last-axis transforms
(plugins/cpu/last_axis.h: long axes, several pair / row / column blocks). Reference: float64 numpy FFT.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np

import seeding
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from ortutil import rel_l2, session  # noqa: E402
from turbofno.reference import make_model, random_case, spectral_conv  # noqa: E402

FP32_TOL = 1e-5
FP16_TOL = 3e-3

# (batch, cin, cout, spatial, modes_low, modes_high, separable)
SHAPES = [
    (3, 40, 24, (1000,), [200], [0], 0),                 # 1D: channel-blocked GEMM, long rows
    (2, 20, 36, (96, 80), [12, 17], [12, 0], 0),        # 2D: partial column panels (2k = 34)
    (9, 6, 5, (33, 47), [7, 24], [6, 0], 0),            # odd sizes, Nyquist-free odd S_d, 9 batches
    (1, 70, 70, (64, 64), [16, 16], [16, 0], 0),        # Cin = Cout = 70: mixing groups of 4 + remainder
    (4, 12, 12, (64, 50), [16, 26], [16, 0], 1),        # separable, k = S_d/2 + 1 (Nyquist)
    (2, 5, 7, (20, 18, 22), [5, 4, 6], [4, 3, 0], 0),   # 3D
    (1, 3, 2, (9, 128, 130), [3, 20, 40], [2, 20, 0], 0),  # 3D, wide last axis
    (4, 8, 8, (4096,), [64], [0], 0),                   # 1D long axis, paired both ways, 4 t blocks
    (2, 3, 5, (6007,), [97], [0], 0),                   # 1D prime length, odd k
    (1, 2, 2, (2048,), [1025], [0], 0),                 # 1D every mode kept (Nyquist), wide inverse
    (2, 6, 4, (12, 10, 130), [3, 4, 24], [3, 4, 0], 0),  # 3D, paired last axis
]


def _run(lib, shape, threads, dtype=np.float32, seed=0):
    n, cin, cout, spatial, low, high, sep = shape
    rng = seeding.rng(seed)
    x, w, b = random_case(rng, spatial, low, high, batch=n, cin=cin, cout=cout, separable=sep, dtype=dtype)
    model = make_model(w, b, modes_low=low, modes_high=high, separable=sep)
    old = os.environ.get("TURBOFNO_NUM_THREADS")
    os.environ["TURBOFNO_NUM_THREADS"] = str(threads)  # read by the op on every run
    try:
        y = session(model, lib).run(None, {"x": x})[0]
    finally:
        if old is None:
            del os.environ["TURBOFNO_NUM_THREADS"]
        else:
            os.environ["TURBOFNO_NUM_THREADS"] = old
    ref = spectral_conv(x, w, b, modes_low=low, modes_high=high, separable=sep)
    return rel_l2(y, ref)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, (s[0], s[1], s[2]) + s[3])))
@pytest.mark.parametrize("threads", [1, 3])
def test_shapes_fp32(ort_lib, shape, threads):
    err = _run(ort_lib, shape, threads)
    assert err <= FP32_TOL, f"rel L2 {err:.3g}"


@pytest.mark.parametrize("shape", [SHAPES[1], SHAPES[5]], ids=["2d", "3d"])
def test_shapes_fp16(ort_lib, shape):
    err = _run(ort_lib, shape, 2, dtype=np.float16)
    assert err <= FP16_TOL, f"rel L2 {err:.3g}"


def test_repeated_runs_identical(ort_lib):
    """Same input, many runs and thread counts: bitwise identical output (no races, no stale state)."""
    n, cin, cout, spatial, low, high, sep = SHAPES[1]
    rng = seeding.rng(1)
    x, w, b = random_case(rng, spatial, low, high, batch=n, cin=cin, cout=cout, dtype=np.float32)
    sess = session(make_model(w, b, modes_low=low, modes_high=high), ort_lib)
    first = sess.run(None, {"x": x})[0]
    for threads in (1, 2, 4):
        os.environ["TURBOFNO_NUM_THREADS"] = str(threads)
        try:
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(None, {"x": x})[0], first)
        finally:
            del os.environ["TURBOFNO_NUM_THREADS"]


_ISA_SCRIPT = textwrap.dedent("""
    import sys
    sys.path[:0] = sys.argv[2:]
    import numpy as np
    import seeding
    from ortutil import rel_l2, session
    from turbofno.reference import make_model, random_case, spectral_conv
    worst = 0.0
    for spatial, low, high, cin, cout in [((37,), [11], [0], 9, 5), ((40, 36), [8, 12], [8, 0], 16, 24),
                                          ((7, 9, 12), [3, 2, 4], [2, 3, 0], 4, 5), ((4099,), [40], [0], 3, 2),
                                          ((1200,), [8], [0], 3, 2)]:
        x, w, b = random_case(seeding.rng(3), spatial, low, high, batch=2, cin=cin, cout=cout)
        y = session(make_model(w, b, modes_low=low, modes_high=high), sys.argv[1]).run(None, {"x": x})[0]
        worst = max(worst, rel_l2(y, spectral_conv(x, w, b, modes_low=low, modes_high=high)))
    print(worst)
""")


@pytest.mark.parametrize("isa", ["portable", "avx2", "avx512"])
def test_instruction_set_paths(ort_lib, isa):
    """Each kernel table (capped with TURBOFNO_CPU_ISA, read once per process) gives the same numbers.
    A path the CPU lacks falls back to the next one down, so this never fails for lack of AVX-512."""
    here = os.path.dirname(os.path.abspath(__file__))
    python_dir = os.path.join(os.path.dirname(os.path.dirname(here)), "python")
    env = dict(os.environ, TURBOFNO_CPU_ISA=isa, TURBOFNO_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", _ISA_SCRIPT, ort_lib, here, python_dir], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    err = float(out.stdout.strip().splitlines()[-1])
    assert err <= FP32_TOL, f"{isa}: rel L2 {err:.3g}"
