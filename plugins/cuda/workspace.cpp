// core::cudaWorkspaceBytes: the two kept-mode spectra of the plan (plan.h), independent of the device.
#include "plan.h"
#include "turbofno/core.h"

namespace turbofno {
namespace core {

size_t cudaWorkspaceBytes(const SpectralConvShape& shape, DataType /*dtype*/) {
    // The separable flag is not part of the shape; Cout == Cin then, so the sizes do not depend on it.
    return cuda::makePlan(shape, 0).workspaceBytes;
}

}  // namespace core
}  // namespace turbofno
