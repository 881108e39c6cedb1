#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace turbofno {
namespace cpu {
namespace {

class ThreadPool {
public:
    ~ThreadPool() {
        {
            std::lock_guard<std::mutex> lock(mMutex);
            mStop = true;
        }
        mWake.notify_all();
        for (auto& t : mWorkers) t.join();
    }

    void run(int numThreads, int64_t numTasks, const TaskFn& fn) {
        std::lock_guard<std::mutex> call(mCallMutex);  // one job at a time
        const int helpers = grow(numThreads - 1);
        if (helpers == 0) {
            for (int64_t t = 0; t < numTasks; ++t) fn(t, 0);
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mMutex);
            mFn = &fn;
            mNumTasks = numTasks;
            mNext.store(0);
            mActive = helpers;
            mPending = helpers;
            ++mGeneration;
        }
        mWake.notify_all();
        drain(0);
        std::unique_lock<std::mutex> lock(mMutex);
        mDone.wait(lock, [this] { return mPending == 0; });
        mFn = nullptr;
    }

private:
    // Makes sure `wanted` helper threads exist; returns how many are usable (fewer if the
    // system refuses to create threads).
    int grow(int wanted) {
        while (static_cast<int>(mWorkers.size()) < wanted) {
            const int id = static_cast<int>(mWorkers.size()) + 1;
            try {
                mWorkers.emplace_back([this, id] { loop(id); });
            } catch (...) {
                break;
            }
        }
        return std::min(wanted, static_cast<int>(mWorkers.size()));
    }

    void drain(int worker) {
        for (int64_t t = mNext.fetch_add(1); t < mNumTasks; t = mNext.fetch_add(1)) (*mFn)(t, worker);
    }

    void loop(int id) {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mMutex);
        for (;;) {
            mWake.wait(lock, [&] { return mStop || mGeneration != seen; });
            if (mStop) return;
            seen = mGeneration;
            if (id > mActive) continue;  // this job uses fewer threads
            lock.unlock();
            drain(id);
            lock.lock();
            if (--mPending == 0) mDone.notify_one();
        }
    }

    std::mutex mCallMutex;
    std::mutex mMutex;
    std::condition_variable mWake, mDone;
    std::vector<std::thread> mWorkers;
    const TaskFn* mFn = nullptr;
    int64_t mNumTasks = 0;
    std::atomic<int64_t> mNext{0};
    int mActive = 0;
    int mPending = 0;
    uint64_t mGeneration = 0;
    bool mStop = false;
};

}  // namespace

void parallelFor(int numThreads, int64_t numTasks, const TaskFn& fn) {
    if (numThreads <= 1 || numTasks <= 1) {
        for (int64_t t = 0; t < numTasks; ++t) fn(t, 0);
        return;
    }
    static ThreadPool pool;
    pool.run(static_cast<int>(std::min<int64_t>(numThreads, numTasks)), numTasks, fn);
}

}  // namespace cpu
}  // namespace turbofno
