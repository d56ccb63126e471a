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


// A 2x2 stride-2 transposed convolution (Mask R-CNN's mask head): 14x14x256
// -> 28x28x256 is priced as the convolution it transposes (28x28x256 ->
// 14x14x256, 2x2/2): its forward pass is that one's input gradient.
TEST(TpuCostTest, TransposedConvolutionIsTheConvolutionItTransposes) {
  Conv2dShape t;
  t.n = 4;
  t.h = t.w = 14;
  t.c = 256;
  t.oc = 256;
  t.kh = t.kw = 2;
  t.stride = 2;
  const Conv2dShape e = TransposedConvEquivalent(t);
  EXPECT_EQ(e.h, 28);
  EXPECT_EQ(e.pad, 0);
  EXPECT_EQ(e.OutH(), 14);
  const CoreSpec spec;
  EXPECT_DOUBLE_EQ(Conv2dTransposeForwardCost(spec, t).padded_flops, Conv2dBackwardDataCost(spec, e).padded_flops);
  EXPECT_DOUBLE_EQ(Conv2dTransposeForwardCost(spec, t).flops, 2.0 * 4 * 14 * 14 * 4 * 256 * 256);
  EXPECT_DOUBLE_EQ(Conv2dTransposeBackwardDataCost(spec, t).mxu_s, Conv2dForwardCost(spec, e).mxu_s);
  // A 3x3 stride-2 one keeps its output at twice the input.
  t.kh = t.kw = 3;
  EXPECT_EQ(TransposedConvEquivalent(t).OutH(), 14);
}

TEST(TpuCostTest, EmbeddingLayerNormAndPoolingByHand) {
  const CoreSpec spec;
  // 256 tokens of 1024: rows read and written in bf16, int32 ids read.
  const OpCost g = EmbeddingForwardCost(spec, 256, 1024);
  EXPECT_DOUBLE_EQ(g.hbm_bytes, 256.0 * 1024 * 4 + 256 * 4);
  EXPECT_DOUBLE_EQ(g.vector_s, 0);
  // Its sparse gradient: one add per element; dy (bf16) read, the fp32 rows read and written.
  const OpCost sg = EmbeddingBackwardCost(spec, 256, 1024);
  EXPECT_DOUBLE_EQ(sg.hbm_bytes, 256.0 * 1024 * 10 + 256 * 4);
  EXPECT_NEAR(sg.vector_s, 256.0 * 1024 / kVecPeak, 1e-18);
  // Layer norm: 5 ops per element and an rsqrt (4 ops) per row.
  const OpCost ln = LayerNormForwardCost(spec, 256, 1024);
  EXPECT_NEAR(ln.vector_s, (256.0 * 1024 * 5 + 256 * 4) / kVecPeak, 1e-18);
  EXPECT_DOUBLE_EQ(ln.hbm_bytes, 256.0 * 1024 * 4);
  EXPECT_NEAR(LayerNormBackwardCost(spec, 256, 1024).vector_s, 256.0 * 1024 * 10 / kVecPeak, 1e-18);
  // 3x3/2 max pool of 112x112x64 -> 56x56x64: 9 ops per output; x read, y written.
  const OpCost mp = PoolForwardCost(spec, 112 * 112 * 64, 56 * 56 * 64, 9);
  EXPECT_NEAR(mp.vector_s, 56.0 * 56 * 64 * 9 / kVecPeak, 1e-18);
  EXPECT_DOUBLE_EQ(mp.hbm_bytes, 2.0 * (112 * 112 * 64 + 56 * 56 * 64));
  EXPECT_DOUBLE_EQ(PoolBackwardCost(spec, 100, 25, true).hbm_bytes, 2.0 * 2 * 100);
  EXPECT_DOUBLE_EQ(PoolBackwardCost(spec, 100, 25, false).hbm_bytes, 2.0 * (100 + 25));
}

TEST(TpuCostTest, DetectionOpsByHand) {
  CoreSpec spec;
  // SSD's evaluation NMS for one image: 8732 boxes, 81 classes, top 200 a
  // class, 200 detections.
  NmsShape n;
  n.boxes = 8732;
  n.classes = 81;
  n.pre_nms_top_k = 200;
  n.max_detections = 200;
  const OpCost one = BoxDecodeNmsCost(spec, n);
  const double halvings = 14;  // ceil(log2(8732))
  const double merge = 14;     // ceil(log2(81 x 200))
  const double ops = 8732 * 16.0 + 8732 * 81 * 6.0 + 81 * 8732 * 2 * halvings + 81 * 200 * 200 * 12.0 +
                     81 * 200 * 2 * merge;
  EXPECT_NEAR(one.vector_s, ops / kVecPeak, 1e-15);
  EXPECT_DOUBLE_EQ(one.hbm_bytes, 4.0 * (8732 * 85 + 2 * 81 * 200 * 5 + 200 * 7));
  n.batch = 8;
  EXPECT_NEAR(BoxDecodeNmsCost(spec, n).vector_s, 8 * one.vector_s, 1e-15);
  // The suppression loop's tiles: one op plus one per 256 candidates.
  spec.op_overhead_s = 1e-6;
  EXPECT_DOUBLE_EQ(BoxDecodeNmsCost(spec, n).overhead_s, 2e-6);
  n.pre_nms_top_k = 1000;
  EXPECT_DOUBLE_EQ(BoxDecodeNmsCost(spec, n).overhead_s, 5e-6);
  // ROIAlign: 512 ROIs to 7x7x256, 2x2 samples a bin, 8 ops and 4 corner
  // reads per sample and channel.
  RoiAlignShape r;
  r.rois = 512;
  const double samples = 512.0 * 49 * 4 * 256;
  const OpCost ra = RoiAlignForwardCost(CoreSpec{}, r);
  EXPECT_NEAR(ra.vector_s, samples * 8 / kVecPeak, 1e-15);
  EXPECT_DOUBLE_EQ(ra.hbm_bytes, samples * 4 * 2 + 512.0 * 49 * 256 * 2);
  EXPECT_GT(RoiAlignBackwardCost(CoreSpec{}, r).hbm_bytes, ra.hbm_bytes);
}

}  // namespace
}  // namespace podbench::kernels
