// The TPU-v3 cost functions against hand computations with the default
// CoreSpec: MXU peak 2 x 128 x 128 x 2 x 940e6 = 61.60384 TFLOP/s, vector
// unit 128 x 8 x 940e6 = 962.56 Gop/s, HBM 450 GB/s.
#include "kernels/cost/tpu_cost.h"

#include <gtest/gtest.h>

namespace podbench::kernels {
namespace {

constexpr double kMxuPeak = 61.60384e12, kVecPeak = 962.56e9, kHbm = 450e9;

TEST(TpuCostTest, SpecPeaks) {
  CoreSpec spec;
  EXPECT_DOUBLE_EQ(spec.mxu_peak_flops(), kMxuPeak);
  EXPECT_DOUBLE_EQ(spec.vector_peak_ops(), kVecPeak);
}

TEST(TpuCostTest, SmallMatMulIsHbmBound) {
  const OpCost c = MatMulCost(CoreSpec{}, 128, 128, 128);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 128 * 128 * 128);
  EXPECT_DOUBLE_EQ(c.padded_flops, c.flops);
  EXPECT_NEAR(c.mxu_s, 4194304 / kMxuPeak, 1e-15);
  EXPECT_NEAR(c.hbm_s, 98304 / kHbm, 1e-15);  // three 128 x 128 bf16 matrices
  EXPECT_DOUBLE_EQ(c.total_s(), c.hbm_s);
  EXPECT_STREQ(c.bound(), "hbm");
}

TEST(TpuCostTest, LargeMatMulIsMxuBound) {
  const OpCost c = MatMulCost(CoreSpec{}, 1024, 1024, 1024);
  EXPECT_NEAR(c.total_s(), 2.0 * (1 << 30) / kMxuPeak, 1e-12);
  EXPECT_STREQ(c.bound(), "mxu");
  EXPECT_DOUBLE_EQ(c.mxu_utilisation(), 1.0);
}

TEST(TpuCostTest, PaddingToTilesAndSublanes) {
  // m 100 -> 104 (8 sublanes), k and n 129 -> 256 (two 128 tiles).
  const OpCost c = MatMulCost(CoreSpec{}, 100, 129, 129);
  EXPECT_DOUBLE_EQ(c.padded_flops, 2.0 * 104 * 256 * 256);
  EXPECT_NEAR(c.mxu_utilisation(), (2.0 * 100 * 129 * 129) / (2.0 * 104 * 256 * 256), 1e-12);
  EXPECT_NEAR(c.mxu_s, 2.0 * 104 * 256 * 256 / kMxuPeak, 1e-15);
}

TEST(TpuCostTest, ConvolutionPadsChannelsPerTapOrFoldsShallowInputs) {
  Conv2dShape s;
  s.h = s.w = 28;
  s.c = 192;
  s.oc = 64;
  s.kh = s.kw = 3;
  s.pad = 1;
  // 192 channels fill a tile: per tap 256, 9 taps; 64 outputs pad to 128.
  const OpCost deep = Conv2dForwardCost(CoreSpec{}, s);
  EXPECT_DOUBLE_EQ(deep.padded_flops, 2.0 * 784 * (9 * 256) * 128);
  EXPECT_DOUBLE_EQ(deep.mxu_utilisation(), (192.0 * 64) / (256 * 128));
  s.h = s.w = 56;
  s.c = 64;
  // 64 channels: the 9 taps fold into one contraction of 576 -> 640.
  const OpCost f = Conv2dForwardCost(CoreSpec{}, s);
  EXPECT_DOUBLE_EQ(f.flops, 2.0 * 3136 * 64 * 576);
  EXPECT_DOUBLE_EQ(f.padded_flops, 2.0 * 3136 * 640 * 128);
  EXPECT_DOUBLE_EQ(f.mxu_utilisation(), 576.0 * 64 / (640 * 128));
  // Backward filter contracts over the 3136 positions (padded to 3200) and
  // streams 9 x 64 = 576 rows.
  const OpCost bf = Conv2dBackwardFilterCost(CoreSpec{}, s);
  EXPECT_DOUBLE_EQ(bf.padded_flops, 2.0 * 576 * 3200 * 128);
  const double bytes = 2.0 * (3136 * 64 + 576 * 64 + 3136 * 64);
  EXPECT_DOUBLE_EQ(f.hbm_bytes, bytes);
  EXPECT_DOUBLE_EQ(Conv2dBackwardDataCost(CoreSpec{}, s).hbm_bytes, bytes);
}

TEST(TpuCostTest, ElementwiseAndOverheadAndCalibration) {
  CoreSpec spec;
  const OpCost e = ElementwiseCost(spec, 1'000'000, 1, 4);
  EXPECT_NEAR(e.vector_s, 1e6 / kVecPeak, 1e-15);
  EXPECT_NEAR(e.hbm_s, 4e6 / kHbm, 1e-15);
  EXPECT_STREQ(e.bound(), "hbm");
  spec.op_overhead_s = 2e-6;
  spec.hbm_efficiency = 0.5;
  spec.mxu_efficiency = 0.5;
  const OpCost e2 = ElementwiseCost(spec, 1'000'000, 1, 4);
  EXPECT_NEAR(e2.total_s(), 2 * 4e6 / kHbm + 2e-6, 1e-15);
  const OpCost m = MatMulCost(spec, 1024, 1024, 1024);
  EXPECT_NEAR(m.mxu_s, 2 * 2.0 * (1 << 30) / kMxuPeak, 1e-12);
  // Vector-heavy: 100 ops per element, no memory traffic.
  EXPECT_STREQ(ElementwiseCost(CoreSpec{}, 1000, 100, 0).bound(), "vector");
}

TEST(TpuCostTest, OptimizerAndNormalisationCosts) {
  const CoreSpec spec;
  const OpCost sgd = OptimizerCost(spec, 25'000'000, Optimizer::kSgdMomentum);
  EXPECT_NEAR(sgd.hbm_s, 25e6 * 20 / kHbm, 1e-12);
  EXPECT_GT(OptimizerCost(spec, 1000, Optimizer::kAdam).total_s(),
            OptimizerCost(spec, 1000, Optimizer::kSgdMomentum).total_s());
  const OpCost bn = BatchNormForwardCost(spec, 1000, 64);
  EXPECT_NEAR(bn.vector_s, 64000.0 * 5 / kVecPeak, 1e-15);
  EXPECT_NEAR(bn.hbm_s, 64000.0 * 4 / kHbm, 1e-15);
  EXPECT_GT(SoftmaxXentCost(spec, 32, 1001).total_s(), 0);
}

// An image stem (3 channels, 7x7/2): the 147 taps x channels fold into one
// contraction of 256, and the input still has a backward-data cost (whether a
// network needs it is the workload's business).
TEST(TpuCostTest, ShallowImageStemFoldsItsTaps) {
  Conv2dShape s;
  s.n = 32;
  s.h = s.w = 224;
  s.c = 3;
  s.oc = 64;
  s.kh = s.kw = 7;
  s.stride = 2;
  s.pad = 3;
  ASSERT_EQ(s.OutH(), 112);
  const OpCost f = Conv2dForwardCost(CoreSpec{}, s);
  EXPECT_NEAR(f.mxu_utilisation(), 147.0 * 64 / (256 * 128), 1e-12);
  EXPECT_STREQ(f.bound(), "mxu");
  EXPECT_GT(Conv2dBackwardDataCost(CoreSpec{}, s).total_s(), 0);
}

}  // namespace
}  // namespace podbench::kernels
