// A small persistent pool of std::threads shared by all runCpu calls (no OpenMP).
#pragma once

#include <cstdint>
#include <functional>

namespace turbofno {
namespace cpu {

using TaskFn = std::function<void(int64_t task, int worker)>;

// Runs fn(task, worker) for every task in [0, numTasks) on at most numThreads threads, the
// calling thread included; worker is in [0, numThreads) and unique among concurrently running
// calls of fn, so it can index per-thread scratch. Returns when all tasks are done.
// Concurrent parallelFor calls from different threads are serialised. fn must not throw.
void parallelFor(int numThreads, int64_t numTasks, const TaskFn& fn);

}  // namespace cpu
}  // namespace turbofno
