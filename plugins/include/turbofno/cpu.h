// CPU kernel entry point (plugins/cpu/). fp32, fp16 and bf16 tensors, fp32 compute, multithreaded.
#pragma once

#include <cstddef>
#include <memory>

#include "turbofno/core.h"
#include "turbofno/pointwise_mlp.h"

namespace turbofno {
namespace core {

// How runCpu runs its parallel loops. The kernel splits each stage into `workers` loops that pull
// tasks from a shared counter; worker w owns per-worker scratch slot w. An adapter implements this
// on its runtime's thread pool (ORT: KernelContext_ParallelFor); runCpu uses the library's own pool
// (ownCpuThreadPool) when given none.
class ParallelFor {
public:
    virtual ~ParallelFor() = default;
    // Calls fn(ctx, w) exactly once for every w in [0, workers), on any threads, possibly
    // concurrently, and returns after the last call returned. fn does not throw. Any failure to run
    // them is returned (runCpu then fails with that message).
    virtual Status run(int workers, void (*fn)(void* ctx, int worker), void* ctx) = 0;
};

// The library's own persistent std::thread pool. Concurrent callers never wait for each other: a
// call that finds the pool busy runs its workers on the calling thread.
ParallelFor& ownCpuThreadPool();

// Reusable per-node state: the truncated-DFT tables of the last few spatial shapes (LRU, at most
// `maxEntries` entries and `maxBytes` bytes; a table set larger than maxBytes is used once and not
// kept). Thread-safe; entries in use stay alive after eviction. One cache per node (attributes are
// part of the key, so sharing one is safe but needless).
class CpuTableCache {
public:
    explicit CpuTableCache(size_t maxEntries = 8, size_t maxBytes = size_t{256} << 20);
    ~CpuTableCache();
    CpuTableCache(const CpuTableCache&) = delete;
    CpuTableCache& operator=(const CpuTableCache&) = delete;
    size_t entries() const;  // table sets held now
    size_t bytes() const;    // bytes held now
    size_t builds() const;   // table sets built since construction (hits do not count)

    struct Impl;
    Impl& impl() { return *mImpl; }

private:
    std::unique_ptr<Impl> mImpl;
};

// Options of one runCpu call.
struct CpuRunOptions {
    int workers = 0;                  // <= 0: defaultCpuThreads()
    ParallelFor* parallel = nullptr;  // nullptr: ownCpuThreadPool()
    CpuTableCache* cache = nullptr;   // nullptr: the tables are rebuilt in the workspace on every call
};

// Scratch bytes runCpu needs with these options (the tables are part of it only without a cache).
// SIZE_MAX when the shape exceeds the kernel's limit (docs/op.md, "CPU limits").
size_t cpuWorkspaceBytes(const SpectralConvShape& shape, const CpuRunOptions& options);

// Runs the layer on the host. `params` must come from a successful inferShape. `workspace` must
// hold cpuWorkspaceBytes(params.shape, options) bytes (any alignment; may be null when that is 0).
Status runCpu(const SpectralConvParams& params, void* workspace, size_t workspaceBytes, const CpuRunOptions& options);

// The same with the library's pool, no cache and `numThreads` workers (<= 0: defaultCpuThreads()).
// Workspace: cpuWorkspaceBytes(params.shape, numThreads) (core.h).
Status runCpu(const SpectralConvParams& params, void* workspace, size_t workspaceBytes, int numThreads);

// PointwiseMLP (pointwise_mlp.h) on the host: fp32 compute, `options.workers` loops on
// options.parallel (or the library's pool). Workspace: mlpCpuWorkspaceBytes(params.shape, workers).
Status runMlpCpu(const PointwiseMlpParams& params, void* workspace, size_t workspaceBytes,
                 const CpuRunOptions& options);

// The worker count for numThreads <= 0: TURBOFNO_NUM_THREADS if set, else the CPUs this process may
// run on (sched_getaffinity on Linux, else std::thread::hardware_concurrency()).
int defaultCpuThreads();

}  // namespace core
}  // namespace turbofno
