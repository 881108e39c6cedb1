// The one place SpectralConv inputs are validated (docs/op.md, "Validation"). Every adapter calls
// validateAttrs when a node is created and inferShape before each run; messages name the problem,
// adapters prefix the node name.
#include <algorithm>
#include <string>

#include "checked_math.h"
#include "shape_checks.h"
#include "turbofno/core.h"

namespace turbofno {
namespace core {
namespace {

using detail::checkElementCount;
using detail::dimsToString;

std::string axisName(int j) { return "S_" + std::to_string(j + 1); }

}  // namespace

Status validateAttrs(const SpectralConvAttrs& attrs, int64_t modesLowCount, int64_t modesHighCount) {
    if (modesLowCount != modesHighCount) {
        return Status::error("modes_low has " + std::to_string(modesLowCount) + " entries but modes_high has " +
                             std::to_string(modesHighCount) + "; both need one entry per spatial axis");
    }
    if (modesLowCount < 1 || modesLowCount > kMaxRank) {
        return Status::error("modes_low / modes_high have " + std::to_string(modesLowCount) +
                             " entries; the spatial rank d must be 1, 2 or 3");
    }
    if (attrs.rank != modesLowCount) {
        return Status::error("attribute rank " + std::to_string(attrs.rank) + " does not match modes_low length " +
                             std::to_string(modesLowCount));
    }
    const int d = attrs.rank;
    for (int j = 0; j < d; ++j) {
        if (attrs.modesLow[j] < 0) {
            return Status::error("modes_low[" + std::to_string(j) + "] = " + std::to_string(attrs.modesLow[j]) +
                                 " is negative");
        }
        if (attrs.modesHigh[j] < 0) {
            return Status::error("modes_high[" + std::to_string(j) + "] = " + std::to_string(attrs.modesHigh[j]) +
                                 " is negative");
        }
    }
    if (attrs.modesHigh[d - 1] != 0) {
        return Status::error("modes_high[" + std::to_string(d - 1) + "] = " + std::to_string(attrs.modesHigh[d - 1]) +
                             " must be 0: the last axis is one-sided (rfft), it has no negative frequencies");
    }
    for (int j = 0; j < d; ++j) {
        if (int64_t{attrs.modesLow[j]} + attrs.modesHigh[j] == 0) {
            return Status::error("axis " + std::to_string(j) + " keeps no modes (modes_low[" + std::to_string(j) +
                                 "] + modes_high[" + std::to_string(j) + "] = 0); keep at least one");
        }
    }
    const int32_t norm = static_cast<int32_t>(attrs.norm);
    if (norm < 0 || norm > 2) {
        return Status::error("norm = " + std::to_string(norm) + " is invalid; use 0 (backward), 1 (forward) or 2 (ortho)");
    }
    if (attrs.separable != 0 && attrs.separable != 1) {
        return Status::error("separable = " + std::to_string(attrs.separable) + " is invalid; use 0 or 1");
    }
    if (attrs.outputRank != 0) {
        if (attrs.outputRank != d) {
            return Status::error("output_size has " + std::to_string(attrs.outputRank) + " entries; it needs one per "
                                 "spatial axis (" + std::to_string(d) + ", like modes_low) or must be absent");
        }
        for (int j = 0; j < d; ++j) {
            if (attrs.outputSize[j] < 1) {
                return Status::error("output_size[" + std::to_string(j) + "] = " + std::to_string(attrs.outputSize[j]) +
                                     " must be >= 1");
            }
        }
    }
    if (!activationName(attrs.activation)) {
        return Status::error("activation = " + std::to_string(static_cast<int32_t>(attrs.activation)) +
                             " is invalid; use 0 (identity), 1 (gelu), 2 (gelu_tanh), 3 (relu), 4 (silu) or 5 (tanh)");
    }
    return Status::success();
}

const char* activationName(Activation activation) {
    switch (activation) {
        case Activation::kIdentity: return "identity";
        case Activation::kGeluErf: return "gelu";
        case Activation::kGeluTanh: return "gelu_tanh";
        case Activation::kRelu: return "relu";
        case Activation::kSilu: return "silu";
        case Activation::kTanh: return "tanh";
    }
    return nullptr;
}

Status inferShape(const SpectralConvAttrs& attrs,
                  const int64_t* xDims, int xRank,
                  const int64_t* wDims, int wRank,
                  const int64_t* biasDims, int biasRank,
                  SpectralConvShape* shape,
                  const int64_t* skipDims, int skipRank) {
    if (!shape) return Status::error("internal error: inferShape called without an output shape");
    Status st = validateAttrs(attrs, attrs.rank, attrs.rank);
    if (!st.ok) return st;
    const int d = attrs.rank;

    // x: [N, Cin, S_1..S_d]
    if (!xDims && xRank > 0) return Status::error("internal error: x dims missing");
    if (xRank != d + 2) {
        return Status::error("x has rank " + std::to_string(xRank) + " but modes_low has " + std::to_string(d) +
                             " entries, so x must have rank " + std::to_string(d + 2) + " [N, C, S_1..S_" +
                             std::to_string(d) + "]");
    }
    const std::string xs = dimsToString(xDims, xRank);
    if (xDims[0] <= 0) return Status::error("x " + xs + ": batch size N must be positive (empty batch is not supported)");
    if (xDims[1] <= 0) return Status::error("x " + xs + ": channel count C must be positive");
    for (int j = 0; j < d; ++j) {
        if (xDims[2 + j] <= 0) {
            return Status::error("x " + xs + ": spatial size " + axisName(j) + " must be positive");
        }
    }

    // Kept modes must fit the spectrum of each axis.
    for (int j = 0; j < d; ++j) {
        const int64_t s = xDims[2 + j];
        const int64_t p = attrs.modesLow[j], q = attrs.modesHigh[j];
        if (j < d - 1) {
            if (p + q > s) {
                return Status::error("modes_low[" + std::to_string(j) + "] + modes_high[" + std::to_string(j) + "] = " +
                                     std::to_string(p + q) + " exceeds " + axisName(j) + " = " + std::to_string(s) +
                                     " (x " + xs + ")");
            }
        } else if (p > s / 2 + 1) {
            return Status::error("modes_low[" + std::to_string(j) + "] = " + std::to_string(p) + " exceeds " +
                                 axisName(j) + "//2 + 1 = " + std::to_string(s / 2 + 1) +
                                 " (the one-sided last axis, x " + xs + ")");
        }
    }

    // weight: [Cin, Cout, K_1..K_d, 2]; separable: [C, 1, K_1..K_d, 2]
    if (!wDims && wRank > 0) return Status::error("internal error: weight dims missing");
    if (wRank != d + 3) {
        return Status::error("weight has rank " + std::to_string(wRank) + "; expected rank " + std::to_string(d + 3) +
                             " [Cin, Cout, K_1..K_" + std::to_string(d) + ", 2]");
    }
    const std::string ws = dimsToString(wDims, wRank);
    if (wDims[wRank - 1] != 2) {
        return Status::error("weight " + ws + ": last dim must be 2 (real, imag), got " + std::to_string(wDims[wRank - 1]));
    }
    if (wDims[0] != xDims[1]) {
        return Status::error("weight " + ws + ": dim 0 = " + std::to_string(wDims[0]) +
                             " must equal the input channel count Cin = " + std::to_string(xDims[1]) + " of x " + xs);
    }
    int64_t cout = 0;
    if (attrs.separable) {
        if (wDims[1] != 1) {
            return Status::error("weight " + ws + ": separable = 1 needs dim 1 = 1 (depthwise weight [C, 1, K..., 2]), got " +
                                 std::to_string(wDims[1]));
        }
        cout = xDims[1];
    } else {
        if (wDims[1] <= 0) {
            return Status::error("weight " + ws + ": output channel count Cout (dim 1) must be positive");
        }
        cout = wDims[1];
    }
    for (int j = 0; j < d; ++j) {
        const int64_t k = int64_t{attrs.modesLow[j]} + attrs.modesHigh[j];
        if (wDims[2 + j] != k) {
            return Status::error("weight " + ws + ": mode dim " + std::to_string(2 + j) + " = " +
                                 std::to_string(wDims[2 + j]) + " must equal modes_low[" + std::to_string(j) +
                                 "] + modes_high[" + std::to_string(j) + "] = " + std::to_string(k));
        }
    }

    // bias: [Cout] or absent
    if (biasDims || biasRank > 0) {
        if (!biasDims) return Status::error("internal error: bias dims missing");
        if (biasRank != 1 || biasDims[0] != cout) {
            return Status::error("bias " + dimsToString(biasDims, biasRank) + " must have shape [Cout] = [" +
                                 std::to_string(cout) + "]");
        }
    }

    // skip_weight: [Cout, Cin] or absent (a 1x1 convolution without bias).
    if (skipDims || skipRank > 0) {
        if (!skipDims) return Status::error("internal error: skip_weight dims missing");
        if (skipRank != 2 || skipDims[0] != cout || skipDims[1] != xDims[1]) {
            return Status::error("skip_weight " + dimsToString(skipDims, skipRank) + " must have shape [Cout, Cin] = [" +
                                 std::to_string(cout) + ", " + std::to_string(xDims[1]) + "]");
        }
        if (!(st = checkElementCount("skip_weight", skipDims, skipRank, nullptr)).ok) return st;
        for (int j = 0; attrs.outputRank && j < d; ++j) {
            if (attrs.outputSize[j] != xDims[2 + j]) {
                return Status::error("skip_weight with output_size: the 1x1 skip maps x onto the output point by point, "
                                     "so output_size must equal the input's spatial size (x " + xs + ")");
            }
        }
    }

    // Element counts: every tensor < 2^31 elements, every count fits int64.
    int64_t yDims[kMaxRank + 2] = {xDims[0], cout};
    for (int j = 0; j < d; ++j) yDims[2 + j] = attrs.outputRank ? int64_t{attrs.outputSize[j]} : xDims[2 + j];
    if (!(st = checkElementCount("x", xDims, xRank, nullptr)).ok) return st;
    if (!(st = checkElementCount("weight", wDims, wRank, nullptr)).ok) return st;
    if (!(st = checkElementCount("output y", yDims, d + 2, nullptr)).ok) return st;

    // Workspace bound: the complex half spectrum of the larger of x / y, 2 floats per value, as bytes,
    // times a safety factor for kernel buffers. Kernels size their scratch from these counts.
    int64_t spec[kMaxRank + 3] = {xDims[0], std::max(xDims[1], cout)};
    for (int j = 0; j < d; ++j) {
        const int64_t s = std::max(xDims[2 + j], yDims[2 + j]);
        spec[2 + j] = (j == d - 1) ? s / 2 + 1 : s;
    }
    spec[d + 2] = 2 * int64_t{sizeof(float)} * 4;
    int64_t specBytes = 0;
    if (!detail::checkedProduct(spec, d + 3, &specBytes)) {
        return Status::error("x " + xs + ": the spectrum workspace size overflows int64");
    }

    SpectralConvShape out;
    out.rank = d;
    out.batch = xDims[0];
    out.inChannels = xDims[1];
    out.outChannels = cout;
    for (int j = 0; j < d; ++j) {
        out.spatial[j] = xDims[2 + j];
        out.outSpatial[j] = yDims[2 + j];
        out.kept[j] = int64_t{attrs.modesLow[j]} + attrs.modesHigh[j];
    }
    out.hasBias = biasDims != nullptr;
    out.hasSkip = skipDims != nullptr;
    *shape = out;
    return Status::success();
}

void outputDims(const SpectralConvShape& shape, int64_t* dims) {
    dims[0] = shape.batch;
    dims[1] = shape.outChannels;
    for (int j = 0; j < shape.rank; ++j) dims[2 + j] = outSize(shape, j);
}

}  // namespace core
}  // namespace turbofno
