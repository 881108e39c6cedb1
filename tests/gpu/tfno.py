"""ctypes wrapper of tests/gpu/tfno_capi.cpp: call core::launchCuda directly on torch CUDA tensors."""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

import torch

_DTYPES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}
_lib = None


def lib():
    global _lib
    if _lib is None:
        path = os.environ.get("TFNO_CAPI", str(Path(__file__).resolve().parents[2] / "build-gpu" / "libtfno_capi.so"))
        _lib = ctypes.CDLL(path)
        _lib.tfno_create.restype = ctypes.c_void_p
        _lib.tfno_create.argtypes = ([ctypes.c_int] + [ctypes.c_void_p] * 5 + [ctypes.c_int] * 3 +
                                     [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int])
        _lib.tfno_workspace_bytes.restype = ctypes.c_size_t
        _lib.tfno_workspace_bytes.argtypes = [ctypes.c_void_p]
        _lib.tfno_launch.restype = ctypes.c_int
        _lib.tfno_launch.argtypes = [ctypes.c_void_p] * 7 + [ctypes.c_size_t, ctypes.c_void_p]
        _lib.tfno_destroy.argtypes = [ctypes.c_void_p]
        _lib.tfno_set_algo.argtypes = [ctypes.c_int]
        _lib.tfno_set_pdl.argtypes = [ctypes.c_int]
        _lib.tfno_set_mix_ring.argtypes = [ctypes.c_int]
        _lib.tfno_set_mix_flat.argtypes = [ctypes.c_int]
        _lib.tfno_set_mix_flat_geometry.argtypes = [ctypes.c_int, ctypes.c_int]
        _lib.tfno_set_split_steps.argtypes = [ctypes.c_int]
        _lib.tfno_set_fft_pass.argtypes = [ctypes.c_int]
        _lib.tfno_set_fft_direct.argtypes = [ctypes.c_int]
        _lib.tfno_set_fft_long.argtypes = [ctypes.c_int]
        _lib.tfno_set_fft_col3d.argtypes = [ctypes.c_int]
        _lib.tfno_set_fft_plane.argtypes = [ctypes.c_int]
        _lib.tfno_set_pass_tc.argtypes = [ctypes.c_int]
        _lib.tfno_set_skip_tc.argtypes = [ctypes.c_int]
        _lib.tfno_set_skip_colaunch.argtypes = [ctypes.c_int]
        _lib.tfno_set_mix_c2r.argtypes = [ctypes.c_int]
    return _lib


# Kernel paths the GPU scripts can force: (plugins/cuda/plan.h Algorithm, tensor cores in the
# separable passes); -1: the planner's choice.
PATHS = {"auto": (-1, -1), "fused": (0, -1), "separable": (1, -1), "separable-fma": (1, 0), "separable-tc": (1, 1)}


def set_path(path: str) -> None:
    """Forces the algorithm of the following launches: 'auto' (the planner), 'fused' (fused-plane
    kernels) or 'separable' (per-axis passes; '-fma' / '-tc' also force their products onto fp32 FMA
    or 3xTF32 tensor cores). A forced algorithm that cannot run a shape falls back to the other one."""
    algo, tc = PATHS[path]
    lib().tfno_set_algo(algo)
    lib().tfno_set_pass_tc(tc)


def set_tuning(pdl: int = -1, mix_ring: int = -1, skip_tc: int = -1, mix_flat: int = -1, split_steps: int = -1,
               fft_pass: int = -1, fft_direct: int = -1, fft_long: int = -1, skip_colaunch: int = -1,
               mix_flat_geometry: tuple[int, int] = (0, 0), mix_c2r: int = -1, fft_col3d: int = -1,
               fft_plane: int = -1) -> None:
    """Tuning switches of the next launches: -1 the library's choice, 0 off, 1 on (tfno_capi.cpp).
    mix_ring: the tiled mixing kernel's weights through its cp.async ring (mixing.cuh) or, off, loaded directly.
    skip_tc: the fused layer's skip GEMM on tensor cores (3xTF32) or, off, the fp32 FMA kernel.
    mix_flat: the flat mixing kernel (mixing_flat.cuh) or, off, the tiled one (mixing.cuh).
    split_steps: at least this many k steps per split of the separable forward's last pass (-1: the planner's).
    fft_pass: the separable algorithm's FFT passes (fft_pass.cuh: last-axis R2C / C2R, leading-axis column
    FFTs) or, off, the DFT-as-GEMM passes (dft_pass.cuh).
    fft_direct: the row FFTs' first / last stage straight from x / to y, or (0) staged through shared memory.
    fft_long: the four-step FFT of 1D layers' long axes (fft_pass_long.cuh) whenever possible (1) or never (0).
    skip_colaunch: the fused layer's skip GEMM and a radix-2 R2C as one grid (skip_r2c_colaunch.cuh) where
    possible (1) or as two launches (0).
    mix_flat_geometry: the flat mixing kernel's (batch items per thread, warps along o * Kall + m), 1/2/4/8
    each, 0 the planner's.
    mix_c2r: the mixing inside a radix-2 C2R (mixing_c2r.cuh) where possible (1) or the mixing kernel (0).
    fft_col3d: column FFTs (fft_pass.cuh) on 3D layers' leading axes where the length allows (1) or the DFT
    passes (0).
    fft_plane: the plane kernels (fft_plane.cuh: a small 2D layer's two forward / two inverse passes as one kernel
    each) wherever possible (1; 256 / 1024: with that block size) or never (0)."""
    lib().tfno_set_pdl(pdl)
    lib().tfno_set_mix_ring(mix_ring)
    lib().tfno_set_mix_flat(mix_flat)
    lib().tfno_set_mix_flat_geometry(*mix_flat_geometry)
    lib().tfno_set_split_steps(split_steps)
    lib().tfno_set_fft_pass(fft_pass)
    lib().tfno_set_fft_direct(fft_direct)
    lib().tfno_set_fft_long(fft_long)
    lib().tfno_set_skip_tc(skip_tc)
    lib().tfno_set_skip_colaunch(skip_colaunch)
    lib().tfno_set_mix_c2r(mix_c2r)
    lib().tfno_set_fft_col3d(fft_col3d)
    lib().tfno_set_fft_plane(fft_plane)


def _i64(vals):
    return (ctypes.c_int64 * len(vals))(*vals)


def _i32(vals):
    return (ctypes.c_int32 * len(vals))(*vals)


class Layer:
    """One validated layer: Layer(x_shape, w_shape, has_bias, low, high, ...)(x, w, b, y).
    output_size: the op's output_size attribute (a resampling layer), or None; has_skip / activation:
    the fused layer (op version 2): a [Cout, Cin] skip weight passed at call time, core::Activation."""

    def __init__(self, x_shape, w_shape, has_bias, low, high, norm=0, separable=0, dtype=torch.float32, output_size=None,
                 has_skip=False, activation=0):
        cout = x_shape[1] if separable else w_shape[1]
        self.keep = [_i64(list(x_shape)), _i64(list(w_shape)), _i64([cout]),
                     _i32(list(low)), _i32(list(high)), _i32(list(output_size)) if output_size else None,
                     _i64([cout, x_shape[1]]) if has_skip else None]
        err = ctypes.create_string_buffer(512)
        self.h = lib().tfno_create(len(low), self.keep[0], self.keep[1], self.keep[2] if has_bias else None,
                                   self.keep[3], self.keep[4], norm, separable, _DTYPES[dtype], self.keep[5], self.keep[6],
                                   activation, err, 512)
        if not self.h:
            raise ValueError(err.value.decode())
        self.ws_bytes = lib().tfno_workspace_bytes(self.h)
        self.ws = torch.empty(max(self.ws_bytes, 16), dtype=torch.uint8, device="cuda")

    def __call__(self, x, w, b, y, stream=None, skip=None):
        s = torch.cuda.current_stream().cuda_stream if stream is None else stream
        rc = lib().tfno_launch(self.h, x.data_ptr(), w.data_ptr(), b.data_ptr() if b is not None else None,
                               skip.data_ptr() if skip is not None else None, y.data_ptr(), self.ws.data_ptr(),
                               self.ws_bytes, s)
        if rc != 0:
            raise RuntimeError(f"launchCuda failed with cudaError {rc}")
        return y

    def __del__(self):
        if getattr(self, "h", None):
            lib().tfno_destroy(self.h)
