// The SM count of the current device and the small-grid tile rule that the PointwiseMLP and skip GEMM
// launchers share (pointwise_mlp.cu, pointwise_mlp_tc64.cuh, skip_gemm_tc.cuh): a grid that gives fewer
// than two blocks per SM with a kernel's large tile is latency-bound, so the launcher takes its
// smaller tile (more warps per SM, a shorter serial chain per warp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace turbofno {
namespace cuda {

inline cudaError_t currentSmCount(int* smCount) {
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(smCount, cudaDevAttrMultiProcessorCount, device);
    return err;
}

// Whether `blocks` blocks (the grid with the kernel's large tile) are fewer than two per SM.
inline bool underTwoBlocksPerSm(int64_t blocks, int smCount) { return blocks < 2 * static_cast<int64_t>(smCount); }

}  // namespace cuda
}  // namespace turbofno
