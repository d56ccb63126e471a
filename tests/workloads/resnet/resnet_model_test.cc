#include "workloads/resnet/resnet_model.h"

#include <gtest/gtest.h>

namespace podbench::resnet {
namespace {

const Layer& Find(const std::vector<Layer>& layers, const std::string& name) {
  for (const Layer& l : layers) {
    if (l.name == name) return l;
  }
  ADD_FAILURE() << "no layer " << name;
  static Layer none;
  return none;
}

// The figures MLPerf and the papers quote: 25.6 M parameters, about 4.1 GMAC.
TEST(ResNetModelTest, ResNet50ParamsAndMacs) {
  auto layers = BuildResNet(ResNetConfig::ResNet50());
  EXPECT_EQ(TotalParams(layers), 25557032);  // incl. batch-norm scale and shift
  double gmac = TotalMacs(layers) / 1e9;
  EXPECT_NEAR(gmac, 4.09, 0.03);
  int convs = 0;
  for (const Layer& l : layers) convs += l.kind == LayerKind::kConv;
  EXPECT_EQ(convs, 53);  // 1 stem + 16 blocks x 3 + 4 projections
}

TEST(ResNetModelTest, StrideSitsOnThe3x3ConvolutionV15) {
  auto layers = BuildResNet(ResNetConfig::ResNet50());
  const Layer& c1 = Find(layers, "stage2.block0.conv1");
  const Layer& c2 = Find(layers, "stage2.block0.conv2");
  EXPECT_EQ(c1.stride, 1);
  EXPECT_EQ(c1.out_h, 56);
  EXPECT_EQ(c2.stride, 2);
  EXPECT_EQ(c2.kernel, 3);
  EXPECT_EQ(c2.out_h, 28);
  const Layer& sc = Find(layers, "stage2.block0.shortcut.conv");
  EXPECT_EQ(sc.in_c, 256);
  EXPECT_EQ(sc.out_c, 512);
  EXPECT_EQ(sc.out_h, 28);
}

TEST(ResNetModelTest, ShapesFlowThroughTheNetwork) {
  auto layers = BuildResNet(ResNetConfig::ResNet50());
  EXPECT_EQ(Find(layers, "stem.conv").out_h, 112);
  EXPECT_EQ(Find(layers, "stem.pool").out_h, 56);
  EXPECT_EQ(Find(layers, "stage4.block2.relu3").out_c, 2048);
  EXPECT_EQ(Find(layers, "stage4.block2.relu3").out_h, 7);
  const Layer& fc = Find(layers, "head.fc");
  EXPECT_EQ(fc.in_c, 2048);
  EXPECT_EQ(fc.out_c, 1000);
  // Each residual add sees matching shapes.
  for (size_t i = 1; i < layers.size(); ++i) {
    if (layers[i].kind == LayerKind::kAdd) {
      EXPECT_EQ(layers[i].in_c, layers[i - 1].out_c) << layers[i].name;
    }
  }
}

TEST(ResNetModelTest, SmallConfigurationsForFunctionalMode) {
  ResNetConfig small;
  small.image_size = 32;
  small.width = 8;
  small.blocks = {1, 1, 1, 1};
  small.num_classes = 12;
  ASSERT_TRUE(small.Validate().ok());
  auto layers = BuildResNet(small);
  EXPECT_EQ(Find(layers, "head.fc").out_c, 12);
  EXPECT_EQ(Find(layers, "stage4.block0.relu3").out_h, 1);
  EXPECT_LT(TotalParams(layers), 300000);
  ResNetConfig bad = small;
  bad.blocks[2] = 0;
  EXPECT_EQ(bad.Validate().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace podbench::resnet

#include "workloads/resnet/google_v06.h"

namespace podbench::resnet {
namespace {

TEST(GoogleV06Test, ConfigsAreConsistent) {
  ASSERT_EQ(GoogleV06Configs().size(), 6u);
  for (const auto& c : GoogleV06Configs()) {
    EXPECT_EQ(c.per_core_batch * c.cores, c.global_batch) << c.slice;
    // A block is 4 epochs of ImageNet (1,281,167 images), rounded up.
    EXPECT_EQ(c.steps_per_eval, (4 * 1281167 + c.global_batch - 1) / c.global_batch) << c.slice;
    EXPECT_EQ(c.train_steps % c.steps_per_eval, 0) << c.slice;
    EXPECT_GE(c.eval_steps * c.eval_batch, 50000) << c.slice;
  }
  EXPECT_EQ(GoogleV06ConfigFor("tpu-v3-2048")->bn_group, 8);
  EXPECT_FALSE(GoogleV06ConfigFor("tpu-v3-8").has_value());
}

TEST(GoogleV06Test, ConvergenceNeedsMoreEpochsAtLargerBatch) {
  EXPECT_DOUBLE_EQ(ConvergenceFor(4096).MeanEpochs(), 60.8);
  EXPECT_DOUBLE_EQ(ConvergenceFor(16384).MeanEpochs(), 64.8);
  EXPECT_NEAR(ConvergenceFor(32768).MeanEpochs(), (72.0 * 11 + 76 * 8) / 19, 1e-12);
  EXPECT_EQ(ConvergenceFor(8192).global_batch, 4096);
  EXPECT_EQ(ConvergenceFor(256).global_batch, 4096);
  EXPECT_EQ(ConvergenceFor(65536).global_batch, 32768);
}

}  // namespace
}  // namespace podbench::resnet
