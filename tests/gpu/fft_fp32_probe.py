"""Why PyTorch's fp32 spectral layer on CUDA is ~1e-2 away from float64 at some sizes (gpu_bench's
'torch fp32' error column; whole-model differences against PyTorch CUDA): per step of the layer,
rel-L2 of fp32 against float64 on the same input, under the TF32 switches.

Seen on the H200 (torch 2.11, 8x64x128x128, 32 modes): rfft2 and the complex einsum are fp32-exact
(~2e-7, TF32 off); irfft2 of the mixed spectrum is 8.9e-2 off. The mixed spectrum is not
Hermitian-consistent on the last axis's k = 0 column (Y[k1, 0] != conj(Y[-k1, 0])), and cuFFT's fp32
and fp64 C2R transforms resolve that ambiguity differently. With the spectrum projected to a
Hermitian-consistent one first, fp32 and fp64 agree (~1e-7): the difference is a C2R convention, not
precision. Our kernel and PyTorch CPU (pocketfft) and cuFFT fp64 take the same convention.
"""
import torch

torch.manual_seed(0)
B, C, S, m = 8, 64, 128, 32
x = torch.randn(B, C, S, S, device="cuda")
w = torch.randn(C, C, m, m, dtype=torch.complex64, device="cuda") / C


def rel(a, b):
    return float((a.to(b.dtype) - b).abs().norm() / b.abs().norm())


def probe(label):
    X = torch.fft.rfft2(x)
    e_fft = rel(X, torch.fft.rfft2(x.double()))
    blk = X[:, :, :m, :m].contiguous()
    Y = torch.einsum("bixy,ioxy->boxy", blk, w)
    e_ein = rel(Y, torch.einsum("bixy,ioxy->boxy", blk.to(torch.complex128), w.to(torch.complex128)))
    e_ifft = rel(torch.fft.irfft2(Y, s=(S, S)), torch.fft.irfft2(Y.to(torch.complex128), s=(S, S)))
    # the same spectrum made Hermitian-consistent (round trip through a real signal in float64)
    Yh = torch.fft.rfft2(torch.fft.irfft2(Y.to(torch.complex128), s=(S, S)))
    e_herm = rel(torch.fft.irfft2(Yh.to(torch.complex64), s=(S, S)), torch.fft.irfft2(Yh, s=(S, S)))
    cpu = rel(torch.fft.irfft2(Y.cpu(), s=(S, S)), torch.fft.irfft2(Y.to(torch.complex128), s=(S, S)).cpu())
    print(f"{label:42s} rfft2 {e_fft:.1e} einsum {e_ein:.1e} irfft2 {e_ifft:.1e} irfft2(Hermitian) {e_herm:.1e} "
          f"irfft2 on CPU fp32 {cpu:.1e}", flush=True)


print("torch", torch.__version__, torch.cuda.get_device_name())
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
probe("TF32 off (allow_tf32=False)")
torch.backends.cuda.matmul.allow_tf32 = True
probe("TF32 on (for contrast)")
