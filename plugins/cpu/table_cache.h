// The truncated-DFT tables of one spatial shape, built once and shared (core::CpuTableCache).
#pragma once

#include <cstddef>
#include <memory>

#include "plan.h"
#include "turbofno/cpu.h"

namespace turbofno {
namespace cpu {

// One table region (plan.tableFloats floats, 64-byte aligned), immutable once built.
struct TableSet {
    float* data = nullptr;
    size_t floats = 0;
    TableSet() = default;
    TableSet(const TableSet&) = delete;
    TableSet& operator=(const TableSet&) = delete;
    ~TableSet();
};

// The tables for `plan` (which must not be tooLarge): from `cache` when it holds them, else built
// (and kept there unless they exceed its byte budget). nullptr when the memory cannot be allocated.
std::shared_ptr<const TableSet> cachedTables(core::CpuTableCache& cache, const CpuPlan& plan,
                                             const core::SpectralConvAttrs& attrs);

}  // namespace cpu
}  // namespace turbofno
