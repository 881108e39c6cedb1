// Explicit instantiations of the layer for element type __nv_bfloat16, spatial rank d = 1, 2, 3 (LEAD = d - 1).
#include "layer.cuh"

namespace turbofno {
namespace cuda {

template cudaError_t launchLayer<__nv_bfloat16, 0>(const Plan&, const void*, const void*, const void*, const void*, void*, void*, cudaStream_t);
template cudaError_t launchLayer<__nv_bfloat16, 1>(const Plan&, const void*, const void*, const void*, const void*, void*, void*, cudaStream_t);
template cudaError_t launchLayer<__nv_bfloat16, 2>(const Plan&, const void*, const void*, const void*, const void*, void*, void*, cudaStream_t);

}  // namespace cuda
}  // namespace turbofno
