// Declaration of the per-(type, rank) layer launcher; the explicit instantiations live in
// inst_f32.cu, inst_f16.cu and inst_bf16.cu (one element type per file, so builds run in parallel).
#pragma once

#include <cuda_runtime_api.h>

#include "plan.h"

namespace turbofno {
namespace cuda {

// Enqueues forward DFT, mixing and inverse DFT for element type T and LEAD = d - 1 leading axes.
template <typename T, int LEAD>
// skipWeight: the fused layer's [Cout, Cin] 1x1 skip or nullptr (either algorithm: skip_gemm.cuh).
cudaError_t launchLayer(const Plan& plan, const void* x, const void* weight, const void* bias, const void* skipWeight,
                        void* y, void* workspace, cudaStream_t stream);

}  // namespace cuda
}  // namespace turbofno
