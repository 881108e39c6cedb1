// Planner of the separable algorithm: one truncated DFT pass per axis (dft_pass.h), the mixing
// kernel in between. Host-only and device-independent: a pure function of the shape (and, for the
// twiddle maps only, of modes_low), unit-tested on the CPU (tests/cpp/test_cuda_plan.cpp).
#pragma once

#include <cstddef>

#include "dft_pass.h"
#include "turbofno/params.h"

namespace turbofno {
namespace cuda {

// Workspace buffers a pass reads or writes. x and y are the layer's tensors.
enum class Buffer : int { kX = 0, kA = 1, kB = 2, kSpecIn = 3, kSpecOut = 4, kY = 5 };

struct PassStep {
    PassKind kind = PassKind::kC2C;
    DftPass pass;
    Buffer src = Buffer::kX, dst = Buffer::kY;
};

constexpr int kMaxPassSplit = 256;                    // partial spectra of the last forward pass
constexpr size_t kSplitBudgetBytes = 32u << 20;       // ... as long as they fit in this (or one spectrum)

struct SeparablePlan {
    int nFwd = 0, nInv = 0;
    PassStep fwd[3], inv[3];     // forward: last axis (R2C), then leading axes d-2 .. 0; inverse: 0 .. d-2, C2R
    int split = 1;               // partial spectra written by the last forward pass (summed before mixing)
    // > 0, 2D: fwd[0..1] (R2C, column FFT) run as one plane kernel, inv[0..1] (column inverse, C2R) as another
    // (fft_plane.cuh), with this many threads per block (kFftPlaneThreads, kFftPlaneWideThreads); the buffer
    // between the two passes is then unused
    int plane = 0;
    int64_t skipPoints = 0;      // fused layer with a skip weight: prod(S) points per channel, else 0
    size_t offA = 0, offB = 0, offSpecIn = 0, offSpecOut = 0, bytes = 0;
    bool supported = false;
    const char* whyNot = "";
};

// FFT passes (fft_pass.cuh, DftPass::fft): last axes of kFftMinLen..kFftMaxLen points with S / 2 =
// 2^a 3^b 5^c; a block holds fftLines lines of S reals, fftLines * S <= kFftLineBudget and its shared
// memory (lines and tables, fftSmemBytes) within 48 KB (one-line blocks: kFftSmemMax, fftSmemAllowed),
// fewer lines where the grid would have less than kFftTargetBlocks blocks.
constexpr int kFftMinLen = 8;
// 8192 points: one line per block (about 84 KB of shared memory with its tables, fftSmemAllowed).
constexpr int kFftMaxLen = 8192;
constexpr int kFftLineBudget = 8192;
constexpr int kFftTargetBlocks = 264;  // 2 blocks per SM on a 132-SM H100 / H200
// Power-of-two row FFT blocks of fewer complex values than this run the radix-2 kernel (fft_pass_radix2.cuh):
// at 128-1024 values per block it measured up to 2x faster than the Stockham kernel, at 2048 about equal.
constexpr int kFftRadix2Below = 2048;
// Column FFTs (complex leading-axis passes as FFTs, fft_pass.cuh): n = 2^a 3^b 5^c points, n <= 1024
// (at least 4 columns of 8 bytes per block: 32-byte rows), W * n <= kFftColumnPoints values per block.
constexpr int kFftColumnMaxLen = 1024;
constexpr int kFftColumnPoints = 4096;

// Long last axes of 1D layers as a four-step FFT (fft_pass_long.cuh): S = Na * Nb, Na = 2^a 3^b 5^c in
// [max(kFftLongNaPerBin kd, kFftLongMinNa), kFftLongWideMaxNa] (the smallest that divides S; else from 2 kd up
// to kFftLongMaxNa), S * kd < 2^31, W = 2 fftLines columns per block
// (a power of two in [16, 64] dividing Nb, W * Na <= 2 * kFftColumnPoints), at most kMaxPassSplit partial
// spectra (Nb / W) within the spectrum budget. Taken by default from kFftLongFrom points (no resampling), except
// where the row FFTs run and Na is not a power of two (the run-time column stages). Measured at f7948e6
// (tests/gpu/logs/fft_long_s10, tune_variants --set fft_long, ms per layer, four-step vs the row FFT / DFT passes):
// 4x32x65536 m64 0.063 vs 0.151, 32x64x8192 m32 0.109 vs 0.185, 4x64x8192 m64 0.027 vs 0.030, 1x32x8192 m16
// 0.014 vs 0.018, 32x64x4096 m32 0.075 vs 0.108, 4x64x4096 m128 0.023 vs 0.029; 32x64x2048 m32 0.061 vs 0.061,
// 32x64x1024 m16 0.048 vs 0.037, 8x64x7680 m64 (Na 160) 0.102 vs 0.080. setFftLongOverride forces it on / off.
constexpr int64_t kFftLongFrom = 4096;
constexpr int kFftLongMinNa = 32;
constexpr int64_t kFftLongNaPerBin = 4;
constexpr int64_t kFftLongWideMaxNa = 256;
constexpr int kFftLongMaxNa = 512;
struct FftLongShape {
    int Na = 0;  // 0: no four-step plan for this axis
    int W = 0;   // columns per block
};
FftLongShape fftLongShape(int64_t S, int64_t kd, int64_t lines, int64_t maxTiles);
// Test / benchmark hook for the four-step long-axis FFT: -1 the planner's, 0 never, 1 whenever possible.
void setFftLongOverride(int mode);
// Whether the separable algorithm runs the last axis of `shape` as the four-step long-axis FFT.
bool lastAxisUsesFftLong(const core::SpectralConvShape& shape);

// The plane kernels (fft_plane.cuh, SeparablePlan::plane): a 2D layer whose axes both run as FFTs without
// resampling, with a plane of kFftPlaneShapes (dft_pass.h), runs its two forward and two inverse passes as one
// kernel each, one plane per block, where the planes of the larger side (N Cin, N Cout) number at most
// kFftPlaneMaxPlanes; in blocks of kFftPlaneWideThreads below kFftPlaneWideBelow planes (one block per SM), else of
// kFftPlaneThreads. Measured at b4e7d0e (tests/gpu/logs/plane_s20, ms per layer, one kernel per pass / plane kernels
// in 256- / 1024-thread blocks): 1x8x48x48 m12 0.0190 / 0.0195 / 0.0133 (the fused plane 0.0167), 1x32x64x64 m16
// 0.0160 / 0.0171 / 0.0149, m6 0.0140 / 0.0150 / 0.0124, 1x32x32x32 m8 0.0135 / 0.0117 / 0.0109, 4x32x48x48 m12
// 0.0258 / 0.0241 / 0.0198, 8x32x64x64 m8 0.0341 / 0.0207 / 0.0283, 8x64x64x64 m16 0.0403 / 0.0369 / 0.0612;
// about equal at 1024 planes (32x32x64x64 m6 0.0461 / 0.0456, 32x32x48x48 m6 0.0559 / 0.0561) and slower with a
// skip there (the fused layer, skip_tc_bench at d1da85a: 32x32x64x64 m12 0.0784 / 0.0818), slower at 2048 (32x64x64x64
// m6 0.0853 / 0.0903). The fused layer at 1..128 planes: as fast or faster (1x32x64x64 m12 0.0201 / 0.0196, 4x32x64x64
// m6 0.0282 / 0.0240, 1x8x48x48 m12 0.0246 / 0.0198), although the skip GEMM then loses its co-launch with a radix-2 R2C.
constexpr int64_t kFftPlaneMaxPlanes = 512;
constexpr bool fftPlanePays(int64_t planes) { return planes <= kFftPlaneMaxPlanes; }
constexpr int64_t kFftPlaneWideBelow = 132;
// Test / benchmark hook for the plane kernels: -1 the planner's rule, 0 never, 1 wherever possible (the planner's
// block size), kFftPlaneThreads / kFftPlaneWideThreads: wherever possible with that block size.
void setFftPlaneOverride(int mode);

// Tile rows for a pass of `kind` with M output rows (a planner rule, see plan_separable.cpp).
int passTileM(PassKind kind, int M);
// Test / benchmark hook: at least this many k steps per split of the last forward pass (<= 0: the
// planner's: 1 for 1D layers, 4 otherwise).
void setSplitStepsOverride(int steps);
// Whether the separable algorithm runs the last axis of `shape` as FFT passes (fftLength, kept bins
// within 0..S/2, no resampling; setFftPassOverride).
bool lastAxisUsesFft(const core::SpectralConvShape& shape);
// Whether a complex pass over an axis of n points runs as a column FFT: kFftMinLen <= n <=
// kFftColumnMaxLen and n = 2^a 3^b 5^c (the planner also needs a 2D layer and no resampling of that axis).
bool fftColumnLength(int64_t n);
// Long last axes with few kept bins: the DFT-GEMM passes (O(S kd) per line) measured faster than the row
// FFTs (O(S log S), a larger constant). From kFftFewBinsFrom points the row FFTs need kd >= 24 bins (up to
// 2048 points) or kd >= 48 (longer). Measured on 16c4125 + the two-level twiddle tables (tests/gpu/logs/fft_long_s8, tune_variants
// --set fft, ms per layer, DFT vs FFT): 32x64x1024 m16 0.036 vs 0.041, m32 0.051 vs 0.045; 32x64x2048 m32 0.070
// vs 0.060; 32x64x4096 m32 0.108 vs 0.154; 32x64x8192 m32 0.188 vs 0.220; 1x32x8192 m16 0.019 vs 0.024;
// 4x64x8192 m64 0.050 vs 0.032; 4x64x4096 m128 0.058 vs 0.030; 8x64x7680 m64 0.086 vs 0.087.
constexpr int64_t kFftFewBinsFrom = 1024;
bool fftRowsPay(int64_t S, int64_t kd);
// Whether the FFT passes take a last axis of S points: kFftMinLen <= S <= kFftMaxLen and S a power of
// two or S = 2 * 2^a 3^b 5^c.
bool fftLength(int64_t S);
// The FFT's stages for a complex length n2 = 2^a 3^b 5^c (DftPass::fftRadices: 4-bit radix codes, first
// stage lowest, fftRadixOf): a power of two as maxRadix (16, 8 or 4; the planner caps it by the block's
// points) as often as it divides and then one smaller power of two;
// otherwise the 3s, then the 5s, then the 4s, a single 2 last (odd radices first: their p = 1 writes are
// conflict-free unpadded; 3s before 5s had fewer bank conflicts at 180, 360, 720 points). 0 for n2 < 2,
// another prime factor or (not a power of two) more than 7 stages.
int fftStages(int64_t n2, int maxRadix = 16);
// Test / benchmark hook for the FFT passes: -1 the planner's choice (whenever possible), 0 never,
// 1 whenever possible.
void setFftPassOverride(int mode);
// Test / benchmark hook for the column FFTs on the leading axes of 3D layers (kFftColumns3dDefault): -1 the
// planner's, 0 never (DFT passes), 1 wherever the length allows.
void setFftColumn3dOverride(int mode);
// Test / benchmark hook for the row FFTs' first / last stage (DftPass::fftDirect): -1 the planner's,
// 0 staged through shared memory, 1 direct.
void setFftDirectOverride(int mode);
// Whether a pass of `kind` runs its products on tensor cores (3xTF32) or fp32 FMA (a planner rule).
bool passUsesTensorCores(PassKind kind);

// The plan for a validated shape; `attrs` may be null (sizes only: twiddle maps then assume all
// leading modes are low and the scale is that of norm = backward, which changes no size).
// Resampling layers (output size T != S, docs/op.md "Output size") run their inverse passes at T.
SeparablePlan planSeparable(const core::SpectralConvShape& shape, const core::SpectralConvAttrs* attrs);

// Workspace bytes of planSeparable(shape): a product of sizes per buffer, hence monotone.
size_t separableWorkspaceBytes(const core::SpectralConvShape& shape);

}  // namespace cuda
}  // namespace turbofno
