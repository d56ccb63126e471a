// The kernels' thread pool: every task of a region runs exactly once, also
// when regions of different sizes follow each other quickly, when several
// emulated cores call it at once, and when a task calls it again. Run under
// ThreadSanitizer in CI (scripts/tsan.sh).
#include "kernels/thread_pool.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace podbench::kernels {
namespace {

TEST(ThreadPoolTest, EveryTaskRunsOnceOnItsOwnIndex) {
  ThreadPool pool(4);
  ASSERT_EQ(pool.threads(), 4);
  for (int n = 1; n <= 4; ++n) {
    std::vector<int> ran(4, 0);
    pool.Run(n, [&](int t) { ++ran[static_cast<size_t>(t)]; });
    for (int t = 0; t < 4; ++t) EXPECT_EQ(ran[static_cast<size_t>(t)], t < n ? 1 : 0) << "n " << n << " t " << t;
  }
}

// Regions alternate between 2 and 4 tasks, so workers left out of one
// region are still waking up when the next one starts.
TEST(ThreadPoolTest, RegionsOfChangingSizeRunEachTaskOnce) {
  ThreadPool pool(4);
  constexpr int kRegions = 3000;
  std::vector<std::atomic<int>> ran(static_cast<size_t>(kRegions) * 4);
  for (int r = 0; r < kRegions; ++r) {
    const int n = r % 2 ? 4 : 2;
    pool.Run(n, [&](int t) { ran[static_cast<size_t>(r) * 4 + static_cast<size_t>(t)].fetch_add(1); });
  }
  for (int r = 0; r < kRegions; ++r) {
    const int n = r % 2 ? 4 : 2;
    for (int t = 0; t < 4; ++t) {
      ASSERT_EQ(ran[static_cast<size_t>(r) * 4 + static_cast<size_t>(t)].load(), t < n ? 1 : 0)
          << "region " << r << " task " << t;
    }
  }
}

TEST(ThreadPoolTest, ConcurrentCallersAndNestedCallsAllFinish) {
  ThreadPool pool(3);
  constexpr int kCallers = 4, kRegions = 200;
  std::atomic<long> sum{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&] {
      for (int r = 0; r < kRegions; ++r) {
        pool.Run(3, [&](int t) {
          sum.fetch_add(t + 1);
          if (t == 0) pool.Run(2, [&](int u) { sum.fetch_add(10 * (u + 1)); });  // busy pool: runs inline
        });
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(sum.load(), long{kCallers} * kRegions * (1 + 2 + 3 + 10 + 20));
}

}  // namespace
}  // namespace podbench::kernels
