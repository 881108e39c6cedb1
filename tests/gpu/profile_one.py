"""One warm launch of our layer at one shape, for `ncu` / compute-sanitizer:
python3 tests/gpu/profile_one.py B C H W m [f32|f16]"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tfno import Layer  # noqa: E402

B, C, H, W, m = map(int, sys.argv[1:6])
dt = torch.float16 if len(sys.argv) > 6 and sys.argv[6] == "f16" else torch.float32
x = torch.randn(B, C, H, W, device="cuda", dtype=dt)
w = (torch.randn(C, C, 2 * m, m, 2, device="cuda") / C).to(dt)
b = torch.randn(C, device="cuda", dtype=dt)
y = torch.empty_like(x)
layer = Layer(x.shape, w.shape, True, [m, m], [m, 0], dtype=dt)
for _ in range(2):
    layer(x, w, b, y)
torch.cuda.synchronize()
print("ok", float(y.float().abs().mean()))
