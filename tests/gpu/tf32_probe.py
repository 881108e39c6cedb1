"""Which PyTorch fp32 step of the neuraloperator-style layer is not fp32-exact on this GPU (rfftn,
the complex einsum, irfftn), under the legacy and the new TF32 switches. Prints rel-L2 vs float64."""
import torch

torch.manual_seed(0)
B, C, S, m = 8, 64, 128, 32
x = torch.randn(B, C, S, S, device="cuda")
w = torch.randn(C, C, m, m, dtype=torch.complex64, device="cuda") / C


def rel(a, b):
    return float((a.to(b.dtype) - b).abs().norm() / b.abs().norm())


def probe(label):
    X = torch.fft.rfft2(x)
    X64 = torch.fft.rfft2(x.double())
    e_fft = rel(X, X64)
    blk = X[:, :, :m, :m].contiguous()
    Y = torch.einsum("bixy,ioxy->boxy", blk, w)
    Y64 = torch.einsum("bixy,ioxy->boxy", blk.to(torch.complex128), w.to(torch.complex128))
    e_ein = rel(Y, Y64)
    Z = torch.fft.irfft2(Y, s=(S, S))
    Z64 = torch.fft.irfft2(Y.to(torch.complex128), s=(S, S))
    e_ifft = rel(Z, Z64)
    print(f"{label:58s} rfft2 {e_fft:.1e}  einsum {e_ein:.1e}  irfft2 {e_ifft:.1e}", flush=True)


print("torch", torch.__version__)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
probe("allow_tf32=False (legacy flags)")
print("float32_matmul_precision:", torch.get_float32_matmul_precision())
for attr in ("fp32_precision",):
    for mod, name in ((torch.backends.cuda.matmul, "cuda.matmul"), (torch.backends, "backends")):
        print(name, attr, getattr(mod, attr, "n/a"))
try:
    torch.backends.cuda.matmul.fp32_precision = "ieee"
    probe("cuda.matmul.fp32_precision='ieee'")
except Exception as e:  # noqa: BLE001
    print("fp32_precision not settable:", e)
torch.set_float32_matmul_precision("highest")
probe("set_float32_matmul_precision('highest')")
torch.backends.cuda.matmul.allow_tf32 = True
probe("allow_tf32=True (for contrast)")
