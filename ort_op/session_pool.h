// core::ParallelFor on the session's intra-op pool (KernelContext_ParallelFor), shared by the CPU ops
// (op_cpu.cc, mlp_cpu.cc): ORT runs the workers with at most intra_op_num_threads threads (on the
// calling thread alone when that is 1). No lock is shared between sessions or runs.
#pragma once

#include <cstddef>

#include <onnxruntime_c_api.h>

#include "op_common.h"
#include "turbofno/cpu.h"

namespace turbofno {
namespace ort {

class SessionPool final : public core::ParallelFor {
public:
    explicit SessionPool(OrtKernelContext* ctx) : mCtx(ctx) {}

    core::Status run(int workers, void (*fn)(void*, int), void* ctx) override {
        Call call{fn, ctx};
        OrtStatus* st = api()->KernelContext_ParallelFor(mCtx, &trampoline, static_cast<size_t>(workers), 0, &call);
        if (st) return core::Status::error("ONNX Runtime's ParallelFor failed: " + takeMessage(st));
        return core::Status::success();
    }

private:
    struct Call {
        void (*fn)(void*, int);
        void* ctx;
    };
    static void trampoline(void* data, size_t worker) {
        const Call& call = *static_cast<const Call*>(data);
        call.fn(call.ctx, static_cast<int>(worker));
    }
    OrtKernelContext* mCtx;
};

}  // namespace ort
}  // namespace turbofno
