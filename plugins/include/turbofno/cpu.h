// CPU kernel entry point (plugins/cpu/). fp32 and fp16 tensors, fp32 compute, multithreaded.
#pragma once

#include <cstddef>

#include "turbofno/core.h"

namespace turbofno {
namespace core {

// Runs the layer on the host. `params` must come from a successful inferShape. `workspace` must
// hold cpuWorkspaceBytes(params.shape, numThreads) bytes (may be null when that is 0).
// numThreads <= 0 means: TURBOFNO_NUM_THREADS if set, else the CPUs this process may run on
// (sched_getaffinity on Linux, else std::thread::hardware_concurrency()).
Status runCpu(const SpectralConvParams& params, void* workspace, size_t workspaceBytes, int numThreads);

// The thread count runCpu uses for numThreads <= 0 (so adapters can size the workspace).
int defaultCpuThreads();

}  // namespace core
}  // namespace turbofno
