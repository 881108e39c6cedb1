// Scalar fp16 / bf16 <-> fp32 conversions (IEEE binary16, round-to-nearest-even on store).
// Portable bit manipulation: the CPU kernel converts on load and store and computes in fp32.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace turbofno {
namespace cpu {

inline float halfToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        // zero or subnormal: mant * 2^-24, exact in fp32
        const float f = static_cast<float>(mant) * (1.0f / 16777216.0f);
        return sign ? -f : f;
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);  // inf / nan (payload kept)
    } else {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

inline uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof(x));
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
    if (ax < 0x38800000u) {
        // result is a half subnormal (or zero): round(|f| * 2^24) to nearest even
        float v;
        std::memcpy(&v, &ax, sizeof(v));
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(v * 16777216.0f)));
    }
    const uint32_t r = ax - (112u << 23);  // rebias the exponent from 127 to 15
    uint32_t mant = r >> 13;
    const uint32_t rem = r & 0x1fffu;
    mant += (rem > 0x1000u || (rem == 0x1000u && (mant & 1u))) ? 1u : 0u;  // carry may bump the exponent
    return static_cast<uint16_t>(sign | mant);
}

inline float bf16ToFloat(uint16_t h) {
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

inline uint16_t floatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof(x));
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

}  // namespace cpu
}  // namespace turbofno
