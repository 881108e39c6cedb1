// The element-type independent launches of the separable algorithm (complex leading-axis passes, the
// sum of split partial spectra), compiled once.
#include "separable_layer.cuh"

namespace turbofno {
namespace cuda {

// spec[e] += spec[s * elems + e] for s = 1..split-1, in a fixed order (bitwise repeatable): the
// partial spectra of a split last forward pass, summed once before the mixing kernel.
__global__ void __launch_bounds__(256) sumPartialsKernel(float2* __restrict__ spec, int64_t elems, int split) {
    const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= elems) return;
    float2 acc = spec[e];
    int s = 1;
    for (; s + 8 <= split; s += 8) {  // 8 loads in flight
        float2 v[8];
#pragma unroll
        for (int q = 0; q < 8; ++q) v[q] = spec[static_cast<int64_t>(s + q) * elems + e];
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            acc.x += v[q].x;
            acc.y += v[q].y;
        }
    }
    for (; s < split; ++s) {
        const float2 v = spec[static_cast<int64_t>(s) * elems + e];
        acc.x += v.x;
        acc.y += v.y;
    }
    spec[e] = acc;
}


cudaError_t launchSumPartials(float2* spec, int64_t elems, int split, cudaStream_t stream) {
    if (split <= 1) return cudaSuccess;
    sumPartialsKernel<<<static_cast<unsigned>((elems + 255) / 256), 256, 0, stream>>>(spec, elems, split);
    return cudaGetLastError();
}

cudaError_t launchC2CPass(const DftPass& p, const void* src, void* dst, cudaStream_t stream) {
    return launchPass<PassKind::kC2C, float>(p, src, dst, nullptr, stream);
}

}  // namespace cuda
}  // namespace turbofno
