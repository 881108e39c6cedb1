// What every C++ test shares: its random seed from the environment, the skip exit code registered
// with ctest (SKIP_RETURN_CODE), and the closing line that repeats the seed on failure.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace turbofno_test {

// Exit code of a test that cannot run here (no GPU, ...); tests/cpp/CMakeLists.txt registers it as
// SKIP_RETURN_CODE so ctest reports "Skipped", never "Passed".
constexpr int kSkipReturnCode = 77;

// TURBOFNO_TEST_SEED: a number fixes the seed, "random" draws a fresh one; unset: 20261129 (CI runs
// are reproducible). Printed at start, and again by finish() when something failed.
inline uint64_t testSeed() {
    uint64_t seed = 20261129;
    if (const char* env = std::getenv("TURBOFNO_TEST_SEED")) {
        if (std::string(env) == "random") {
            std::random_device rd;
            seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
        } else {
            char* end = nullptr;
            const unsigned long long v = std::strtoull(env, &end, 10);
            if (end != env && *end == '\0') {
                seed = v;
            } else {
                std::printf("TURBOFNO_TEST_SEED=%s is not a number or \"random\"; using %llu\n", env,
                            static_cast<unsigned long long>(seed));
            }
        }
    }
    std::printf("seed: %llu (TURBOFNO_TEST_SEED)\n", static_cast<unsigned long long>(seed));
    return seed;
}

// Prints the verdict (with the seed to reproduce a failure) and returns the exit code.
inline int finish(int failed, uint64_t seed) {
    if (failed) {
        std::printf("FAILED: %d failure(s); reproduce with TURBOFNO_TEST_SEED=%llu\n", failed,
                    static_cast<unsigned long long>(seed));
        return 1;
    }
    std::printf("PASSED (seed %llu)\n", static_cast<unsigned long long>(seed));
    return 0;
}

// Prints why the test cannot run here and returns kSkipReturnCode.
inline int skip(const std::string& reason) {
    std::printf("SKIPPED: %s\n", reason.c_str());
    return kSkipReturnCode;
}

}  // namespace turbofno_test
