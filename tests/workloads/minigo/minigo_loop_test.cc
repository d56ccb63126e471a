// MiniGo's reinforcement-learning loop at a toy size: match play, the cached
// checkpoint and target, and the same seed giving the same run.
#include "workloads/minigo/minigo_loop.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "workloads/minigo/go/fake_evaluator.h"

namespace podbench::minigo {
namespace {

using ::testing::HasSubstr;

MctsOptions Tiny() {
  MctsOptions o;
  o.num_readouts = 4;
  o.virtual_losses = 2;
  return o;
}

TEST(MinigoLoopTest, MatchAlternatesColoursAndIsDeterministic) {
  // A side that values black's material plays better than a blind one.
  FakeEvaluator::Options smart;
  smart.material_scale = 0.5f;
  FakeEvaluator a(smart), b;
  auto w1 = PlayMatch(Tiny(), 6, 3, 9, a, b);
  ASSERT_TRUE(w1.ok()) << w1.status().ToString();
  EXPECT_GE(*w1, 0);
  EXPECT_LE(*w1, 6);
  FakeEvaluator a2(smart), b2;
  auto w2 = PlayMatch(Tiny(), 6, 2, 9, a2, b2);  // other parallelism, same games
  ASSERT_TRUE(w2.ok());
  EXPECT_EQ(*w1, *w2);
  EXPECT_GT(a.calls(), 0);
  EXPECT_GT(b.calls(), 0);
  EXPECT_THAT(PlayMatch(Tiny(), 2, 0, 9, a, b).status().message(), HasSubstr("parallel_games"));
}

LoopConfig TinyLoop() {
  LoopConfig c;
  c.net.conv_width = 8;
  c.net.trunk_layers = 1;
  c.net.fc_width = 16;
  c.search = Tiny();
  c.games_per_generation = 2;
  c.parallel_games = 2;
  c.eval_max_batch = 64;
  c.train.batch = 8;
  c.train.learning_rates = {0.01f};
  c.train.boundaries = {};
  c.steps_per_generation = 2;
  c.window_generations = 2;
  c.generations = 2;
  c.gating_games = 2;
  c.target_games = 2;
  c.bootstrap_games = 2;
  c.bootstrap_readouts = 2;
  c.checkpoint_steps = 2;
  c.target_generations = 1;
  c.seed = 4;
  return c;
}

TEST(MinigoLoopTest, TinyLoopIsDeterministicAndCachesItsSetUp) {
  testing::TempDir dir;
  const LoopConfig c = TinyLoop();
  auto first = RunLoop(c, dir.path());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->checkpoint_cached);
  EXPECT_FALSE(first->target_cached);
  ASSERT_EQ(first->generations.size(), 2u);
  auto second = RunLoop(c, dir.path());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->checkpoint_cached);
  EXPECT_TRUE(second->target_cached);
  for (size_t g = 0; g < 2; ++g) {
    const GenerationEvent& a = first->generations[g];
    const GenerationEvent& b = second->generations[g];
    EXPECT_EQ(a.iteration, static_cast<int>(g) + 1);
    EXPECT_EQ(a.selfplay_positions, b.selfplay_positions);
    EXPECT_EQ(a.train_loss, b.train_loss);
    EXPECT_EQ(a.gating_win_rate, b.gating_win_rate);
    EXPECT_EQ(a.save_seconds, b.save_seconds);
    EXPECT_GT(a.save_seconds, a.start_seconds);
    EXPECT_GE(a.end_seconds, a.save_seconds);
  }
  ASSERT_EQ(first->target_evals.size(), second->target_evals.size());
  for (size_t i = 0; i < first->target_evals.size(); ++i)
    EXPECT_EQ(first->target_evals[i].win_rate, second->target_evals[i].win_rate);
  EXPECT_EQ(first->winning_iteration, second->winning_iteration);
  if (first->winning_iteration) {
    EXPECT_EQ(first->winning_save_seconds,
              first->generations[static_cast<size_t>(*first->winning_iteration - 1)].save_seconds);
  }
}

TEST(MinigoLoopTest, BadConfigAndCorruptCacheAreNamed) {
  LoopConfig c = TinyLoop();
  c.gating_games = 0;
  EXPECT_THAT(RunLoop(c, "").status().message(), HasSubstr("gating_games"));
  testing::TempDir dir;
  c = TinyLoop();
  {
    std::ofstream f(dir / (c.RecipeKey(false) + ".ckpt"));
    f << "junk";
  }
  auto r = RunLoop(c, dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(".ckpt"));
}

}  // namespace
}  // namespace podbench::minigo
