// core::cudaWorkspaceBytes / cudaWorkspaceBound / cudaCheckSupported: answers from the launch plan
// (plan.h), independent of the device.
#include "plan.h"
#include "turbofno/core.h"

namespace turbofno {
namespace core {

size_t cudaWorkspaceBytes(const SpectralConvShape& shape, DataType /*dtype*/) {
    // Sizes depend on the shape only (separable: Cout == Cin is already in the shape).
    return cuda::makePlan(shape, nullptr).workspaceBytes;
}

size_t cudaWorkspaceBound(const SpectralConvShape& maxShape, DataType /*dtype*/) {
    return cuda::workspaceBound(maxShape);
}

Status cudaCheckSupported(const SpectralConvShape& shape, DataType /*dtype*/, const SpectralConvAttrs* attrs) {
    const cuda::Plan plan = cuda::makePlan(shape, attrs);
    if (plan.supported) return Status::success();
    return Status::error(plan.whyNot);
}

}  // namespace core
}  // namespace turbofno
