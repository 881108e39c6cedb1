// The separable algorithm's launches for one element type: forward DFT passes, mixing, inverse DFT
// passes (plan_separable.h; the mixing inside the C2R where Plan::mixInC2R), all on `stream`, no host
// synchronisation.
#pragma once

#include <cuda_runtime.h>

#include "dft_pass.cuh"
#include "fft_pass.cuh"
#include "fft_pass_long.cuh"
#include "fft_plane.cuh"
#include "mixing.cuh"
#include "plan.h"
#include "skip_gemm.cuh"
#include "skip_r2c_colaunch.cuh"
#include "smem_limit.h"

namespace turbofno {
namespace cuda {

template <PassKind KIND, int BM, typename T>
cudaError_t launchPassTile(const DftPass& p, const void* src, void* dst, const T* bias, cudaStream_t stream) {
    constexpr int BN = PassTile<BM>::BN;
    const dim3 grid(static_cast<unsigned>((static_cast<int64_t>(p.N) + BN - 1) / BN), static_cast<unsigned>((p.M + BM - 1) / BM),
                    static_cast<unsigned>((p.K + p.kPerSplit - 1) / p.kPerSplit));
    if constexpr (BM >= 32) {  // 16-row tiles run on tensor cores as 32 (launchPass)
        if (p.tensorCores) return launchKernel(dftPassKernel<KIND, BM, T, true>, grid, dim3(kPassThreads), 0, stream, p, src, dst, bias);
    }
    return launchKernel(dftPassKernel<KIND, BM, T, false>, grid, dim3(kPassThreads), 0, stream, p, src, dst, bias);
}

// One pass: dispatch on its tile rows (passTileM's values: 16, 32 for real passes, up to 64 for C2C).
// The tensor-core variant runs 16-row tiles as 32 (a 16-row tile's 256 columns would hold twice the
// registers for the next step's loads; the padded rows hold zero twiddles, no sincos).
template <PassKind KIND, typename T>
cudaError_t launchPass(const DftPass& p, const void* src, void* dst, const T* bias, cudaStream_t stream) {
    if (p.tensorCores && p.tileM == 16) {
        DftPass q = p;
        q.tileM = 32;
        return launchPass<KIND, T>(q, src, dst, bias, stream);
    }
    switch (p.tileM) {
        case 16: return launchPassTile<KIND, 16, T>(p, src, dst, bias, stream);
        case 32: return launchPassTile<KIND, 32, T>(p, src, dst, bias, stream);
        default:
            if constexpr (KIND == PassKind::kC2C) {
                if (p.tileM == 64) return launchPassTile<KIND, 64, T>(p, src, dst, bias, stream);
            }
            return cudaErrorInvalidConfiguration;
    }
}

// dft_c2c.cu: the complex passes do not depend on the element type, so they are compiled once.
cudaError_t launchC2CPass(const DftPass& p, const void* src, void* dst, cudaStream_t stream);
cudaError_t launchSumPartials(float2* spec, int64_t elems, int split, cudaStream_t stream);

template <typename T>
cudaError_t launchSeparable(const Plan& plan, const void* x, const void* weight, const void* bias, const void* skipWeight,
                            void* y, void* workspace, cudaStream_t stream) {
    const SeparablePlan& sp = plan.sep;
    char* ws = static_cast<char*>(workspace);
    auto buffer = [&](Buffer b) -> void* {
        switch (b) {
            case Buffer::kX: return const_cast<void*>(x);
            case Buffer::kA: return ws + sp.offA;
            case Buffer::kB: return ws + sp.offB;
            case Buffer::kSpecIn: return ws + sp.offSpecIn;
            case Buffer::kSpecOut: return ws + sp.offSpecOut;
            case Buffer::kY: return y;
        }
        return nullptr;
    };
    auto run = [&](const PassStep& st) -> cudaError_t {
        switch (st.kind) {
            case PassKind::kR2C:
                if (st.pass.fftLongCols)
                    return launchFftLongPass<PassKind::kR2C, T>(st.pass, buffer(st.src), buffer(st.dst), nullptr, stream);
                if (st.pass.fft) return launchFftPass<PassKind::kR2C, T>(st.pass, buffer(st.src), buffer(st.dst), nullptr, stream);
                return launchPass<PassKind::kR2C, T>(st.pass, buffer(st.src), buffer(st.dst), nullptr, stream);
            case PassKind::kC2C: return launchC2CPass(st.pass, buffer(st.src), buffer(st.dst), stream);
            case PassKind::kC2R:
                if (st.pass.mixCin > 0)  // the mixing inside the C2R (Plan::mixInC2R): src is the forward spectrum
                    return launchFftRadix2MixC2R<T>(st.pass, static_cast<const float2*>(buffer(st.src)), static_cast<const T*>(weight),
                                                    static_cast<T*>(buffer(st.dst)), static_cast<const T*>(bias), stream);
                if (st.pass.fftLongCols)
                    return launchFftLongPass<PassKind::kC2R, T>(st.pass, buffer(st.src), buffer(st.dst), static_cast<const T*>(bias),
                                                                stream);
                if (st.pass.fft)
                    return launchFftPass<PassKind::kC2R, T>(st.pass, buffer(st.src), buffer(st.dst), static_cast<const T*>(bias), stream);
                return launchPass<PassKind::kC2R, T>(st.pass, buffer(st.src), buffer(st.dst), static_cast<const T*>(bias), stream);
        }
        return cudaErrorInvalidValue;
    };
    cudaError_t err;
    // the fused layer's skip first: the C2R epilogue adds the spectral part to it in place; beside the
    // first forward pass where the planner co-launches them (skip_r2c_colaunch.cuh)
    int firstFwd = 0;
    if (plan.skipCoLaunch) {
        if ((err = launchSkipAndR2c<T>(sp.fwd[0].pass, static_cast<const T*>(x), static_cast<float2*>(buffer(sp.fwd[0].dst)),
                                       static_cast<const T*>(skipWeight), static_cast<T*>(y), plan.g.N, plan.g.Cin, plan.g.Cout,
                                       sp.skipPoints, stream)) != cudaSuccess)
            return err;
        firstFwd = 1;
    } else if (sp.skipPoints > 0 && (err = launchSkipGemm<T>(x, skipWeight, y, plan.g.N, plan.g.Cin, plan.g.Cout, sp.skipPoints,
                                                             plan.skipTc, stream)) != cudaSuccess) {
        return err;
    }
    if (sp.plane) {  // the R2C and the column pass as one kernel (fft_plane.cuh)
        if ((err = launchFftPlaneForward<T>(sp.plane, sp.fwd[0].pass, sp.fwd[1].pass, static_cast<const T*>(x),
                                            static_cast<float2*>(buffer(sp.fwd[1].dst)), stream)) != cudaSuccess)
            return err;
        firstFwd = sp.nFwd;
    }
    for (int i = firstFwd; i < sp.nFwd; ++i)
        if ((err = run(sp.fwd[i])) != cudaSuccess) return err;

    if ((err = launchSumPartials(static_cast<float2*>(buffer(Buffer::kSpecIn)), sp.fwd[sp.nFwd - 1].pass.cSplitStride, sp.split,
                                 stream)) != cudaSuccess)
        return err;
    // mixing (plan.g.split == 1 here: the partials are summed), unless the C2R does it (Plan::mixInC2R)
    if (!plan.mixInC2R &&
        (err = launchMixing<T>(plan, static_cast<const float2*>(buffer(Buffer::kSpecIn)), static_cast<const T*>(weight),
                               static_cast<float2*>(buffer(Buffer::kSpecOut)), stream)) != cudaSuccess)
        return err;

    if (sp.plane)  // the column inverse and the C2R as one kernel (with the mixing inside where Plan::mixInC2R)
        return launchFftPlaneInverse<T>(sp.plane, sp.inv[0].pass, sp.inv[1].pass, static_cast<const float2*>(buffer(sp.inv[0].src)),
                                        static_cast<const T*>(weight), static_cast<T*>(buffer(sp.inv[1].dst)),
                                        static_cast<const T*>(bias), stream);
    for (int i = 0; i < sp.nInv; ++i)
        if ((err = run(sp.inv[i])) != cudaSuccess) return err;
    return cudaSuccess;
}

}  // namespace cuda
}  // namespace turbofno
