// MiniGo's 9x9 graph against a hand count, and its `default` preset.
//
// No parameter or FLOP count of the v0.6 9x9 network is published: not by the
// reference (minigo dual_net.py and ml_perf/flags/9), not in NVIDIA's or
// Intel's v0.6 logs, and AlphaGo Zero (whose design it scales down) gives
// none either; so there is no nearest figure to compare against. The counts
// below are derived by hand from the architecture flags: conv_width 32,
// trunk_layers 9, fc_width 64, 17 input planes, policy 2 and value 1 filters.
#include "workloads/minigo/minigo_graph.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>


namespace podbench::minigo {
namespace {

using ::testing::HasSubstr;

projection::ModelGraph Graph() {
  auto g = BuildMiniGoGraph();
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : projection::ModelGraph{};
}

TEST(MiniGoGraphTest, ParametersAndMacsMatchTheHandCount) {
  const int64_t stem = 3 * 3 * 17 * 32 + 2 * 32;          // conv (no bias) + BN scale, shift
  const int64_t trunk = 9 * 2 * (3 * 3 * 32 * 32 + 2 * 32);
  const int64_t policy = 32 * 2 + (2 * 81 * 82 + 82);      // 1x1 conv, BN without params, dense
  const int64_t value = 32 * 1 + (81 * 64 + 64) + (64 * 1 + 1);
  const projection::ModelGraph g = Graph();
  EXPECT_EQ(g.TotalParams(), stem + trunk + policy + value);
  EXPECT_EQ(g.TotalParams(), 190775);
  EXPECT_EQ(g.TrainableParams(), g.TotalParams());

  const double macs = 81.0 * (3 * 3 * 17 * 32 + 9 * 2 * 3 * 3 * 32 * 32 + 32 * 2 + 32) + 2 * 81 * 82 + 81 * 64 + 64;
  EXPECT_DOUBLE_EQ(g.ForwardMacs(), macs);
  EXPECT_DOUBLE_EQ(g.ForwardMacs(), 13859812.0);
  EXPECT_DOUBLE_EQ(g.EvalMacs(), g.ForwardMacs());
}

TEST(MiniGoGraphTest, HeadsAndLoss) {
  const projection::ModelGraph g = Graph();
  int blocks = 0;
  for (const auto& op : g.train) blocks += op.name.find(".add_relu") != std::string::npos;
  EXPECT_EQ(blocks, 9);
  bool policy = false;
  for (const auto& op : g.train) {
    if (op.name == "policy.fc") {
      policy = true;
      EXPECT_EQ(std::get<projection::MatMulAttrs>(op.attrs).n, 82);
    }
    if (op.name == "policy.bn") {
      EXPECT_TRUE(op.params.empty());
    }
    if (op.name == "conv0") {
      EXPECT_FALSE(op.needs_input_grad);
    }
    if (op.name == "loss.policy") {
      EXPECT_EQ(std::get<projection::SoftmaxXentAttrs>(op.attrs).classes, 82);
    }
  }
  EXPECT_TRUE(policy);
}

}  // namespace
}  // namespace podbench::minigo
