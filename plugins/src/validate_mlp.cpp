// The one place PointwiseMLP inputs are validated (pointwise_mlp.h; docs/op.md, "PointwiseMLP"). Adapters
// call validateMlpAttrs when a node is created and inferMlpShape before each run; messages name the
// input and the problem, adapters prefix the node name.
#include <string>

#include "shape_checks.h"
#include "turbofno/pointwise_mlp.h"

namespace turbofno {
namespace core {
namespace {

using detail::checkElementCount;
using detail::dimsToString;

constexpr int kMaxMlpSpatialRank = 8;  // PointwiseMlpShape::spatial holds 8 sizes

const char* const kSlotNames[kMlpInputCount] = {"x", "w1", "b1", "w2", "b2", "residual", "gate"};

Status checkActivation(const char* attr, Activation a) {
    if (activationName(a)) return Status::success();
    return Status::error(std::string(attr) + " = " + std::to_string(static_cast<int32_t>(a)) +
                         " is invalid; use 0 (identity), 1 (gelu), 2 (gelu_tanh), 3 (relu), 4 (silu) or 5 (tanh)");
}

// A [C] vector input (b1, b2, gate) of the expected length.
Status checkVector(int slot, const int64_t* dims, int rank, int64_t expected, const char* meaning) {
    if (rank != 1 || dims[0] != expected) {
        return Status::error(std::string(kSlotNames[slot]) + " " + dimsToString(dims, rank) + " must have shape [" +
                             meaning + "] = [" + std::to_string(expected) + "]");
    }
    return Status::success();
}

}  // namespace

Status validateMlpAttrs(const PointwiseMlpAttrs& attrs) {
    Status st = checkActivation(kAttrHiddenActivation, attrs.hiddenActivation);
    if (!st.ok) return st;
    return checkActivation(kAttrActivation, attrs.activation);
}

Status inferMlpShape(const int64_t* const dims[kMlpInputCount], const int ranks[kMlpInputCount],
                     PointwiseMlpShape* shape) {
    if (!shape || !dims || !ranks) return Status::error("internal error: inferMlpShape called without dims or shape");
    for (int k = 0; k < kMlpInputCount; ++k) {
        if (dims[k] && ranks[k] < 0) {
            return Status::error(std::string("internal error: ") + kSlotNames[k] + " has a negative rank");
        }
    }
    for (int k : {kMlpX, kMlpW1, kMlpW2}) {
        if (!dims[k]) return Status::error(std::string("required input ") + kSlotNames[k] + " is missing");
    }

    // x: [N, Cin, *S], spatial rank 0..8
    const int64_t* x = dims[kMlpX];
    const int xRank = ranks[kMlpX];
    const std::string xs = dimsToString(x, xRank);
    if (xRank < 2) {
        return Status::error("x " + xs + " has rank " + std::to_string(xRank) + "; it needs rank >= 2 [N, Cin, *S]");
    }
    if (xRank - 2 > kMaxMlpSpatialRank) {
        return Status::error("x " + xs + " has " + std::to_string(xRank - 2) + " spatial axes; at most " +
                             std::to_string(kMaxMlpSpatialRank) + " are supported");
    }
    if (x[0] <= 0) return Status::error("x " + xs + ": batch size N must be positive (empty batch is not supported)");
    if (x[1] <= 0) return Status::error("x " + xs + ": channel count Cin must be positive");
    for (int j = 2; j < xRank; ++j) {
        if (x[j] <= 0) {
            return Status::error("x " + xs + ": spatial size S_" + std::to_string(j - 1) + " must be positive");
        }
    }
    const int64_t cin = x[1];

    // w1: [Ch, Cin]
    const int64_t* w1 = dims[kMlpW1];
    const std::string w1s = dimsToString(w1, ranks[kMlpW1]);
    if (ranks[kMlpW1] != 2) {
        return Status::error("w1 " + w1s + " has rank " + std::to_string(ranks[kMlpW1]) + "; it needs rank 2 [Ch, Cin]");
    }
    if (w1[0] <= 0) return Status::error("w1 " + w1s + ": hidden channel count Ch (dim 0) must be positive");
    if (w1[1] != cin) {
        return Status::error("w1 " + w1s + ": dim 1 = " + std::to_string(w1[1]) +
                             " must equal the input channel count Cin = " + std::to_string(cin) + " of x " + xs);
    }
    const int64_t ch = w1[0];

    // w2: [Cout, Ch]
    const int64_t* w2 = dims[kMlpW2];
    const std::string w2s = dimsToString(w2, ranks[kMlpW2]);
    if (ranks[kMlpW2] != 2) {
        return Status::error("w2 " + w2s + " has rank " + std::to_string(ranks[kMlpW2]) + "; it needs rank 2 [Cout, Ch]");
    }
    if (w2[0] <= 0) return Status::error("w2 " + w2s + ": output channel count Cout (dim 0) must be positive");
    if (w2[1] != ch) {
        return Status::error("w2 " + w2s + ": dim 1 = " + std::to_string(w2[1]) +
                             " must equal the hidden channel count Ch = " + std::to_string(ch) + " (dim 0 of w1 " +
                             w1s + ")");
    }
    const int64_t cout = w2[0];

    Status st;
    if (dims[kMlpB1] && !(st = checkVector(kMlpB1, dims[kMlpB1], ranks[kMlpB1], ch, "Ch")).ok) return st;
    if (dims[kMlpB2] && !(st = checkVector(kMlpB2, dims[kMlpB2], ranks[kMlpB2], cout, "Cout")).ok) return st;

    // y: [N, Cout, *S]; the residual must match it exactly (no broadcasting).
    int64_t y[kMaxMlpSpatialRank + 2];
    for (int j = 0; j < xRank; ++j) y[j] = x[j];
    y[1] = cout;
    if (dims[kMlpResidual]) {
        const int64_t* r = dims[kMlpResidual];
        const int rRank = ranks[kMlpResidual];
        bool same = rRank == xRank;
        for (int j = 0; same && j < xRank; ++j) same = r[j] == y[j];
        if (!same) {
            return Status::error("residual " + dimsToString(r, rRank) + " must have the output's shape [N, Cout, *S] = " +
                                 dimsToString(y, xRank) + " (no broadcasting)");
        }
    }
    if (dims[kMlpGate]) {
        if (!dims[kMlpResidual]) {
            return Status::error("gate is given without a residual; the gate scales the residual, so pass both or neither");
        }
        if (!(st = checkVector(kMlpGate, dims[kMlpGate], ranks[kMlpGate], cout, "Cout")).ok) return st;
    }

    int64_t points = 1;
    if (!(st = checkElementCount("x", x, xRank, nullptr)).ok) return st;
    if (!(st = checkElementCount("w1", w1, 2, nullptr)).ok) return st;
    if (!(st = checkElementCount("w2", w2, 2, nullptr)).ok) return st;
    if (!(st = checkElementCount("output y", y, xRank, nullptr)).ok) return st;
    if (!(st = checkElementCount("spatial size of x", x + 2, xRank - 2, &points)).ok) return st;

    PointwiseMlpShape out;
    out.spatialRank = xRank - 2;
    out.batch = x[0];
    out.inChannels = cin;
    out.hiddenChannels = ch;
    out.outChannels = cout;
    out.points = points;
    for (int j = 2; j < xRank; ++j) out.spatial[j - 2] = x[j];
    out.hasB1 = dims[kMlpB1] != nullptr;
    out.hasB2 = dims[kMlpB2] != nullptr;
    out.hasResidual = dims[kMlpResidual] != nullptr;
    out.hasGate = dims[kMlpGate] != nullptr;
    *shape = out;
    return Status::success();
}

void mlpOutputDims(const PointwiseMlpShape& shape, int64_t* dims) {
    dims[0] = shape.batch;
    dims[1] = shape.outChannels;
    for (int j = 0; j < shape.spatialRank; ++j) dims[2 + j] = shape.spatial[j];
}

// Both kernels keep their tiles on the stack or in per-call buffers of their own; the functions exist
// so adapters already ask (a later kernel may want scratch without an API change).
size_t mlpCpuWorkspaceBytes(const PointwiseMlpShape& /*shape*/, int /*numThreads*/) { return 0; }
size_t mlpCudaWorkspaceBytes(const PointwiseMlpShape& /*shape*/, DataType /*dtype*/) { return 0; }

}  // namespace core
}  // namespace turbofno
