"""Warm launches of our layer at one shape, for `ncu` / compute-sanitizer:
python3 tests/gpu/profile_one.py B C S_1[xS_2[xS_3]] m [f32|f16|bf16] [auto|fused|separable]
(m kept frequencies per corner block on leading axes, k = m on the last axis).
TFNO_PROFILE_FFT_PASS=0|1 forces the separable last-axis passes onto the DFT GEMM / the FFT (fft_pass.cuh)."""
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tfno import Layer, set_path, set_tuning  # noqa: E402

B, C = int(sys.argv[1]), int(sys.argv[2])
S = [int(v) for v in sys.argv[3].split("x")]
m = int(sys.argv[4])
dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[sys.argv[5] if len(sys.argv) > 5 else "f32"]
set_path(sys.argv[6] if len(sys.argv) > 6 else "auto")
set_tuning(fft_pass=int(os.environ.get("TFNO_PROFILE_FFT_PASS", "-1")))
d = len(S)
K = [2 * m] * (d - 1) + [m]
x = torch.randn(B, C, *S, device="cuda", dtype=dt)
w = (torch.randn(C, C, *K, 2, device="cuda") / C).to(dt)
b = torch.randn(C, device="cuda", dtype=dt)
y = torch.empty_like(x)
layer = Layer(x.shape, w.shape, True, [m] * d, [m] * (d - 1) + [0], dtype=dt)
for _ in range(2):
    layer(x, w, b, y)
torch.cuda.synchronize()
print("ok", float(y.float().abs().mean()))
