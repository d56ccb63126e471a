// Row strips and halo plans of spatial partitioning.
#include <gtest/gtest.h>

#include "workloads/ssd/spatial.h"

namespace podbench::ssd {
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

}  // namespace
}  // namespace podbench::ssd
