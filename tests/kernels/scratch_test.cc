// The kernels' scratch pool: aligned, private while leased, reused after.
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/scratch.h"

namespace podbench::kernels {
namespace {

TEST(ScratchTest, LeasesAreAlignedDistinctAndReused) {
  void* first = nullptr;
  {
    ScratchLease a(1000), b(1000);
    EXPECT_NE(a.get(), b.get());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.get()) % 64, 0u);
    std::memset(a.get(), 1, 1000);  // ASan: the whole requested size is ours
    std::memset(b.get(), 2, 1000);
    first = a.get();
  }
  // A released block serves the next request that fits.
  std::set<void*> seen;
  ScratchLease c(500), d(900);
  seen.insert(c.get());
  seen.insert(d.get());
  EXPECT_TRUE(seen.count(first) == 1);
  ScratchLease zero(0);
  EXPECT_NE(zero.get(), nullptr);
}

TEST(ScratchTest, ConcurrentLeasesNeverShareABlock) {
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        ScratchLease l(std::size_t(64 + 64 * (i % 7)));
        auto* p = l.as<unsigned char>();
        std::memset(p, t, 64);
        std::this_thread::yield();
        for (int k = 0; k < 64; ++k) bad[std::size_t(t)] += p[k] != t;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int b : bad) EXPECT_EQ(b, 0);
}

}  // namespace
}  // namespace podbench::kernels
