// Explicit instantiations of the layer for element type float, spatial rank d = 1, 2, 3 (LEAD = d - 1).
#include "layer.cuh"

namespace turbofno {
namespace cuda {

template cudaError_t launchLayer<float, 0>(const Plan&, const void*, const void*, const void*, const void*, void*, void*, cudaStream_t);
template cudaError_t launchLayer<float, 1>(const Plan&, const void*, const void*, const void*, const void*, void*, void*, cudaStream_t);
template cudaError_t launchLayer<float, 2>(const Plan&, const void*, const void*, const void*, const void*, void*, void*, cudaStream_t);

}  // namespace cuda
}  // namespace turbofno
