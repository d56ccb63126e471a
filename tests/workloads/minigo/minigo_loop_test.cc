// MiniGo's reinforcement-learning loop at a toy size: match play, the cached
// checkpoint and target, and the same seed giving the same run.
#include "workloads/minigo/minigo_loop.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "workloads/minigo/go/fake_evaluator.h"
#include "workloads/minigo/minigo_session.h"

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

// A match split by game index over callers (cores k mod 3) wins what the
// whole match wins: every game keeps its seed and colours.
TEST(MinigoLoopTest, MatchSplitOverCoresWinsWhatTheWholeMatchWins) {
  FakeEvaluator::Options smart;
  smart.material_scale = 0.5f;
  FakeEvaluator a(smart), b;
  auto whole = PlayMatch(Tiny(), 7, 7, 5, a, b);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  int split = 0;
  for (int core = 0; core < 3; ++core) {
    std::vector<int> mine;
    for (int k = core; k < 7; k += 3) mine.push_back(k);
    auto w = PlayMatch(Tiny(), mine, 2, 5, a, b);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    split += *w;
  }
  EXPECT_EQ(split, *whole);
}

// Gating and target games are v0.6 evaluation games (cc/eval.cc:93-95): no
// root noise, no soft-pick, random symmetries on, whatever the self-play
// options say. Options that differ only there play the same games.
TEST(MinigoLoopTest, MatchPlaysAsEvalGamesWhateverTheSelfPlayOptionsSay) {
  FakeEvaluator::Options smart;
  smart.material_scale = 0.5f;
  smart.favoured_move = 10;  // a prior the board's symmetries move
  MctsOptions selfplay = Tiny();  // noise and soft-pick on, as self-play has them
  ASSERT_TRUE(selfplay.inject_noise && selfplay.soft_pick && selfplay.random_symmetry);
  MctsOptions eval = Tiny();
  eval.inject_noise = false;
  eval.soft_pick = false;
  MctsOptions no_symmetry = eval;
  no_symmetry.random_symmetry = false;
  std::vector<SearchStats> stats(3);
  std::vector<int> wins;
  for (size_t i = 0; i < 3; ++i) {
    FakeEvaluator a(smart), b;
    const MctsOptions& o = i == 0 ? selfplay : i == 1 ? eval : no_symmetry;
    auto w = PlayMatch(o, 6, 3, 11, a, b, &stats[i]);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    wins.push_back(*w);
  }
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(wins[i], wins[0]) << i;
    EXPECT_EQ(stats[i].positions_evaluated, stats[0].positions_evaluated) << i;
    EXPECT_EQ(stats[i].evaluator_calls, stats[0].evaluator_calls) << i;
  }
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

// The pass-free policy targets (the functional preset's) are another recipe: another
// cache file, so a cached v0.6 set-up is never reused for it, and another run.
TEST(MinigoLoopTest, PassFreePolicyTargetsAreAnotherRecipe) {
  testing::TempDir dir;
  LoopConfig c = TinyLoop();
  auto v06 = RunLoop(c, dir.path());
  ASSERT_TRUE(v06.ok()) << v06.status().ToString();
  const std::string key = c.RecipeKey(false, 1), target_key = c.RecipeKey(true, 1);
  c.pass_in_policy_target = false;
  EXPECT_NE(c.RecipeKey(false, 1), key);
  EXPECT_NE(c.RecipeKey(true, 1), target_key);
  auto pass_free = RunLoop(c, dir.path());
  ASSERT_TRUE(pass_free.ok()) << pass_free.status().ToString();
  EXPECT_FALSE(pass_free->checkpoint_cached);
  EXPECT_FALSE(pass_free->target_cached);
  ASSERT_EQ(pass_free->generations.size(), v06->generations.size());
  EXPECT_NE(pass_free->generations[0].train_loss, v06->generations[0].train_loss);
}

// The session's pieces one at a time: set-up, then generations in order
// (out of order is refused), target evaluations of models that exist, the
// same seed and cores giving the same parameters, and the emulated save of
// generation g after its training and before its end (gating follows it).
TEST(MinigoLoopTest, SessionRunsGenerationsInOrderAndIsAFunctionOfSeedAndCores) {
  const LoopConfig c = TinyLoop();
  auto run = [&](int cores) -> std::string {
    auto s = LoopSession::Create(c, cores, nullptr, "");
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return "";
    EXPECT_EQ((*s)->Generation(1).status().code(), Status::Code::kFailedPrecondition);
    auto setup = (*s)->Initialize();
    EXPECT_TRUE(setup.ok()) << setup.status().ToString();
    EXPECT_GT(setup->seconds, 0);
    EXPECT_EQ((*s)->Generation(2).status().code(), Status::Code::kFailedPrecondition);
    EXPECT_EQ((*s)->EvaluateTarget(1).status().code(), Status::Code::kFailedPrecondition);
    auto g1 = (*s)->Generation(1);
    EXPECT_TRUE(g1.ok()) << g1.status().ToString();
    if (!g1.ok()) return "";
    EXPECT_EQ(g1->selfplay_games, c.games_per_generation);
    EXPECT_GT(g1->selfplay_positions, 0);
    EXPECT_DOUBLE_EQ(g1->save_seconds, g1->start_seconds + g1->train_seconds);
    EXPECT_GE(g1->end_seconds, g1->save_seconds + g1->gating_seconds);
    auto t1 = (*s)->EvaluateTarget(1);
    EXPECT_TRUE(t1.ok()) << t1.status().ToString();
    if (t1.ok()) {
      EXPECT_FLOAT_EQ(t1->win_rate, static_cast<float>(t1->wins) / static_cast<float>(c.target_games));
    }
    return (*s)->ParameterFingerprint();
  };
  const std::string one = run(1);
  EXPECT_EQ(one, run(1));
  EXPECT_FALSE(run(3).empty());  // three cores own the games k mod 3
  EXPECT_THAT(one, HasSubstr("fnv1a64:"));
  EXPECT_EQ(LoopSession::Create(c, 0, nullptr, "").status().code(), Status::Code::kInvalidArgument);
}

// The set-up's self-play and the target evaluations split the cores over
// host threads (LoopConfig::host_threads), each with its own copy of the
// network: the games, the checkpoint, the target and every win are the same
// as on one thread.
TEST(MinigoLoopTest, HostThreadsChangeNoResult) {
  auto run = [](int threads) -> std::string {
    LoopConfig c = TinyLoop();
    c.host_threads = threads;
    auto s = LoopSession::Create(c, 4, nullptr, "");
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return "";
    auto setup = (*s)->Initialize();
    EXPECT_TRUE(setup.ok()) << setup.status().ToString();
    auto g1 = (*s)->Generation(1);
    EXPECT_TRUE(g1.ok()) << g1.status().ToString();
    std::string out = (*s)->ParameterFingerprint();
    for (int g : {0, 1}) {
      auto t = (*s)->EvaluateTarget(g);
      EXPECT_TRUE(t.ok()) << t.status().ToString();
      if (t.ok()) out += " " + std::to_string(t->wins) + "@" + std::to_string(t->seconds);
    }
    return out;
  };
  const std::string one = run(1);
  EXPECT_THAT(one, HasSubstr("fnv1a64:"));
  EXPECT_EQ(one, run(2));
  LoopConfig bad = TinyLoop();
  bad.host_threads = 0;
  EXPECT_THAT(bad.Validate().ToString(), HasSubstr("host_threads"));
}

// Issue 37: over R ranks of 8 cores, every game of a phase is played by
// exactly one rank, the owner of core k mod 8 (topology::CoresOfRank), so a
// rank plays, and generates the examples of, its own games only.
TEST(MinigoLoopTest, EveryGameIsPlayedByTheRankOfItsCoreOnly) {
  const int cores = 8, games = 13;
  for (int ranks : {1, 2, 4}) {
    std::vector<int> played_by(games, -1);
    for (int r = 0; r < ranks; ++r) {
      const topology::CoreBlock mine = topology::CoresOfRank(cores, ranks, r);
      for (int core = mine.begin; core < mine.end; ++core) {
        for (int k : GamesOfCore(games, cores, core)) {
          EXPECT_EQ(k % cores, core);
          EXPECT_EQ(played_by[static_cast<size_t>(k)], -1) << "game " << k << " played twice";
          played_by[static_cast<size_t>(k)] = r;
        }
      }
    }
    for (int k = 0; k < games; ++k) {
      EXPECT_EQ(played_by[static_cast<size_t>(k)], topology::OwnerOfCore(k % cores, cores, ranks)) << k;
    }
  }
}

TEST(MinigoLoopTest, BadConfigAndCorruptCacheAreNamed) {
  LoopConfig c = TinyLoop();
  c.gating_games = 0;
  EXPECT_THAT(RunLoop(c, "").status().message(), HasSubstr("gating_games"));
  testing::TempDir dir;
  c = TinyLoop();
  {
    std::ofstream f(dir / (c.RecipeKey(false, 1) + ".ckpt"));
    f << "junk";
  }
  auto r = RunLoop(c, dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(".ckpt"));
}

}  // namespace
}  // namespace podbench::minigo
