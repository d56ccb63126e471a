// Training MiniGo's network on game records: the examples a game gives, the
// v0.6 learning-rate boundaries, and the loss falling on fixed data.
#include "workloads/minigo/minigo_training.h"

#include <algorithm>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workloads/minigo/go/fake_evaluator.h"

namespace podbench::minigo {
namespace {

using ::testing::HasSubstr;

std::vector<SelfPlayGame> FakeGames(int n) {
  MctsOptions o;
  o.num_readouts = 4;
  o.virtual_losses = 2;
  FakeEvaluator::Options fo;
  fo.material_scale = 0.3f;
  FakeEvaluator eval(fo);
  auto games = PlaySelfPlayGames(o, n, n, 17, eval);
  EXPECT_TRUE(games.ok());
  return std::move(games).value();
}

TEST(MinigoTrainingTest, AGameGivesOneExamplePerSearchedMove) {
  const std::vector<SelfPlayGame> games = FakeGames(2);
  ExampleSet set;
  size_t expected = 0;
  for (const SelfPlayGame& g : games) {
    ASSERT_TRUE(AppendGameExamples(g, &set).ok());
    expected += g.moves.size() - (g.resigned ? 1 : 0);
  }
  ASSERT_EQ(static_cast<size_t>(set.size()), expected);
  ASSERT_EQ(set.features.size(), expected * kFeatureSize);
  // The first example is the empty board with black to play.
  std::vector<float> empty(kFeatureSize);
  Position start;
  const Position* h[] = {&start};
  ASSERT_TRUE(ExtractFeatures(h, empty).ok());
  EXPECT_TRUE(std::equal(empty.begin(), empty.end(), set.features.begin()));
  EXPECT_EQ(set.z[0], static_cast<float>(games[0].winner));
  // A broken record names what is wrong.
  SelfPlayGame bad = games[0];
  bad.winner = 0;
  EXPECT_THAT(AppendGameExamples(bad, &set).message(), HasSubstr("winner 0"));
}

TEST(MinigoTrainingTest, LearningRateFollowsTheV06Boundaries) {
  TrainOptions o;  // 0.32 / 0.032 / 0.0032 at 12500 and 18750
  EXPECT_FLOAT_EQ(o.LearningRate(9383), 0.32f);
  EXPECT_FLOAT_EQ(o.LearningRate(12499), 0.32f);
  EXPECT_FLOAT_EQ(o.LearningRate(12500), 0.032f);
  EXPECT_FLOAT_EQ(o.LearningRate(18750), 0.0032f);
  o.boundaries = {5};
  EXPECT_THAT(o.Validate().message(), HasSubstr("boundaries"));
}

TEST(MinigoTrainingTest, LossFallsOnFixedData) {
  ExampleSet data;
  for (const SelfPlayGame& g : FakeGames(3)) ASSERT_TRUE(AppendGameExamples(g, &data).ok());
  NetworkConfig nc;
  nc.conv_width = 8;
  nc.trunk_layers = 1;
  nc.fc_width = 16;
  auto net = Network::Create(nc, 3);
  ASSERT_TRUE(net.ok());
  TrainState state{std::move(net).value(), {}, 0};
  const int n = static_cast<int>(data.size());
  const double before = state.net->Loss(data.features.data(), data.pi.data(), data.z.data(), n).total();
  TrainOptions o;
  o.batch = 32;
  o.learning_rates = {0.02f};
  o.boundaries = {};
  o.random_symmetry = false;
  auto losses = Train(&state, data, o, 40, 5);
  ASSERT_TRUE(losses.ok()) << losses.status().ToString();
  EXPECT_EQ(state.global_step, 40);
  const double after = state.net->Loss(data.features.data(), data.pi.data(), data.z.data(), n).total();
  EXPECT_LT(after, 0.8 * before) << "before " << before << ", after " << after;
  EXPECT_FALSE(Train(&state, ExampleSet{}, o, 1, 5).ok());
}

}  // namespace
}  // namespace podbench::minigo
