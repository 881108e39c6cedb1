// core::launchCuda: checks the call, plans the launches and dispatches to the instantiated layer.
#include <cstdint>

#include "kernels.h"
#include "plan.h"
#include "static_switch.h"
#include "turbofno/cuda.h"

namespace turbofno {
namespace core {

cudaError_t launchCuda(const SpectralConvParams& params, void* workspace, size_t workspaceBytes, cudaStream_t stream) {
    const SpectralConvShape& shape = params.shape;
    if (shape.rank < 1 || shape.rank > kMaxRank || !params.x || !params.weight || !params.y) return cudaErrorInvalidValue;
    if (shape.hasBias && !params.bias) return cudaErrorInvalidValue;
    if (shape.hasSkip && !params.skipWeight) return cudaErrorInvalidValue;
    const cuda::Plan plan = cuda::makePlan(shape, &params.attrs);
    if (!plan.supported) return cudaErrorNotSupported;
    if (workspaceBytes < plan.workspaceBytes || (plan.workspaceBytes > 0 && !workspace)) return cudaErrorInvalidValue;
    if (reinterpret_cast<uintptr_t>(workspace) % 16 != 0) return cudaErrorMisalignedAddress;
    const size_t elem = params.dtype == DataType::kFloat32 ? 4 : 2;
    // complex weights are read as (re, im) pairs
    if (reinterpret_cast<uintptr_t>(params.weight) % (2 * elem) != 0 || reinterpret_cast<uintptr_t>(params.x) % elem != 0 ||
        reinterpret_cast<uintptr_t>(params.y) % elem != 0 || reinterpret_cast<uintptr_t>(params.skipWeight) % elem != 0) {
        return cudaErrorMisalignedAddress;
    }
    return TFNO_DTYPE_SWITCH(params.dtype, cudaErrorInvalidValue, [&] {
        return TFNO_LEAD_SWITCH(plan.g.lead, [&] {
            return cuda::launchLayer<elem_t, kLead>(plan, params.x, params.weight, shape.hasBias ? params.bias : nullptr,
                                                    shape.hasSkip ? params.skipWeight : nullptr, params.y, workspace, stream);
        });
    });
}

}  // namespace core
}  // namespace turbofno
