// core::cudaWorkspaceBytes: the two kept-mode spectra of the plan (plan.h), independent of the device.
#include "plan.h"
#include "turbofno/core.h"

namespace turbofno {
namespace core {

size_t cudaWorkspaceBytes(const SpectralConvShape& shape, DataType /*dtype*/) {
    // Sizes depend on the shape only (separable: Cout == Cin is already in the shape).
    return cuda::makePlan(shape, nullptr).workspaceBytes;
}

}  // namespace core
}  // namespace turbofno
