// core::CpuTableCache: a small LRU of DFT table sets keyed by what the tables depend on (rank,
// input and output spatial sizes, kept modes, low-block sizes, norm, last-axis table layouts), bounded
// by entry count and bytes.
#include "table_cache.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <new>
#include <utility>

#include "twiddle.h"

namespace turbofno {
namespace cpu {

// What the tables depend on (the layouts of the last-axis tables too: the plan pairs the inverse
// of a skip layer only when its epilogue chunks hold whole rows).
struct TableKey {
    int32_t rank = 0;
    bool pairFwd = false, pairInv = false, quadFwd = false, quadInv = false;
    int64_t S[core::kMaxRank] = {};
    int64_t T[core::kMaxRank] = {};
    int64_t K[core::kMaxRank] = {};
    int32_t low[core::kMaxRank] = {};
    core::FftNorm norm = core::FftNorm::kBackward;  // its scale is folded into the inverse tables
    bool operator==(const TableKey& o) const {
        if (rank != o.rank || norm != o.norm || pairFwd != o.pairFwd || pairInv != o.pairInv ||
            quadFwd != o.quadFwd || quadInv != o.quadInv)
            return false;
        for (int j = 0; j < rank; ++j)
            if (S[j] != o.S[j] || T[j] != o.T[j] || K[j] != o.K[j] || low[j] != o.low[j]) return false;
        return true;
    }
};

namespace {

TableKey keyOf(const CpuPlan& plan, const core::SpectralConvAttrs& attrs) {
    TableKey k;
    k.rank = plan.rank;
    k.pairFwd = plan.pairFwd;
    k.pairInv = plan.pairInv;
    k.quadFwd = plan.quadFwd;
    k.quadInv = plan.quadInv;
    k.norm = attrs.norm;
    for (int j = 0; j < plan.rank; ++j) {
        k.S[j] = plan.S[j];
        k.T[j] = plan.T[j];
        k.K[j] = plan.K[j];
        k.low[j] = attrs.modesLow[j];
    }
    return k;
}

std::shared_ptr<const TableSet> build(const CpuPlan& plan, const core::SpectralConvAttrs& attrs) {
    auto set = std::make_shared<TableSet>();
    set->floats = static_cast<size_t>(plan.tableFloats);
    set->data = static_cast<float*>(::operator new(set->floats * sizeof(float), std::align_val_t(64), std::nothrow));
    if (!set->data) return nullptr;
    buildTwiddles(plan, attrs, set->data);
    return set;
}

}  // namespace

TableSet::~TableSet() {
    if (data) ::operator delete(data, std::align_val_t(64));
}

}  // namespace cpu

namespace core {

struct CpuTableCache::Impl {
    size_t maxEntries, maxBytes;
    mutable std::mutex mutex;
    std::list<std::pair<cpu::TableKey, std::shared_ptr<const cpu::TableSet>>> lru;  // front: most recent
    size_t bytes = 0;
    size_t builds = 0;
};

CpuTableCache::CpuTableCache(size_t maxEntries, size_t maxBytes) : mImpl(new Impl{maxEntries, maxBytes, {}, {}}) {}
CpuTableCache::~CpuTableCache() = default;

size_t CpuTableCache::entries() const {
    std::lock_guard<std::mutex> lock(mImpl->mutex);
    return mImpl->lru.size();
}
size_t CpuTableCache::bytes() const {
    std::lock_guard<std::mutex> lock(mImpl->mutex);
    return mImpl->bytes;
}
size_t CpuTableCache::builds() const {
    std::lock_guard<std::mutex> lock(mImpl->mutex);
    return mImpl->builds;
}

}  // namespace core

namespace cpu {

std::shared_ptr<const TableSet> cachedTables(core::CpuTableCache& cache, const CpuPlan& plan,
                                             const core::SpectralConvAttrs& attrs) {
    core::CpuTableCache::Impl& c = cache.impl();
    const TableKey key = keyOf(plan, attrs);
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        for (auto it = c.lru.begin(); it != c.lru.end(); ++it) {
            if (it->first == key) {
                c.lru.splice(c.lru.begin(), c.lru, it);
                return c.lru.front().second;
            }
        }
    }
    // Built outside the lock (other shapes of the node keep running); two threads missing the same
    // key at once both build it, and the second one's copy is simply not inserted.
    std::shared_ptr<const TableSet> set = build(plan, attrs);
    if (!set) return nullptr;
    const size_t setBytes = set->floats * sizeof(float);
    std::lock_guard<std::mutex> lock(c.mutex);
    ++c.builds;
    if (setBytes > c.maxBytes || c.maxEntries == 0) return set;  // too large to keep: used once
    for (const auto& e : c.lru)
        if (e.first == key) return e.second;
    c.lru.emplace_front(key, set);
    c.bytes += setBytes;
    while (c.lru.size() > c.maxEntries || c.bytes > c.maxBytes) {
        c.bytes -= c.lru.back().second->floats * sizeof(float);
        c.lru.pop_back();
    }
    return set;
}

}  // namespace cpu
}  // namespace turbofno
