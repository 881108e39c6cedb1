// Launch plan of the fused CUDA layer: how the problem is cut into the three kernels, and where the
// two small kept-mode spectra live in the workspace. Host-only and device-independent, so that
// cudaWorkspaceBytes (called by adapters at build/setup time) and launchCuda agree exactly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plan_separable.h"
#include "turbofno/params.h"

namespace turbofno {
namespace cuda {

constexpr int kThreads = 128;  // fused-plane kernels run 128-thread blocks (separable passes: dft_pass.cuh)
constexpr int kTile = 4;       // register tile edge (modes or rows per thread)
constexpr int kTargetBlocks = 264;  // ~2 blocks per SM on an H100/H200: below this, split work further
constexpr int kMaxSplit = 8;        // forward row split (partial spectra summed by the mixing kernel)
constexpr size_t kSmemBudget = 96 * 1024;
static_assert(kFftSmemMax == kSmemBudget, "one-line row FFT blocks opt in to the same budget (dft_pass.h)");
constexpr int kMixMaxFlatBatch = 8;        // mixing_flat.cuh: batch items per thread
constexpr size_t kMixFlatMaxWeightBytes = size_t{16} << 20;  // flat mixing below this many fp32 weight bytes
constexpr int kMixRingDepth = 8;           // mixing weight ring: input channels in flight per thread (mixing.cuh)
// Shared memory of that ring: depth x 2 output channels x threads x one complex (8 B, any element type).
constexpr size_t mixRingBytes(int threads) { return static_cast<size_t>(kMixRingDepth) * 2 * threads * 8; }  // dynamic shared memory per block, every targeted arch (sm_86/89: 99 KB)

// The view the kernels take of a d-dimensional problem: every plane (n, c) is A "rows" of length Sd
// (the last axis); the d-1 leading axes are flattened into the row index. Leading axis j keeps
// frequencies 0..p[j]-1 and S[j]-(K[j]-p[j])..S[j]-1; the last axis keeps 0..kd-1.
struct Geometry {
    int lead = 0;          // number of leading (full complex) axes: d - 1
    int S[2] = {1, 1};     // leading sizes
    int p[2] = {1, 1};     // low modes per leading axis
    int K[2] = {1, 1};     // kept modes per leading axis
    int Sd = 1, kd = 1;    // last axis size and kept (one-sided) modes
    int A = 1;             // rows per plane: prod S[0..lead)
    int KL = 1;            // kept leading modes: prod K[0..lead)
    int Kall = 1;          // KL * kd: kept modes per plane (spectrum index m = kl * kd + k)
    int N = 1, Cin = 1, Cout = 1;
    int separable = 0;
    int hasBias = 0;
    int addY = 0;          // the fused layer: y holds the skip (skip_gemm.cuh); the inverse adds to it
    int activation = 0;    // core::Activation applied last by the inverse
    float scale = 1.f;     // 1 / prod(S): forward and inverse scales of every norm multiply to this

    // forward kernel: grid (N*Cin, tilesKL*tilesK3, split)
    int fGk3 = 1;          // k-groups per block (threads = fGk3 * fGkl); block covers 4*fGk3 x 4*fGkl modes
    int fGkl = 1;
    int fTilesK3 = 1, fTilesKL = 1;
    int fRows = 1;         // rows per chunk staged in shared memory
    int split = 1;         // row ranges per plane, each writing its own partial spectrum
    int rowsPerSplit = 1;

    // inverse kernel: grid (N*Cout, ceil(A / iRows))
    int iGk3 = 1;          // k-groups for the leading-axis inverse
    int iRows = 1;         // output rows per block
    int iKlChunk = 1;      // leading modes staged in shared memory at once
    int pairLead = 0;      // d == 2: inverse pairs frequencies +f / -f (P/M tables, pairSlots x kd each)
    int pairSlots = 0;     // max(p, q + 1): slots f = 0.. of the paired table
    int twTables = 1;      // 1: twiddle tables in shared memory, 0: computed on the fly (huge axes)

    // mixing kernel: grid ceil(Kall/32) * ceil(Cout/(2*mixWarps)) * ceil(N/mixBatch), 32*mixWarps threads; stages
    // mixBatch x mixIn spectra per step
    int mixBatch = 1, mixIn = 1;
    int mixWarps = 8;
    int mixRing = 0;       // 1: weights stream through a per-thread cp.async ring (mixing.cuh)
    // mixing_flat.cuh (small weight tensors): lanes over o * Kall + m; 0 = the tiled kernel. Warps
    // along om (1, 2, 4 or 8; the other warps of the 8 split the input channels); batch chunk mixBatch.
    int mixFlatOmWarps = 0;
};

// The algorithms a layer can run with (chosen per shape by chooseAlgorithm in plan.cpp):
//  kFusedPlane: forward.cuh / mixing.cuh / inverse.cuh, a whole (n, c) plane per block,
//               both axes of a 2D plane in one kernel; needs a last-axis row in shared memory;
//  kSeparable:  one truncated DFT pass per axis (dft_pass.cuh) + mixing.cuh, any length.
enum class Algorithm : int { kFusedPlane = 0, kSeparable = 1 };

// For tests and benchmarks (tests/gpu/tfno_capi.cpp): -1 the planner's choice, 0 fused plane,
// 1 separable (a forced algorithm that cannot run the shape falls back to the other one).
void setAlgorithmOverride(int mode);
// Likewise for the mixing kernel's weight ring: -1 the planner's choice, 0 off, 1 on.
void setMixRingOverride(int mode);
// Likewise for the flat mixing kernel (mixing_flat.cuh) of small weight tensors.
void setMixFlatOverride(int mode);
// ... and its batch items per thread / warps along o * Kall + m (1, 2, 4 or 8 each; 0: the planner's).
void setMixFlatGeometryOverride(int batch, int omWarps);
// Likewise for the separable passes' tensor cores (DftPass::tensorCores).
void setPassTcOverride(int mode);
// Likewise for the fused layer's skip GEMM: -1 the planner's choice (tensor cores), 0 the fp32 FMA
// kernel, 1 tensor cores (skip_gemm.cuh), 2 / 3 tensor cores with the 32- / 128-point tile forced
// (skip_gemm_tc.cuh).
void setSkipTcOverride(int mode);
int skipTcTileOverride();  // 0 (the launcher's choice), 32 or 128: from setSkipTcOverride(2 / 3)
// Likewise for launching the skip GEMM and the first forward pass as one grid (skip_r2c_colaunch.cuh):
// -1 the planner's choice, 0 two launches, 1 one launch where the shape allows it.
void setSkipCoLaunchOverride(int mode);
// Likewise for the mixing inside the C2R (Plan::mixInC2R, mixing_c2r.cuh): -1 the planner's choice, 0 the
// mixing kernel, 1 inside the C2R where the shape allows it.
void setMixInC2ROverride(int mode);

struct Plan {
    Algorithm algo = Algorithm::kSeparable;
    SeparablePlan sep;             // the separable algorithm's passes (always planned)
    bool fusedSupported = false;   // the fused-plane kernels can run this shape
    Geometry g;                    // fused plane (and the mixing kernel's fields for both algorithms)
    size_t specInOffset = 0, specInBytes = 0;    // [split][N][Cin][Kall] float2 (forward partials)
    size_t specOutOffset = 0, specOutBytes = 0;  // [N][Cout][Kall] float2 (mixed)
    size_t workspaceBytes = 0;
    size_t fwdSmem = 0, invSmem = 0, mixSmem = 0; // dynamic shared memory per block
    bool skipTc = true;            // the skip GEMM on tensor cores (3xTF32), else fp32 FMA (skip_gemm.cuh)
    bool skipCoLaunch = false;     // the skip GEMM and the radix-2 R2C share one launch (skip_r2c_colaunch.cuh)
    bool mixInC2R = false;         // the radix-2 C2R mixes its own bins (mixing_c2r.cuh): no mixing kernel
    bool supported = false;        // the chosen algorithm can run this shape
    const char* whyNot = "";
};

// 2D shapes run separable from this many kept last-axis modes or this plane size on (plan.cpp).
constexpr int64_t kSeparableFromModes = 40;
constexpr int64_t kSeparableFromPlane = 300 * 300;
// ... and, where the last axis runs as FFT passes, from more than this many rows in all (N * Cin * S_1)
// on (chooseAlgorithm).
constexpr int64_t kFftFusedMaxRows = 512;
// Whether the planner co-launches a fused layer's skip GEMM with a radix-2 R2C (Plan::skipCoLaunch).
constexpr bool kSkipCoLaunchDefault = true;
// Whether the planner moves the mixing into a radix-2 C2R (Plan::mixInC2R) where the flat mixing kernel
// (or separable weights) would run it and each thread sums at most kMixInC2RMaxChain input channels: small
// 1D layers at small batch (plan.cpp, planMixInC2R).
constexpr bool kMixInC2RDefault = true;
constexpr int kMixInC2RMaxChain = 16;
// ... and on the plane kernels (2D, SeparablePlan::plane): the inverse plane kernel mixes its own bins where the
// layer's whole channel mixing is at most this many complex multiply-adds (N Cout Cin K kd; N Cout K kd with
// separable weights). Measured: plan.cpp, planMixInPlane. TFNO_TEST_MIX_C2R / setMixInC2ROverride force either way.
constexpr int64_t kMixInPlaneMaxMacs = int64_t(1) << 22;

// The planner's rule: which algorithm runs a shape both can run (a pure function, unit-tested). `sep`:
// the shape's separable plan where the caller has made it (makePlan), else it is made here when the rule
// needs it (whether the plane kernels take the shape).
Algorithm chooseAlgorithm(const core::SpectralConvShape& shape, const SeparablePlan* sep = nullptr);

// Fills `plan` from a validated shape and the node's attributes (attrs may be null when only the
// workspace size is wanted: it does not depend on them). Never fails for a shape that inferShape
// accepted except for the size limit (a last-axis row must fit in shared memory): supported/whyNot.
Plan makePlan(const core::SpectralConvShape& shape, const core::SpectralConvAttrs* attrs);

// Monotone upper bound of makePlan(s).workspaceBytes over every shape s <= maxShape (each size).
size_t workspaceBound(const core::SpectralConvShape& maxShape);

}  // namespace cuda
}  // namespace turbofno
