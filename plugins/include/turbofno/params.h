// SpectralConv: the one parameter struct every adapter fills in.
// No ONNX Runtime, TensorRT or PyTorch include may appear here (see docs/op.md).
#pragma once

#include <cstdint>

namespace turbofno {
namespace core {

constexpr int kMaxRank = 3;  // spatial rank d: 1, 2 or 3

// Element type of x, weight, bias and y (all four share it). Compute is always fp32.
enum class DataType : int32_t { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

// torch.fft norm. The layer is linear and rfftn/irfftn scales always multiply to 1/prod(S),
// so the output does not depend on it; it is kept for fidelity and validated.
enum class FftNorm : int32_t { kBackward = 0, kForward = 1, kOrtho = 2 };

// Pointwise activation of the fused layer, applied last: y = act(K(x) + W_skip x + bias).
// Values are the ONNX `activation` attribute (op version 2; version-1 nodes are kIdentity).
// Formulas (torch's): kGeluErf 0.5 v (1 + erf(v / sqrt 2)); kGeluTanh 0.5 v (1 + tanh(sqrt(2/pi)
// (v + 0.044715 v^3))); kRelu max(v, 0); kSilu v / (1 + exp(-v)); kTanh tanh(v).
enum class Activation : int32_t { kIdentity = 0, kGeluErf = 1, kGeluTanh = 2, kRelu = 3, kSilu = 4, kTanh = 5 };
constexpr int32_t kActivationCount = 6;

// Node attributes, exactly as they appear in ONNX (and as TensorRT creator fields).
struct SpectralConvAttrs {
    int32_t rank = 0;                    // d = number of entries in modes_low / modes_high
    int32_t modesLow[kMaxRank] = {};     // p_j: keep frequencies 0..p_j-1 (last axis: 0..k-1)
    int32_t modesHigh[kMaxRank] = {};    // q_j: keep frequencies S_j-q_j..S_j-1; last axis: 0
    FftNorm norm = FftNorm::kBackward;
    int32_t separable = 0;               // 1: depthwise, weight [C, 1, K..., 2], Cout = Cin
    // Optional output_size attribute (docs/op.md, "Output size"): outputRank = its length, 0 when the
    // attribute is absent (output spatial size = input's); otherwise == rank, T_j = outputSize[j] >= 1.
    int32_t outputRank = 0;
    int32_t outputSize[kMaxRank] = {};
    Activation activation = Activation::kIdentity;  // applied after the skip and the bias
};

// Shapes after validation. Every count fits in int64 and every tensor has < 2^31 elements.
struct SpectralConvShape {
    int32_t rank = 0;
    int64_t batch = 0;                   // N
    int64_t inChannels = 0;              // Cin
    int64_t outChannels = 0;             // Cout
    int64_t spatial[kMaxRank] = {};      // S_1..S_d (input)
    int64_t kept[kMaxRank] = {};         // K_j = p_j + q_j (last axis: k)
    bool hasBias = false;
    int64_t outSpatial[kMaxRank] = {};   // T_1..T_d (output); 0 = same as spatial[j] (use outSize)
    bool hasSkip = false;                // 1x1 skip weight [Cout, Cin] present
};

// Output spatial size T_j of axis j: outSpatial[j], or S_j when it is 0 (shapes built by hand).
inline int64_t outSize(const SpectralConvShape& shape, int j) {
    return shape.outSpatial[j] > 0 ? shape.outSpatial[j] : shape.spatial[j];
}

// True when the output spatial size differs from the input's on some axis (a resampling layer).
inline bool resamples(const SpectralConvShape& shape) {
    for (int j = 0; j < shape.rank; ++j) {
        if (outSize(shape, j) != shape.spatial[j]) return true;
    }
    return false;
}

// Everything a kernel needs. Tensors are dense, row-major (C-contiguous).
struct SpectralConvParams {
    SpectralConvAttrs attrs;
    SpectralConvShape shape;
    DataType dtype = DataType::kFloat32;
    const void* x = nullptr;       // [N, Cin, S_1..S_d]
    const void* weight = nullptr;  // [Cin, Cout, K_1..K_d, 2] (separable: [C, 1, K_1..K_d, 2])
    const void* bias = nullptr;    // [Cout] or nullptr
    const void* skipWeight = nullptr;  // [Cout, Cin] (y += W_skip x, a 1x1 conv without bias) or nullptr
    void* y = nullptr;             // [N, Cout, T_1..T_d] (T = S unless output_size is set)
};

}  // namespace core
}  // namespace turbofno
