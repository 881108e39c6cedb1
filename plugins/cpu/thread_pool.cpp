#include "thread_pool.h"

#include "turbofno/cpu.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#ifdef _WIN32
#include <process.h>
#else
#include <pthread.h>
#include <unistd.h>
#endif

namespace turbofno {
namespace cpu {
namespace {

long currentProcess() {
#ifdef _WIN32
    return static_cast<long>(_getpid());
#else
    return static_cast<long>(getpid());
#endif
}

// State shared between the caller and the workers of one process. Kept on the heap so that a
// forked child can abandon its inherited copy (whose mutex / condition variables may record
// waiters that do not exist in the child) and start clean.
struct Shared {
    std::mutex mutex;
    std::condition_variable wake, done;
    void (*fn)(void*, int) = nullptr;
    void* ctx = nullptr;
    int numTasks = 0;
    std::atomic<int> next{0};
    int active = 0;   // helpers taking part in the current job (ids 1..active)
    int pending = 0;  // helpers of the current job not finished yet
    uint64_t generation = 0;
    bool stop = false;

    void drain() {
        for (int t = next.fetch_add(1); t < numTasks; t = next.fetch_add(1)) fn(ctx, t);
    }
};

void workerLoop(Shared* sh, int id) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(sh->mutex);
    for (;;) {
        sh->wake.wait(lock, [&] { return sh->stop || sh->generation != seen; });
        if (sh->stop) return;
        seen = sh->generation;
        if (id > sh->active) continue;  // this job uses fewer threads
        lock.unlock();
        sh->drain();
        lock.lock();
        if (--sh->pending == 0) sh->done.notify_one();
    }
}

class ThreadPool {
public:
    ThreadPool() {
#ifndef _WIN32
        // fork() waits for a job in flight, so a child never inherits a held mCallMutex.
        pthread_atfork([] { instance().mCallMutex.lock(); }, [] { instance().mCallMutex.unlock(); },
                       [] { instance().mCallMutex.unlock(); });
#endif
    }

    static ThreadPool& instance() {
        static ThreadPool pool;
        return pool;
    }

    ~ThreadPool() {
        if (mOwner != currentProcess()) {  // forked child: nothing here to join
            abandon();
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mShared->mutex);
            mShared->stop = true;
        }
        mShared->wake.notify_all();
        for (auto& t : mWorkers) t.join();
        delete mShared;
    }

    void run(int workers, void (*fn)(void*, int), void* ctx) {
        // One job at a time on the pool; a caller that finds it busy runs its workers itself.
        std::unique_lock<std::mutex> call(mCallMutex, std::try_to_lock);
        if (!call.owns_lock()) {
            for (int w = 0; w < workers; ++w) fn(ctx, w);
            return;
        }
        if (mOwner != currentProcess()) {
            // A forked child inherits the thread handles but not the threads: start over.
            abandon();
            mShared = new Shared;
            mOwner = currentProcess();
        }
        const int helpers = grow(workers - 1);
        if (helpers == 0) {
            for (int w = 0; w < workers; ++w) fn(ctx, w);
            return;
        }
        Shared& sh = *mShared;
        {
            std::lock_guard<std::mutex> lock(sh.mutex);
            sh.fn = fn;
            sh.ctx = ctx;
            sh.numTasks = workers;
            sh.next.store(0);
            sh.active = helpers;
            sh.pending = helpers;
            ++sh.generation;
        }
        sh.wake.notify_all();
        sh.drain();
        std::unique_lock<std::mutex> lock(sh.mutex);
        sh.done.wait(lock, [&sh] { return sh.pending == 0; });
        sh.fn = nullptr;
        sh.ctx = nullptr;
    }

private:
    // Leaks the inherited handles and state on purpose: destroying a joinable std::thread
    // terminates, and the inherited synchronisation objects are unusable.
    void abandon() {
        if (!mWorkers.empty()) new std::vector<std::thread>(std::move(mWorkers));
        mWorkers.clear();
        mShared = nullptr;
    }

    // Makes sure `wanted` helper threads exist; returns how many are usable (fewer if the
    // system refuses to create threads).
    int grow(int wanted) {
        while (static_cast<int>(mWorkers.size()) < wanted) {
            const int id = static_cast<int>(mWorkers.size()) + 1;
            try {
                mWorkers.emplace_back(workerLoop, mShared, id);
            } catch (...) {
                break;
            }
        }
        return std::min(wanted, static_cast<int>(mWorkers.size()));
    }

    std::mutex mCallMutex;
    long mOwner = currentProcess();  // process whose threads mWorkers are
    Shared* mShared = new Shared;
    std::vector<std::thread> mWorkers;
};

}  // namespace

void runOnPool(int workers, void (*fn)(void* ctx, int worker), void* ctx) {
    if (workers <= 1) {
        if (workers == 1) fn(ctx, 0);
        return;
    }
    ThreadPool::instance().run(workers, fn, ctx);
}

}  // namespace cpu

namespace core {

ParallelFor& ownCpuThreadPool() {
    struct OwnPool final : ParallelFor {
        Status run(int workers, void (*fn)(void*, int), void* ctx) override {
            cpu::runOnPool(workers, fn, ctx);
            return Status::success();
        }
    };
    static OwnPool pool;
    return pool;
}

}  // namespace core
}  // namespace turbofno
