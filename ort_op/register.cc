// The library's one exported symbol: RegisterCustomOps adds the SpectralConv and PointwiseMLP ops (CPU,
// and CUDA when built) to the custom-op domain ai.turbofno of a session. Requests ORT C API version 18 where the
// runtime has it, else kOrtApiVersion (17): ONNX Runtime >= 1.17 is supported; older runtimes get a
// clear error.
#include <mutex>
#include <string>
#include <vector>

#include <onnxruntime_c_api.h>

#include "mlp_common.h"
#include "op_common.h"
#include "op_cpu.h"
#ifdef TURBOFNO_WITH_CUDA
#include "op_cuda.h"
#endif

namespace {

// One domain object per process, shared by every session that registers the library. ORT keeps a
// pointer to it, so it is never released.
OrtStatus* sharedDomain(const OrtApi* api, OrtCustomOpDomain** out) {
    static std::once_flag once;
    static OrtCustomOpDomain* domain = nullptr;
    static OrtStatus* error = nullptr;
    std::call_once(once, [api] {
        using turbofno::core::kOpDomain;
        if ((error = api->CreateCustomOpDomain(kOpDomain, &domain))) return;
        std::vector<const OrtCustomOp*> ops = turbofno::ort::cpuCustomOps();
        for (const OrtCustomOp* op : turbofno::ort::mlpCpuCustomOps()) ops.push_back(op);
#ifdef TURBOFNO_WITH_CUDA
        for (const OrtCustomOp* op : turbofno::ort::cudaCustomOps()) {
            // An op whose weight is dynamically typed (fillCommonOp only) is registered once per CUDA
            // dtype: ORT < ~1.2x rejects a dynamic output with more than one dynamic input.
            if (op->GetInputType(op, 1) != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
                ops.push_back(op);
                continue;
            }
            for (const OrtCustomOp* typed : turbofno::ort::makeTypedOps(
                     *op, {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16,
                           ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16})) {
                ops.push_back(typed);
            }
        }
        for (const OrtCustomOp* op : turbofno::ort::mlpCudaCustomOps()) ops.push_back(op);  // typed already
#endif
        for (const OrtCustomOp* op : ops) {
            if ((error = api->CustomOpDomain_Add(domain, const_cast<OrtCustomOp*>(op)))) return;
        }
    });
    if (error) {
        // Hand out a copy: the caller releases what it receives.
        return api->CreateStatus(api->GetErrorCode(error), api->GetErrorMessage(error));
    }
    *out = domain;
    return nullptr;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) OrtStatus* ORT_API_CALL
RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* apiBase) {
    if (!apiBase || !options) return nullptr;  // nothing to report the error through
    // The newest version we can use, else the minimum (older runtimes answer nullptr for newer versions).
    uint32_t version = turbofno::ort::kOrtApiVersionScratch;
    const OrtApi* api = apiBase->GetApi(version);
    if (!api) api = apiBase->GetApi(version = turbofno::ort::kOrtApiVersion);
    if (!api) {
        // Older runtime: the version-1 API is enough to say so.
        const OrtApi* v1 = apiBase->GetApi(1);
        if (!v1) return nullptr;
        const std::string msg = std::string("libturbofno_ort needs ONNX Runtime >= 1.17 (C API version ") +
                                std::to_string(turbofno::ort::kOrtApiVersion) + "); this runtime is " +
                                apiBase->GetVersionString();
        return v1->CreateStatus(ORT_FAIL, msg.c_str());
    }
    turbofno::ort::setApi(api, version);
    OrtCustomOpDomain* domain = nullptr;
    if (OrtStatus* st = sharedDomain(api, &domain)) return st;
    return api->AddCustomOpDomain(options, domain);
}
