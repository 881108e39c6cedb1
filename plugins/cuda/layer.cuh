// The three launches of one layer for a fixed element type and rank (instantiated in inst_*.cu).
#pragma once

#include <cuda_runtime.h>

#include <atomic>

#include "forward.cuh"
#include "inverse.cuh"
#include "kernels.h"
#include "mixing.cuh"
#include "separable_layer.cuh"
#include "smem_limit.h"

namespace turbofno {
namespace cuda {

template <typename T, int LEAD>
cudaError_t launchLayer(const Plan& plan, const void* x, const void* weight, const void* bias, const void* skipWeight,
                        void* y, void* workspace, cudaStream_t stream) {
    if (plan.algo == Algorithm::kSeparable) return launchSeparable<T>(plan, x, weight, bias, skipWeight, y, workspace, stream);
    const Geometry& g = plan.g;
    float2* specIn = reinterpret_cast<float2*>(static_cast<char*>(workspace) + plan.specInOffset);
    float2* specOut = reinterpret_cast<float2*>(static_cast<char*>(workspace) + plan.specOutOffset);
    cudaError_t err;

    const int64_t fwdBlocks = static_cast<int64_t>(g.N) * g.Cin * g.fTilesK3 * g.fTilesKL;
    const int64_t invBlocks = static_cast<int64_t>(g.N) * g.Cout * ((g.A + g.iRows - 1) / g.iRows);
    constexpr int64_t kMaxGridX = 2147483647;
    if (fwdBlocks > kMaxGridX || invBlocks > kMaxGridX || g.split > 65535) return cudaErrorInvalidConfiguration;

    // the fused layer's skip first: the inverse kernel adds the spectral part to it in place (g.addY)
    if (g.addY && (err = launchSkipGemm<T>(x, skipWeight, y, g.N, g.Cin, g.Cout, static_cast<int64_t>(g.A) * g.Sd, plan.skipTc,
                                           stream)) != cudaSuccess)
        return err;
    static std::atomic<unsigned long long> fwdDone{0}, invDone{0};
    if ((err = allowSmem(spectralForwardKernel<T, LEAD>, plan.fwdSmem, fwdDone)) != cudaSuccess) return err;
    if ((err = launchKernel(spectralForwardKernel<T, LEAD>, dim3(static_cast<unsigned>(fwdBlocks), g.split), dim3(kThreads),
                            plan.fwdSmem, stream, g, static_cast<const T*>(x), specIn)) != cudaSuccess)
        return err;
    if ((err = launchMixing<T>(plan, specIn, static_cast<const T*>(weight), specOut, stream)) != cudaSuccess) return err;

    if ((err = allowSmem(spectralInverseKernel<T, LEAD>, plan.invSmem, invDone)) != cudaSuccess) return err;
    return launchKernel(spectralInverseKernel<T, LEAD>, dim3(static_cast<unsigned>(invBlocks)), dim3(kThreads), plan.invSmem,
                        stream, g, static_cast<const float2*>(specOut), static_cast<const T*>(bias), static_cast<T*>(y));
}

}  // namespace cuda
}  // namespace turbofno
