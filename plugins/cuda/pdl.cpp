// pdlEnabled / setPdlOverride (pdl.cuh): the device capability is queried once per device.
#include <cuda_runtime.h>

#include <atomic>

namespace turbofno {
namespace cuda {
namespace {
std::atomic<int> gPdlOverride{-1};
constexpr int kMaxDevices = 64;
std::atomic<int> gCapable[kMaxDevices];  // 0 unknown, 1 no, 2 yes (zero-initialised: static storage)
}  // namespace

bool pdlEnabled() {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return false;
    int capable = gCapable[device].load(std::memory_order_relaxed);
    if (capable == 0) {
        int major = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
        capable = major >= 9 ? 2 : 1;
        gCapable[device].store(capable, std::memory_order_relaxed);
    }
    const int forced = gPdlOverride.load(std::memory_order_relaxed);
    return capable == 2 && forced != 0;
}

void setPdlOverride(int mode) { gPdlOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }

}  // namespace cuda
}  // namespace turbofno
