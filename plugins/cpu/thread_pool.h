// The library's own persistent pool of std::threads (no OpenMP): core::ownCpuThreadPool().
#pragma once

namespace turbofno {
namespace cpu {

// Runs fn(ctx, w) once for every w in [0, workers) on up to `workers` threads, the calling thread
// included, and returns when all are done. A call that finds the pool busy with another caller's
// job runs its workers on the calling thread instead of waiting (callers never serialise). fn
// must not throw. Fork-safe: a forked child starts its own threads on first use.
void runOnPool(int workers, void (*fn)(void* ctx, int worker), void* ctx);

}  // namespace cpu
}  // namespace turbofno
