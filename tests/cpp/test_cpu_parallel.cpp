// core::runCpu's threading and caching contract (cpu.h): results do not depend on the ParallelFor,
// the worker count or the table cache (bitwise); concurrent calls never wait for each other (neither
// through runCpu nor through the library's own pool); a failing ParallelFor is reported; the table
// cache stays within its entry and byte bounds and reuses tables across batch sizes.
// Exit code 0 when every check passes.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"
#include "turbofno/cpu.h"

using namespace turbofno;

namespace {

int gFailed = 0;

void check(bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    if (!ok) ++gFailed;
}

// One 2D problem with random data (fixed by the seed).
struct Problem {
    core::SpectralConvParams params;
    std::vector<float> x, w, b, y;

    Problem(int64_t batch, int64_t h, int64_t wd, uint64_t seed, core::FftNorm norm = core::FftNorm::kBackward,
            int32_t outH = 0, int32_t outW = 0) {
        core::SpectralConvAttrs attrs;
        attrs.rank = 2;
        attrs.norm = norm;
        if (outH > 0) {  // a resampling layer: output size (outH, outW)
            attrs.outputRank = 2;
            attrs.outputSize[0] = outH;
            attrs.outputSize[1] = outW;
        }
        attrs.modesLow[0] = 3;
        attrs.modesHigh[0] = 2;
        attrs.modesLow[1] = 4;
        const int64_t cin = 5, cout = 6;
        const int64_t xd[] = {batch, cin, h, wd}, wdims[] = {cin, cout, 5, 4, 2}, bd[] = {cout};
        core::SpectralConvShape shape;
        const core::Status st = core::inferShape(attrs, xd, 4, wdims, 5, bd, 1, &shape);
        if (!st.ok) std::printf("inferShape: %s\n", st.message.c_str());
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
        x.resize(batch * cin * h * wd);
        w.resize(cin * cout * 5 * 4 * 2);
        b.resize(cout);
        y.assign(batch * cout * (outH > 0 ? int64_t{outH} * outW : h * wd), 0.0f);
        for (auto* v : {&x, &w, &b})
            for (auto& e : *v) e = uni(rng);
        params.attrs = attrs;
        params.shape = shape;
        params.x = x.data();
        params.weight = w.data();
        params.bias = b.data();
        params.y = y.data();
    }

    core::Status run(const core::CpuRunOptions& options) {
        std::vector<unsigned char> ws(core::cpuWorkspaceBytes(params.shape, options));
        return core::runCpu(params, ws.data(), ws.size(), options);
    }
};

// Runs the workers one after the other on the calling thread, in reverse order.
struct Reversed final : core::ParallelFor {
    core::Status run(int workers, void (*fn)(void*, int), void* ctx) override {
        for (int w = workers - 1; w >= 0; --w) fn(ctx, w);
        return core::Status::success();
    }
};

// Fails every call.
struct Failing final : core::ParallelFor {
    core::Status run(int, void (*)(void*, int), void*) override { return core::Status::error("pool is gone"); }
};

// Lets no call through until `parties` calls are inside run() at the same time (10 s timeout): two
// runCpu calls that were serialised somewhere could never meet here.
struct Rendezvous final : core::ParallelFor {
    std::mutex mutex;
    std::condition_variable cv;
    int inside = 0, parties = 2;
    bool met = false, timedOut = false;
    core::Status run(int workers, void (*fn)(void*, int), void* ctx) override {
        {
            std::unique_lock<std::mutex> lock(mutex);
            if (++inside >= parties) met = true;
            cv.notify_all();
            if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return met; })) timedOut = true;
        }
        for (int w = 0; w < workers; ++w) fn(ctx, w);
        std::lock_guard<std::mutex> lock(mutex);
        --inside;
        return core::Status::success();
    }
};

void resultsIndependentOfScheduling(uint64_t seed) {
    Problem ref(3, 20, 18, seed);
    core::CpuRunOptions one;
    one.workers = 1;
    check(ref.run(one).ok, "reference run (1 worker, own pool, no cache)");
    Reversed reversed;
    core::CpuTableCache cache;
    struct Variant {
        const char* name;
        int workers;
        core::ParallelFor* parallel;
        core::CpuTableCache* cache;
    } const variants[] = {
        {"3 workers, own pool", 3, nullptr, nullptr},
        {"4 workers, reversed sequential ParallelFor", 4, &reversed, nullptr},
        {"2 workers, own pool, table cache", 2, nullptr, &cache},
        {"2 workers, own pool, table cache (hit)", 2, nullptr, &cache},
        {"5 workers, reversed, table cache (hit)", 5, &reversed, &cache},
    };
    for (const Variant& v : variants) {
        Problem p(3, 20, 18, seed);
        core::CpuRunOptions o;
        o.workers = v.workers;
        o.parallel = v.parallel;
        o.cache = v.cache;
        const core::Status st = p.run(o);
        check(st.ok && p.y == ref.y, std::string("bitwise equal to the reference: ") + v.name +
                                         (st.ok ? "" : " (" + st.message + ")"));
    }
    check(cache.builds() == 1 && cache.entries() == 1, "one table build for three calls of one shape (builds " +
                                                           std::to_string(cache.builds()) + ")");
    Problem other(7, 20, 18, seed + 1);  // another batch size: same tables
    core::CpuRunOptions o;
    o.cache = &cache;
    check(other.run(o).ok && cache.builds() == 1, "a new batch size reuses the cached tables");
}

void cacheBounds(uint64_t seed) {
    core::CpuTableCache two(2);
    for (int64_t h : {10, 11, 12, 13}) {
        Problem p(1, h, 9, seed);
        core::CpuRunOptions o;
        o.cache = &two;
        check(p.run(o).ok, "run with spatial " + std::to_string(h) + "x9 through a 2-entry cache");
    }
    check(two.entries() == 2 && two.builds() == 4, "the 2-entry cache holds 2 table sets after 4 shapes (holds " +
                                                       std::to_string(two.entries()) + ")");
    core::CpuTableCache tiny(8, 64);  // 64 bytes: no table set fits
    Problem ref(2, 16, 12, seed), p(2, 16, 12, seed);
    core::CpuRunOptions plain, cached;
    cached.cache = &tiny;
    const bool ok = ref.run(plain).ok && p.run(cached).ok;
    check(ok && p.y == ref.y && tiny.entries() == 0 && tiny.bytes() == 0,
          "tables over the byte budget are used once and not kept (results unchanged)");
}

// The tables depend on the norm and the output size when T != S (the norm's scale is folded in):
// one cache serving both norms of a resampling layer must give each its own tables.
void cacheKeyNormAndOutputSize(uint64_t seed) {
    core::CpuTableCache cache;
    for (core::FftNorm norm : {core::FftNorm::kBackward, core::FftNorm::kOrtho, core::FftNorm::kBackward}) {
        Problem plain(2, 12, 10, seed, norm, 16, 14), cached(2, 12, 10, seed, norm, 16, 14);
        core::CpuRunOptions o;
        const bool ran = plain.run(o).ok;
        o.cache = &cache;
        check(ran && cached.run(o).ok && cached.y == plain.y,
              "resampling 12x10 -> 16x14, norm " + std::to_string(static_cast<int>(norm)) +
                  ": cached tables give the uncached result");
    }
    check(cache.builds() == 2, "two table sets for two norms (builds " + std::to_string(cache.builds()) + ")");
}

void failingParallelFor(uint64_t seed) {
    Problem p(2, 8, 8, seed);
    Failing failing;
    core::CpuRunOptions o;
    o.workers = 2;
    o.parallel = &failing;
    const core::Status st = p.run(o);
    check(!st.ok && st.message.find("pool is gone") != std::string::npos,
          "a failing ParallelFor is reported: " + (st.ok ? std::string("accepted") : st.message));
}

void concurrentCallsMeet(uint64_t seed) {
    Rendezvous meet;
    std::vector<core::Status> results(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&, t] {
            Problem p(2, 12, 10, seed + t);
            core::CpuRunOptions o;
            o.workers = 2;
            o.parallel = &meet;
            results[t] = p.run(o);
        });
    for (auto& th : threads) th.join();
    check(results[0].ok && results[1].ok && !meet.timedOut,
          "two concurrent runCpu calls are inside their ParallelFor at the same time (no global lock)");
}

// The own pool: a caller that finds it busy runs its workers itself instead of waiting.
void ownPoolNeverBlocks() {
    struct Ctx {
        std::mutex mutex;
        std::condition_variable cv;
        bool released = false;
    } ctx;
    std::atomic<bool> firstStarted{false};
    std::thread holder([&] {
        core::ownCpuThreadPool().run(2, [](void* c, int w) {
            auto& k = *static_cast<Ctx*>(c);
            if (w != 0) return;
            std::unique_lock<std::mutex> lock(k.mutex);
            k.cv.wait_for(lock, std::chrono::seconds(10), [&] { return k.released; });
        }, &ctx);
    });
    // Give the holder time to take the pool (a later second call then always finds it busy or free;
    // both must finish without waiting for the holder).
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    firstStarted = true;
    std::atomic<int> ran{0};
    const auto t0 = std::chrono::steady_clock::now();
    core::ownCpuThreadPool().run(3, [](void* c, int) { static_cast<std::atomic<int>*>(c)->fetch_add(1); }, &ran);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    {
        std::lock_guard<std::mutex> lock(ctx.mutex);
        ctx.released = true;
    }
    ctx.cv.notify_all();
    holder.join();
    check(ran == 3 && s < 5.0, "a second caller of the own pool runs all its workers while another job holds it (" +
                                   std::to_string(s) + " s)");
}

}  // namespace

int main() {
    const uint64_t seed = turbofno_test::testSeed();
    resultsIndependentOfScheduling(seed);
    cacheBounds(seed);
    cacheKeyNormAndOutputSize(seed);
    failingParallelFor(seed);
    concurrentCallsMeet(seed);
    ownPoolNeverBlocks();
    return turbofno_test::finish(gFailed, seed);
}
