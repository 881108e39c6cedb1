// Overflow-checked int64 arithmetic for shape and workspace math (validate.cpp).
#pragma once

#include <cstdint>

namespace turbofno {
namespace core {
namespace detail {

// a * b into *out; false (and *out untouched) when the product overflows int64 or an operand is negative.
inline bool checkedMul(int64_t a, int64_t b, int64_t* out) {
    if (a < 0 || b < 0) return false;
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return false;
    *out = r;
    return true;
}

// Product of n non-negative values; false on overflow.
inline bool checkedProduct(const int64_t* v, int n, int64_t* out) {
    int64_t r = 1;
    for (int i = 0; i < n; ++i) {
        if (!checkedMul(r, v[i], &r)) return false;
    }
    *out = r;
    return true;
}

}  // namespace detail
}  // namespace core
}  // namespace turbofno
