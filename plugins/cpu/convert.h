// Array conversions between the tensor dtype and the fp32 compute type.
#pragma once

#include <cstdint>

#include "half.h"
#include "kernels.h"
#include "turbofno/params.h"

namespace turbofno {
namespace cpu {

inline void loadAsFloat(const void* src, core::DataType type, int64_t count, float* dst) {
    const uint16_t* s = static_cast<const uint16_t*>(src);
    switch (type) {
        case core::DataType::kFloat32:
            for (int64_t i = 0; i < count; ++i) dst[i] = static_cast<const float*>(src)[i];
            break;
        case core::DataType::kFloat16:
            cpuKernels().halfToFloat(s, count, dst);
            break;
        case core::DataType::kBFloat16:
            for (int64_t i = 0; i < count; ++i) dst[i] = bf16ToFloat(s[i]);
            break;
    }
}

inline void storeFromFloat(const float* src, core::DataType type, int64_t count, void* dst) {
    uint16_t* d = static_cast<uint16_t*>(dst);
    switch (type) {
        case core::DataType::kFloat32:
            for (int64_t i = 0; i < count; ++i) static_cast<float*>(dst)[i] = src[i];
            break;
        case core::DataType::kFloat16:
            cpuKernels().floatToHalf(src, count, d);
            break;
        case core::DataType::kBFloat16:
            for (int64_t i = 0; i < count; ++i) d[i] = floatToBf16(src[i]);
            break;
    }
}

inline int64_t elementBytes(core::DataType type) { return type == core::DataType::kFloat32 ? 4 : 2; }

}  // namespace cpu
}  // namespace turbofno
