// Shape-message helpers shared by the ops' validators (validate.cpp: SpectralConv, validate_mlp.cpp:
// PointwiseMLP), so both word their errors the same way.
#pragma once

#include <cstdint>
#include <string>

#include "checked_math.h"
#include "turbofno/core.h"

namespace turbofno {
namespace core {
namespace detail {

// Tensors are limited to < 2^31 elements so kernels may index them with 32-bit math.
constexpr int64_t kMaxTensorElements = (int64_t{1} << 31) - 1;

inline std::string dimsToString(const int64_t* dims, int rank) {
    std::string s = "[";
    for (int i = 0; i < rank; ++i) {
        if (i) s += ", ";
        s += std::to_string(dims[i]);
    }
    return s + "]";
}

// Element count of a tensor, or an error when it overflows or reaches 2^31.
inline Status checkElementCount(const char* what, const int64_t* dims, int rank, int64_t* count) {
    int64_t n = 0;
    if (!checkedProduct(dims, rank, &n)) {
        return Status::error(std::string(what) + " " + dimsToString(dims, rank) + ": element count overflows int64");
    }
    if (n > kMaxTensorElements) {
        return Status::error(std::string(what) + " " + dimsToString(dims, rank) + " has " + std::to_string(n) +
                             " elements; the limit is 2^31 - 1 per tensor");
    }
    if (count) *count = n;
    return Status::success();
}

}  // namespace detail
}  // namespace core
}  // namespace turbofno
