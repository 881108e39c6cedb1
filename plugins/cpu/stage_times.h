// Wall time of each stage of the last runCpu call on this thread (for benchmarks / profiling).
#pragma once

namespace turbofno {
namespace cpu {

struct StageTimes {
    double tablesMs = 0, forwardMs = 0, mixMs = 0, inverseMs = 0;
};

StageTimes& lastStageTimes();  // thread-local

}  // namespace cpu
}  // namespace turbofno
