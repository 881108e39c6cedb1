// PointwiseMLP: the second op of the ai.turbofno domain (docs/op.md, "PointwiseMLP"). A two-layer
// per-point channel MLP with an optional gated residual, one kernel instead of the
// Conv + Add(bias) + act + Conv + Add(bias) + Mul + Add + act chain that exporters otherwise emit for
// neuraloperator's ChannelMLP + soft-gating skip, its lifting / projection MLPs, and the classic
// FNO's fc1 / fc2 head:
//
//   h[n, j, s] = hact( sum_i W1[j, i] x[n, i, s] + b1[j] )              j < Ch
//   y[n, o, s] = act( sum_j W2[o, j] h[n, j, s] + b2[o] + g[o] r[n, o, s] )   o < Cout
//
// s runs over every spatial position (any spatial rank >= 0; the op is pointwise). b1, b2, r and g are
// optional (g only with r; no g means g = 1). hact / act are the Activation values of params.h.
// Adapters call only these functions; the names are shared by ORT and TensorRT like core.h's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "turbofno/core.h"
#include "turbofno/params.h"

namespace turbofno {
namespace core {

constexpr const char* kMlpOpType = "PointwiseMLP";            // ONNX op_type == TensorRT plugin name
constexpr int kMlpOpSinceVersion = 2;                         // exists from ai.turbofno opset 2 on
constexpr const char* kAttrHiddenActivation = "hidden_activation";  // INT: Activation, default 1 (gelu)
// The output activation uses kAttrActivation ("activation", default 0 = identity) from core.h.

// Input slots (ONNX input order; absent optional inputs are empty names in ONNX).
enum MlpInput : int { kMlpX = 0, kMlpW1 = 1, kMlpB1 = 2, kMlpW2 = 3, kMlpB2 = 4, kMlpResidual = 5, kMlpGate = 6 };
constexpr int kMlpInputCount = 7;

struct PointwiseMlpAttrs {
    Activation hiddenActivation = Activation::kGeluErf;
    Activation activation = Activation::kIdentity;
};

// Shapes after validation: every tensor has < 2^31 elements.
struct PointwiseMlpShape {
    int32_t spatialRank = 0;            // x rank - 2 (0 allowed: x is [N, Cin])
    int64_t batch = 0;                  // N
    int64_t inChannels = 0;             // Cin
    int64_t hiddenChannels = 0;         // Ch
    int64_t outChannels = 0;            // Cout
    int64_t points = 0;                 // P = product of the spatial sizes (1 when spatialRank == 0)
    int64_t spatial[8] = {};            // the spatial sizes (spatialRank <= 8)
    bool hasB1 = false, hasB2 = false, hasResidual = false, hasGate = false;
};

struct PointwiseMlpParams {
    PointwiseMlpAttrs attrs;
    PointwiseMlpShape shape;
    DataType dtype = DataType::kFloat32;  // of every tensor; compute is fp32
    const void* x = nullptr;         // [N, Cin, *S]
    const void* w1 = nullptr;        // [Ch, Cin]
    const void* b1 = nullptr;        // [Ch] or nullptr
    const void* w2 = nullptr;        // [Cout, Ch]
    const void* b2 = nullptr;        // [Cout] or nullptr
    const void* residual = nullptr;  // [N, Cout, *S] or nullptr
    const void* gate = nullptr;      // [Cout] or nullptr (only with residual)
    void* y = nullptr;               // [N, Cout, *S]; may alias residual (in place), never x
    // w1 and w2 are never written while kernels run (graph initializers): the CUDA kernels may then
    // read them before waiting for the previous kernel (programmatic dependent launch). Default false.
    bool weightsConstant = false;
};

// Attribute checks (both activations in range).
Status validateMlpAttrs(const PointwiseMlpAttrs& attrs);

// Full validation from tensor shapes; fills `shape`. dims[k] / ranks[k] per MlpInput slot k; a null
// dims pointer means the optional input is absent (x, w1, w2 are required). Checks ranks, matching
// channel counts, residual dims == output dims, gate only with a residual, sizes > 0, element counts
// < 2^31, spatial rank <= 8.
Status inferMlpShape(const int64_t* const dims[kMlpInputCount], const int ranks[kMlpInputCount],
                     PointwiseMlpShape* shape);

// Output dims [N, Cout, *S] (spatialRank + 2 values).
void mlpOutputDims(const PointwiseMlpShape& shape, int64_t* dims);

// Scratch bytes of one call (0 for both kernels today; adapters still ask).
size_t mlpCpuWorkspaceBytes(const PointwiseMlpShape& shape, int numThreads);
size_t mlpCudaWorkspaceBytes(const PointwiseMlpShape& shape, DataType dtype);

// The kernels' entry points: runMlpCpu in cpu.h, launchMlpCuda in cuda.h.

}  // namespace core
}  // namespace turbofno

