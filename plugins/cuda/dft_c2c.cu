// The element-type independent launches of the separable algorithm (complex leading-axis passes, the
// sum of split partial spectra), compiled once.
#include "separable_layer.cuh"

namespace turbofno {
namespace cuda {

// spec[e] += spec[s * elems + e] for s = 1..split-1: the partial spectra of a split last forward
// pass, summed once before the mixing kernel. A block owns 32 elements; its G = min(8, split) warps
// take every G-th partial, then warp 0 adds the G group sums in a fixed order (bitwise repeatable).
constexpr int kSumGroups = 8;
__global__ void __launch_bounds__(32 * kSumGroups) sumPartialsKernel(float2* __restrict__ spec, int64_t elems, int split) {
    __shared__ float2 part[kSumGroups][32];
    const int lane = threadIdx.x % 32, grp = threadIdx.x / 32, groups = blockDim.x / 32;
    const int64_t e = static_cast<int64_t>(blockIdx.x) * 32 + lane;
    float2 acc = make_float2(0.f, 0.f);
    gridDependencyWait();  // pdl.cuh
    if (e < elems) {
        int s = grp;
        for (; s + 3 * groups < split; s += 4 * groups) {  // 4 loads in flight
            float2 v[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) v[q] = spec[static_cast<int64_t>(s + q * groups) * elems + e];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                acc.x += v[q].x;
                acc.y += v[q].y;
            }
        }
        for (; s < split; s += groups) {
            const float2 v = spec[static_cast<int64_t>(s) * elems + e];
            acc.x += v.x;
            acc.y += v.y;
        }
    }
    part[grp][lane] = acc;
    __syncthreads();
    if (grp == 0 && e < elems) {
        for (int g = 1; g < groups; ++g) {
            acc.x += part[g][lane].x;
            acc.y += part[g][lane].y;
        }
        spec[e] = acc;
    }
}

cudaError_t launchSumPartials(float2* spec, int64_t elems, int split, cudaStream_t stream) {
    if (split <= 1) return cudaSuccess;
    const int groups = split < kSumGroups ? split : kSumGroups;
    return launchKernel(sumPartialsKernel, dim3(static_cast<unsigned>((elems + 31) / 32)), dim3(32 * groups), 0, stream, spec,
                        elems, split);
}

cudaError_t launchC2CPass(const DftPass& p, const void* src, void* dst, cudaStream_t stream) {
    if (p.fft) return launchFftColumnPass(p, src, dst, stream);
    return launchPass<PassKind::kC2C, float>(p, src, dst, nullptr, stream);
}

}  // namespace cuda
}  // namespace turbofno
