// Row strips, halo plans and halo buffers of spatial partitioning
// (workloads/functional/spatial_partition.h).
#include <vector>

#include <gtest/gtest.h>

#include "workloads/functional/spatial_partition.h"

namespace podbench::functional {
namespace {

TEST(SpatialTest, RowsSplitAsXlaSplitsADimension) {
  EXPECT_EQ(RowsOfCore(64, 4, 0).size(), 16);
  EXPECT_EQ(RowsOfCore(64, 4, 3).begin, 48);
  // 38 rows over 4 cores: 10, 10, 10, 8 (Google's level 0 at 4-way).
  EXPECT_EQ(RowsOfCore(38, 4, 3).size(), 8);
  // 2 rows over 4 cores: the last two hold none.
  EXPECT_EQ(RowsOfCore(2, 4, 1).begin, 1);
  EXPECT_TRUE(RowsOfCore(2, 4, 2).empty());
  EXPECT_TRUE(RowsOfCore(2, 4, 3).empty());
}

TEST(SpatialTest, StrideAndPaddingDecideTheHalo) {
  // 3x3 stride 1 pad 1: one row from each neighbour.
  WindowPlan p = PlanWindow(16, 16, 4, 3, 1, 1);
  EXPECT_TRUE(p.partitionable);
  EXPECT_EQ(p.halo, 1);
  EXPECT_EQ(p.lo[1], 3);
  EXPECT_EQ(p.hi[1], 9);
  EXPECT_EQ(p.lo[0], -1);  // a padding row at the top of the image
  // 3x3 stride 2 pad 1, 16 -> 8 rows: core i computes rows 2i, 2i+1 from input
  // rows 4i-1..4i+3: one row from above only.
  p = PlanWindow(16, 8, 4, 3, 2, 1);
  EXPECT_EQ(p.halo, 1);
  EXPECT_EQ(p.lo[2], 7);
  EXPECT_EQ(p.hi[2], 12);
  // 7x7 stride 2 pad 3 (conv0), 64 -> 32: three rows from above, two below.
  p = PlanWindow(64, 32, 4, 7, 2, 3);
  EXPECT_EQ(p.halo, 3);
  EXPECT_EQ(p.lo[1], 13);
  EXPECT_EQ(p.hi[1], 34);
  // 1x1 stride 2: no halo.
  p = PlanWindow(16, 8, 4, 1, 2, 0);
  EXPECT_TRUE(p.partitionable);
  EXPECT_EQ(p.halo, 0);
}

TEST(SpatialTest, WindowsReachingPastANeighbourAreNotPartitionable) {
  // 4 -> 2 rows, 3x3 stride 2 pad 1 over 4 cores (one row each): core 1's
  // output row 1 reads input rows 1..3, and row 3 is two cores away.
  EXPECT_FALSE(PlanWindow(4, 2, 4, 3, 2, 1).partitionable);
  // 2 -> 2 rows, 3x3 pad 1 over 4 cores: cores 0 and 1 swap their rows.
  WindowPlan p = PlanWindow(2, 2, 4, 3, 1, 1);
  EXPECT_TRUE(p.partitionable);
  EXPECT_EQ(p.halo, 1);
  EXPECT_TRUE(p.out[2].empty());
  // Over 2 cores the same 4 -> 2 fits: core 1 reads rows 1..3 (row 1 above).
  EXPECT_TRUE(PlanWindow(4, 2, 2, 3, 2, 1).partitionable);
  // 3 -> 1, 3x3 pad 0 (the reference's last level) over 4 cores.
  EXPECT_FALSE(PlanWindow(3, 1, 4, 3, 1, 0).partitionable);
}

TEST(SpatialTest, UpsamplingStripsLineUpOrTakeAHalo) {
  // 8 -> 16 rows over 4 cores: core i's rows 4i..4i+3 read its own 2i, 2i+1.
  WindowPlan p = PlanUpsample(8, 2, 4);
  EXPECT_TRUE(p.partitionable);
  EXPECT_EQ(p.halo, 0);
  EXPECT_EQ(p.lo[3], 6);
  EXPECT_EQ(p.hi[3], 8);
  // 2 -> 4 rows over 4 cores: core 2's row 2 reads row 1 (core 1, above);
  // core 3's row 3 reads row 1 too, two cores away.
  EXPECT_FALSE(PlanUpsample(2, 2, 4).partitionable);
  // 1 -> 2 over 2 cores: core 1 reads row 0 from core 0.
  p = PlanUpsample(1, 2, 2);
  EXPECT_TRUE(p.partitionable);
  EXPECT_EQ(p.halo, 1);
}

// Two cores of 3 rows each (W = 1, C = 1, one image), a 3x3 window: the
// exchange done by hand as halo_exchange does it; the window input holds the
// neighbour's rows, and gradients of halo rows go back to their owners.
TEST(SpatialTest, HaloRowsGoOutAndTheirGradientsComeBack) {
  const RowRange own[2] = {RowsOfCore(6, 2, 0), RowsOfCore(6, 2, 1)};
  const std::vector<float> x[2] = {{0, 1, 2}, {3, 4, 5}};
  const int halo = 1;
  std::vector<float> buf[2];
  for (int c = 0; c < 2; ++c) {
    buf[c].resize(HaloElements(1, halo, 1));
    PackHalo(x[c].data(), own[c], halo, 1, 1, buf[c].data());
  }
  buf[1][0] = buf[0][2];  // core 0's last row down to core 1's region 0
  buf[0][3] = buf[1][1];  // core 1's first row up to core 0's region 3
  const WindowPlan p = PlanWindow(6, 6, 2, 3, 1, 1);
  ASSERT_EQ(p.halo, 1);
  std::vector<float> ext;
  BuildWindowInput(x[1].data(), own[1], buf[1].data(), halo, 6, 1, 1, 0, p.lo[1], p.hi[1], 1, -1.f, ext);
  EXPECT_EQ(ext, (std::vector<float>{2, 3, 4, 5, -1}));
  // Backward: core 1's window gradient of ones; row 2 goes back to core 0.
  std::vector<float> dext(ext.size(), 1.f), dx(3, 0.f), gbuf(HaloElements(1, halo, 1));
  ScatterWindowGradient(dext.data(), own[1], 6, 1, 1, 0, p.lo[1], p.hi[1], 1, halo, dx.data(), gbuf.data());
  EXPECT_EQ(dx, (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(gbuf[1], 1.f);  // sent up
  std::vector<float> back(HaloElements(1, halo, 1), 0.f), dx0(3, 0.f);
  back[3] = gbuf[1];  // arrives in core 0's region 3
  AddReturnedHaloGradient(back.data(), own[0], halo, 1, 1, dx0.data());
  EXPECT_EQ(dx0, (std::vector<float>{0, 0, 1}));
}

TEST(SpatialTest, StripsGoIntoAndOutOfTheWholeTensor) {
  std::vector<float> whole(2 * 4, 0.f);  // 2 images of 4 rows, 1 float a row
  const std::vector<float> strip = {1, 2, 3, 4};  // rows 2, 3 of each image
  const RowRange own = RowsOfCore(4, 2, 1);
  PlaceStrip(strip.data(), own, 4, 1, 2, whole.data());
  EXPECT_EQ(whole, (std::vector<float>{0, 0, 1, 2, 0, 0, 3, 4}));
  std::vector<float> back(4, 0.f);
  CopyStrip(whole.data(), own, 4, 1, 2, back.data());
  EXPECT_EQ(back, strip);
  AddStrip(whole.data(), own, 4, 1, 2, back.data());
  EXPECT_EQ(back, (std::vector<float>{2, 4, 6, 8}));
}

}  // namespace
}  // namespace podbench::functional
