// The complex (leading-axis) passes of the separable algorithm, compiled once for every element type.
#include "separable_layer.cuh"

namespace turbofno {
namespace cuda {

cudaError_t launchC2CPass(const DftPass& p, const void* src, void* dst, cudaStream_t stream) {
    return launchPass<PassKind::kC2C, float>(p, src, dst, nullptr, stream);
}

}  // namespace cuda
}  // namespace turbofno
