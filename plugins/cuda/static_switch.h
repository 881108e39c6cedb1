// Runtime value -> template argument dispatch (element type, number of leading axes, PointwiseMLP channel bucket).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "turbofno/params.h"

// Binds `elem_t` to the C++ type of `dtype` and runs the lambda body; unknown types run `fallback`.
#define TFNO_DTYPE_SWITCH(dtype, fallback, ...)                                   \
    [&] {                                                                         \
        switch (dtype) {                                                          \
            case ::turbofno::core::DataType::kFloat32: {                          \
                using elem_t = float;                                             \
                return __VA_ARGS__();                                             \
            }                                                                     \
            case ::turbofno::core::DataType::kFloat16: {                          \
                using elem_t = __half;                                            \
                return __VA_ARGS__();                                             \
            }                                                                     \
            case ::turbofno::core::DataType::kBFloat16: {                         \
                using elem_t = __nv_bfloat16;                                     \
                return __VA_ARGS__();                                             \
            }                                                                     \
        }                                                                         \
        return fallback;                                                          \
    }()

// Binds constexpr `kLead` (0, 1, 2) to lead and runs the lambda body.
#define TFNO_LEAD_SWITCH(lead, ...)               \
    [&] {                                         \
        if ((lead) == 0) {                        \
            constexpr int kLead = 0;              \
            return __VA_ARGS__();                 \
        } else if ((lead) == 1) {                 \
            constexpr int kLead = 1;              \
            return __VA_ARGS__();                 \
        } else {                                  \
            constexpr int kLead = 2;              \
            return __VA_ARGS__();                 \
        }                                         \
    }()

// Binds constexpr `NAME` to `bucket`, one of the per-point PointwiseMLP kernel's channel buckets 4, 16,
// 32, 64 (mlpThBucket, pointwise_mlp_thread.cuh; anything else runs as 64), and runs the lambda body.
#define TFNO_MLP_BUCKET_SWITCH(bucket, NAME, ...) \
    [&] {                                         \
        switch (bucket) {                         \
            case 4: {                             \
                constexpr int NAME = 4;           \
                return __VA_ARGS__();             \
            }                                     \
            case 16: {                            \
                constexpr int NAME = 16;          \
                return __VA_ARGS__();             \
            }                                     \
            case 32: {                            \
                constexpr int NAME = 32;          \
                return __VA_ARGS__();             \
            }                                     \
            default: {                            \
                constexpr int NAME = 64;          \
                return __VA_ARGS__();             \
            }                                     \
        }                                         \
    }()
