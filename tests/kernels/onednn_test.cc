// kernels/onednn: ParallelRangesOnOnednnThreads covers [0, n) once, in parts
// that start on `align`, no more of them than the threads asked for, none
// shorter than about min_per_part unless there is only one; on oneDNN's
// OpenMP team where the library loads, serially where it does not.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "kernels/onednn/onednn.h"
#include "kernels/thread_pool.h"

namespace podbench::kernels {
namespace {

TEST(OnednnTest, ParallelRangesOnOnednnThreadsCoverEveryIndexOnce) {
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{17}, std::int64_t{1000}, std::int64_t{100003}}) {
    for (std::int64_t min_part : {std::int64_t{1}, std::int64_t{64}, std::int64_t{1} << 16}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
      std::mutex mu;
      std::vector<std::pair<std::int64_t, std::int64_t>> parts;
      onednn::ParallelRangesOnOnednnThreads(0, n, min_part, 16, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
        std::lock_guard<std::mutex> lock(mu);
        parts.emplace_back(b, e);
      });
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << n << " at " << i;
      ASSERT_LE(parts.size(), static_cast<std::size_t>(DefaultThreadPool().threads()));
      if (onednn::Available() && DefaultThreadPool().threads() > 1 && n >= 2 * min_part && n >= 32) {
        EXPECT_GT(parts.size(), 1u) << n << " elements, parts of at least " << min_part << ": split over the team";
      }
      for (auto [b, e] : parts) {
        EXPECT_EQ(b % 16, 0) << n;
        if (parts.size() > 1) {
          EXPECT_GE(e - b, min_part / 2) << n;  // near-equal parts, each about n / t >= min_part
        }
      }
    }
  }
}

}  // namespace
}  // namespace podbench::kernels
