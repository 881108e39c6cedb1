// The execution-provider-independent part of the ORT PointwiseMLP op (pointwise_mlp.h): attributes,
// input plumbing + core::inferMlpShape, output shape inference and the shared OrtCustomOp callbacks.
// mlp_cpu.cc and mlp_cuda.cc add only their kernel call. Errors read
// "PointwiseMLP node '<name>': <problem>"; nothing here throws across the C API.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include <onnxruntime_c_api.h>

#include "op_common.h"
#include "turbofno/pointwise_mlp.h"

namespace turbofno {
namespace ort {

// Node-level state built at kernel creation (attributes read and validated).
struct MlpNodeState {
    std::string name;
    core::PointwiseMlpAttrs attrs;
    bool weightsConstant = false;  // w1 and w2 are constant initializers (ORT's KernelInfoGetConstantInput_tensor)
};

// Status "PointwiseMLP node '<node>': <problem>".
OrtStatus* mlpError(const std::string& node, const std::string& problem, OrtErrorCode code = ORT_INVALID_ARGUMENT);

// Reads the node name and hidden_activation (default 1) / activation (default 0); core::validateMlpAttrs.
OrtStatus* readMlpNode(const OrtKernelInfo* info, MlpNodeState* node);

template <class Kernel>
OrtStatusPtr ORT_API_CALL createMlpKernel(const OrtCustomOp*, const OrtApi*, const OrtKernelInfo* info, void** kernel) {
    *kernel = nullptr;
    try {
        auto* node = new Kernel();
        if (OrtStatus* st = readMlpNode(info, node)) {
            delete node;
            return st;
        }
        *kernel = node;
        return nullptr;
    } catch (const std::exception& e) {
        return mlpError("?", std::string("kernel creation failed: ") + e.what(), ORT_FAIL);
    }
}

template <class Kernel>
void ORT_API_CALL destroyMlpKernel(void* kernel) {
    delete static_cast<Kernel*>(kernel);
}

// Reads the inputs (x, w1, b1?, w2, b2?, residual?, gate?), checks that they share one dtype that
// `supported` (kSupportFloat | ...) allows, runs core::inferMlpShape and allocates the output.
OrtStatus* prepareMlpRun(OrtKernelContext* ctx, const MlpNodeState& node, unsigned supported, const char* epName,
                         core::PointwiseMlpParams* params);

// The EP-independent callbacks: name, 7 inputs (x, w1, w2 required), 1 output, shape inference,
// domain versions kMlpOpSinceVersion..kOpVersion. Callers add the EP callbacks and register one copy
// per parameter type through makeTypedOps (op_common.h says why).
void fillMlpCommonOp(OrtCustomOp* op);

// The ops to register (static, valid for the life of the library): mlp_cpu.cc / mlp_cuda.cc.
std::vector<const OrtCustomOp*> mlpCpuCustomOps();
std::vector<const OrtCustomOp*> mlpCudaCustomOps();

}  // namespace ort
}  // namespace turbofno
