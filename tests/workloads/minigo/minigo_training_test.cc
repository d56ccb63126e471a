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

// Pass-free examples (the functional preset's): the same positions and results, each policy
// target without its pass share and renormalised; a target that was all
// pass (a game's closing passes can be) becomes all zero.
TEST(MinigoTrainingTest, WithoutPassInThePolicyTargetThePassShareIsRemovedAndTheRestRenormalised) {
  std::vector<SelfPlayGame> games = FakeGames(2);
  games[0].search_pi[1].fill(0.f);
  games[0].search_pi[1][kPass] = 1.f;  // a target that is all pass
  ExampleSet with, without;
  for (const SelfPlayGame& g : games) {
    ASSERT_TRUE(AppendGameExamples(g, &with).ok());
    ASSERT_TRUE(AppendGameExamples(g, &without, false).ok());
  }
  ASSERT_EQ(without.size(), with.size());
  EXPECT_EQ(without.features, with.features);
  EXPECT_EQ(without.z, with.z);
  int with_pass = 0;
  for (int64_t i = 0; i < with.size(); ++i) {
    const float* a = with.pi.data() + i * kNumMoves;
    const float* b = without.pi.data() + i * kNumMoves;
    EXPECT_EQ(b[kPass], 0.f) << i;
    const float rest = 1.f - a[kPass];
    with_pass += a[kPass] > 0 ? 1 : 0;
    for (int m = 0; m < kNumPoints; ++m) {
      EXPECT_NEAR(b[m], rest > 0 ? a[m] / rest : 0.f, 1e-6f) << i << " " << m;
    }
  }
  EXPECT_GT(with_pass, 1);  // the fake games' searches do visit pass
  const float* all_pass = without.pi.data() + 1 * kNumMoves;
  EXPECT_TRUE(std::all_of(all_pass, all_pass + kNumMoves, [](float x) { return x == 0.f; }));
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
