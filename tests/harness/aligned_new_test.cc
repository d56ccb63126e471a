// harness/aligned_new.cc: blocks of 1 KiB or more start on a cache line; all
// blocks go back through free; allocation failure still throws bad_alloc.
#include "harness/aligned_new.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace {

std::uintptr_t Misalignment(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64; }

TEST(AlignedNewTest, LargeBlocksStartOnACacheLine) {
  if (!podbench::AlignedNewInstalled()) GTEST_SKIP() << "a sanitizer keeps its own operator new";
  // Sizes on both sides of glibc's mmap threshold, whose blocks sit 16 bytes past a page.
  for (std::size_t n : {256u, 1000u, 4097u, 100000u, 1u << 20, 1u << 24}) {
    std::vector<float> v(n);
    EXPECT_EQ(Misalignment(v.data()), 0u) << n << " floats";
    auto a = std::make_unique<double[]>(n);
    EXPECT_EQ(Misalignment(a.get()), 0u) << n << " doubles";
  }
}

TEST(AlignedNewTest, SmallAndOverAlignedBlocksStillWork) {
  std::vector<std::unique_ptr<int>> small;
  for (int i = 0; i < 1000; ++i) small.push_back(std::make_unique<int>(i));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(*small[std::size_t(i)], i);
  struct alignas(256) Wide { char c[300]; };
  auto w = std::make_unique<Wide>();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.get()) % 256, 0u);
  int* z = new int[0];
  delete[] z;
}

TEST(AlignedNewTest, ExhaustionThrowsBadAlloc) {
  if (!podbench::AlignedNewInstalled()) GTEST_SKIP() << "a sanitizer reports the failed allocation itself";
  EXPECT_THROW(
      {
        void* p = ::operator new(std::size_t(1) << 62);
        ::operator delete(p);
      },
      std::bad_alloc);
  void* q = ::operator new(std::size_t(1) << 62, std::nothrow);
  EXPECT_EQ(q, nullptr);
}

}  // namespace
