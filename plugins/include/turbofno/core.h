// The runtime-agnostic core API. Adapters (ORT, TensorRT, PyTorch) call only these functions:
// they never compute shapes, workspace sizes or validate on their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "turbofno/params.h"

namespace turbofno {
namespace core {

// Names shared by the ONNX node, the ORT op and the TensorRT plugin (one table, see docs/op.md).
constexpr const char* kOpType = "SpectralConv";        // ONNX op_type == TensorRT plugin name
constexpr const char* kOpDomain = "ai.turbofno";       // ONNX domain (TensorRT ignores it)
constexpr int kOpVersion = 2;                          // latest ONNX opset version of kOpDomain
constexpr int kOpMinVersion = 1;                       // oldest version still served (v1 models)
// Version 2 adds the optional input 3 `skip_weight` and the attribute `activation`; a node that uses
// neither means the same in both versions (exporters write version 1 for such models).
constexpr const char* kPluginVersion = "1";            // TensorRT plugin_version attribute
constexpr const char* kAttrModesLow = "modes_low";     // INTS, length d
constexpr const char* kAttrModesHigh = "modes_high";   // INTS, length d, last entry 0
constexpr const char* kAttrNorm = "norm";              // INT: 0 backward, 1 forward, 2 ortho
constexpr const char* kAttrSeparable = "separable";    // INT: 0 or 1
constexpr const char* kAttrOutputSize = "output_size"; // INTS, length d, optional: output spatial size
constexpr const char* kAttrActivation = "activation";  // INT: Activation (params.h), default 0; version 2

// Result of a core call. The core never throws; adapters turn a failure into their own error
// and prefix the node name.
struct Status {
    bool ok = true;
    std::string message;
    static Status success() { return {}; }
    static Status error(std::string msg) { return {false, std::move(msg)}; }
};

// Attribute checks that need no tensor shape (rank 1..3, counts >= 0, last modes_high == 0,
// norm, separable and activation in range, output_size absent or d values >= 1). modesLowCount /
// modesHighCount are the attribute lengths (output_size's is attrs.outputRank).
Status validateAttrs(const SpectralConvAttrs& attrs, int64_t modesLowCount, int64_t modesHighCount);

// Full validation from tensor shapes; fills `shape`. biasDims == nullptr means no bias input,
// skipDims == nullptr no skip weight. Checks: x rank == d + 2, weight rank == d + 3 and dims
// [Cin, Cout, K..., 2], bias [Cout], skip weight [Cout, Cin], sizes > 0, kept modes within range
// (p+q <= S_j, k <= S_d/2 + 1, at least one mode kept), and that no element count or workspace
// overflows.
Status inferShape(const SpectralConvAttrs& attrs,
                  const int64_t* xDims, int xRank,
                  const int64_t* wDims, int wRank,
                  const int64_t* biasDims, int biasRank,
                  SpectralConvShape* shape,
                  const int64_t* skipDims = nullptr, int skipRank = 0);

// Name of an activation value ("identity", "gelu", "gelu_tanh", "relu", "silu", "tanh"), or
// nullptr when out of range.
const char* activationName(Activation activation);

// Output dims = [N, Cout, T_1..T_d] (T = output_size, else S); writes shape.rank + 2 values.
void outputDims(const SpectralConvShape& shape, int64_t* dims);

// Scratch bytes the CPU / CUDA kernel needs for one call (0 allowed). The CPU size is for runCpu with
// numThreads workers and no table cache (SIZE_MAX over the CPU limit; cpu.h has the other options).
size_t cpuWorkspaceBytes(const SpectralConvShape& shape, int numThreads);
size_t cudaWorkspaceBytes(const SpectralConvShape& shape, DataType dtype);

// A workspace size that holds cudaWorkspaceBytes of every shape whose batch, channel and spatial
// sizes are each <= those of `maxShape` (same rank, kept modes, bias). Monotone in every size, so a
// TensorRT profile is sized from its max shape alone.
size_t cudaWorkspaceBound(const SpectralConvShape& maxShape, DataType dtype);

// Whether launchCuda can run `shape` (inferShape already accepted it) with `attrs` (nullptr: the
// attributes are not checked, e.g. the activation); otherwise a message saying why, for adapters
// to refuse the shape up front (e.g. at TensorRT build time).
Status cudaCheckSupported(const SpectralConvShape& shape, DataType dtype, const SpectralConvAttrs* attrs = nullptr);

}  // namespace core
}  // namespace turbofno
