// MiniGo's tree search with a deterministic fake evaluator: PUCT follows the
// prior, virtual loss spreads a batch, root noise, the temperature cutoff,
// resignation, batching across games, determinism, and a capture found by
// search alone.
#include "workloads/minigo/go/mcts.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workloads/minigo/go/fake_evaluator.h"

namespace podbench::minigo {
namespace {

using ::testing::HasSubstr;

int Pt(std::string_view gtp) { return ParseGtpMove(gtp).value(); }

MctsOptions Quiet() {
  MctsOptions o;
  o.inject_noise = false;
  o.random_symmetry = false;
  return o;
}

void Search(MctsPlayer& p, Evaluator& e) {
  p.StartSearch();
  MctsPlayer* ps[] = {&p};
  ASSERT_TRUE(RunSearches(ps, e).ok());
}

int MostVisited(const MctsNode& n) {
  int best = 0;
  for (int m = 1; m < kNumMoves; ++m)
    if (n.child_N(m) > n.child_N(best)) best = m;
  return best;
}

TEST(MctsTest, DefaultsAreMiniGoV06) {
  MctsOptions o;
  EXPECT_EQ(o.num_readouts, 240);
  EXPECT_EQ(o.virtual_losses, 8);
  EXPECT_FLOAT_EQ(o.c_puct_base, 19652);
  EXPECT_FLOAT_EQ(o.c_puct_init, 1.25f);
  EXPECT_NEAR(o.dirichlet_alpha, 0.1337f, 1e-4);
  EXPECT_FLOAT_EQ(o.noise_mix, 0.25f);
  EXPECT_FLOAT_EQ(o.value_init_penalty, 0.2f);
  EXPECT_EQ(o.softpick_move_cutoff, 6);
  EXPECT_FLOAT_EQ(o.resign_threshold, -0.99f);
  EXPECT_FLOAT_EQ(o.disable_resign_pct, 0.1f);
  EXPECT_TRUE(o.Validate().ok());
}

TEST(MctsTest, BadOptionsAreNamed) {
  MctsOptions o;
  o.virtual_losses = 0;
  Status st = o.Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("virtual_losses = 0"));
  o = MctsOptions();
  o.softpick_move_cutoff = 5;
  EXPECT_THAT(o.Validate().message(), HasSubstr("softpick_move_cutoff = 5"));
  o = MctsOptions();
  o.resign_threshold = 0.5f;
  EXPECT_THAT(o.Validate().message(), HasSubstr("resign_threshold"));
  FakeEvaluator e;
  auto games = PlaySelfPlayGames(MctsOptions(), 2, 0, 1, e);
  ASSERT_FALSE(games.ok());
  EXPECT_THAT(games.status().message(), HasSubstr("parallel_games = 0"));
}

TEST(MctsTest, VisitsConcentrateOnTheFavouredMove) {
  FakeEvaluator::Options fo;
  fo.favoured_move = Pt("C3");
  fo.favoured_share = 0.5f;
  FakeEvaluator e(fo);
  MctsPlayer p(Quiet(), 1, false);
  Search(p, e);
  EXPECT_GE(p.root().N(), 240);
  EXPECT_EQ(MostVisited(p.root()), Pt("C3"));
  EXPECT_GT(p.root().child_N(Pt("C3")), 0.5f * p.root().N());
  EXPECT_EQ(p.root().MostVisitedMove(), Pt("C3"));
}

TEST(MctsTest, VirtualLossSpreadsABatchOverDistinctLeaves) {
  FakeEvaluator e;
  MctsPlayer p(Quiet(), 1, false);
  p.StartSearch();
  std::vector<float> features;
  ASSERT_EQ(p.SelectLeaves(&features), 1);  // the unexpanded root alone
  std::vector<float> policy(kNumMoves, 1.0f / kNumMoves), value(1, 0.0f);
  p.ProcessResults(policy, value);
  features.clear();
  ASSERT_EQ(p.SelectLeaves(&features), 8);
  EXPECT_EQ(features.size(), 8u * kFeatureSize);
  // Eight different children of the root, each holding one virtual loss.
  int with_loss = 0;
  for (int m = 0; m < kNumMoves; ++m) {
    const MctsNode* c = p.root().FindChild(m);
    if (c != nullptr && c->virtual_losses_applied > 0) {
      EXPECT_EQ(c->virtual_losses_applied, 1);
      ++with_loss;
    }
  }
  EXPECT_EQ(with_loss, 8);
  EXPECT_EQ(p.root().virtual_losses_applied, 8);
  policy.assign(8 * kNumMoves, 1.0f / kNumMoves);
  value.assign(8, 0.0f);
  p.ProcessResults(policy, value);
  EXPECT_EQ(p.root().virtual_losses_applied, 0);
  EXPECT_FLOAT_EQ(p.root().N(), 9);
  // Without virtual loss spreading, the same leaf would be chosen again: with
  // one virtual loss per step, a batch is one leaf.
  MctsOptions one = Quiet();
  one.virtual_losses = 1;
  MctsPlayer q(one, 1, false);
  q.StartSearch();
  features.clear();
  ASSERT_EQ(q.SelectLeaves(&features), 1);
  q.ProcessResults(std::vector<float>(kNumMoves, 1.0f / kNumMoves), std::vector<float>(1, 0.0f));
  features.clear();
  EXPECT_EQ(q.SelectLeaves(&features), 1);
}

TEST(MctsTest, LeavesOfManyGamesGoToOneEvaluatorCall) {
  FakeEvaluator e;
  std::vector<std::unique_ptr<MctsPlayer>> players;
  std::vector<MctsPlayer*> ptrs;
  for (int g = 0; g < 4; ++g) {
    players.push_back(std::make_unique<MctsPlayer>(MctsOptions(), g, false));
    players.back()->StartSearch();
    ptrs.push_back(players.back().get());
  }
  SearchStats stats;
  ASSERT_TRUE(SearchStep(ptrs, e, &stats).ok());  // four roots
  EXPECT_EQ(e.calls(), 1);
  EXPECT_EQ(e.max_batch(), 4);
  ASSERT_TRUE(SearchStep(ptrs, e, &stats).ok());  // 4 games x 8 leaves
  EXPECT_EQ(e.calls(), 2);
  EXPECT_EQ(e.max_batch(), 32);
  ASSERT_TRUE(RunSearches(ptrs, e, &stats).ok());
  for (MctsPlayer* p : ptrs) EXPECT_GE(p->root().N(), 1 + 240);
  EXPECT_EQ(stats.evaluator_calls, e.calls());
  EXPECT_EQ(stats.positions_evaluated, e.positions());
}

TEST(MctsTest, EvaluatorErrorsReachTheCaller) {
  class Failing : public Evaluator {
   public:
    Status Evaluate(std::span<const float>, int, std::span<float>, std::span<float>) override {
      return Status::Internal("device lost");
    }
  } failing;
  auto games = PlaySelfPlayGames(MctsOptions(), 1, 1, 1, failing);
  ASSERT_FALSE(games.ok());
  EXPECT_THAT(games.status().message(), HasSubstr("device lost"));
  EXPECT_THAT(games.status().message(), HasSubstr("leaf evaluation"));
}

TEST(MctsTest, NonFiniteEvaluatorOutputIsAnError) {
  class Nan : public Evaluator {
   public:
    Status Evaluate(std::span<const float>, int batch, std::span<float> policy, std::span<float> value) override {
      std::fill(policy.begin(), policy.end(), 1.0f / kNumMoves);
      std::fill(value.begin(), value.end(), 0.0f);
      value[static_cast<size_t>(batch - 1)] = std::nanf("");
      return Status::Ok();
    }
  } nan;
  MctsPlayer p(MctsOptions(), 1, false);
  p.StartSearch();
  MctsPlayer* ps[] = {&p};
  Status st = SearchStep(ps, nan);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("position 0 of 1"));
}

// The root's priors after the noise went in (the first step after expansion).
std::vector<float> NoisedPriors(uint64_t seed, bool noise) {
  MctsOptions o;
  o.random_symmetry = false;
  o.inject_noise = noise;
  FakeEvaluator e;
  MctsPlayer p(o, seed, false);
  MctsPlayer* ps[] = {&p};
  p.StartSearch();
  EXPECT_TRUE(SearchStep(ps, e).ok());  // expands the root
  EXPECT_TRUE(SearchStep(ps, e).ok());  // injects the noise, then searches
  std::vector<float> pri;
  for (int m = 0; m < kNumMoves; ++m) pri.push_back(p.root().child_P(m));
  return pri;
}

TEST(MctsTest, DirichletNoiseIsFixedBySeedAndKeepsAProbability) {
  const auto a = NoisedPriors(5, true);
  const auto b = NoisedPriors(5, true);
  const auto c = NoisedPriors(6, true);
  const auto none = NoisedPriors(5, false);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  float sum = 0;
  for (int m = 0; m < kNumMoves; ++m) {
    sum += a[m];
    EXPECT_NEAR(none[m], 1.0f / kNumMoves, 1e-7);
    EXPECT_GE(a[m], 0.75f * none[m] - 1e-6f);  // (1 - 0.25) of the prior, plus noise
  }
  EXPECT_NEAR(sum, 1.0f, 1e-4);
  // Alpha 0.134 is spiky: a few moves take most of the noise.
  const float top = *std::max_element(a.begin(), a.end());
  EXPECT_GT(top, 0.75f / kNumMoves + 0.05f);
}

TEST(MctsTest, NoiseAndPriorsSkipIllegalMoves) {
  auto start = Position::FromDiagram(
      ".O.......\nO........\n.........\n.........\n.........\n"
      ".........\n.........\n.........\n.........\n");
  ASSERT_TRUE(start.ok());
  MctsOptions o;
  FakeEvaluator e;
  MctsPlayer p(o, 9, false, *start);
  Search(p, e);
  EXPECT_EQ(p.root().child_P(Pt("A9")), 0);  // suicide for black
  EXPECT_EQ(p.root().child_P(Pt("B9")), 0);  // occupied
  EXPECT_EQ(p.root().child_N(Pt("A9")), 0);
}

TEST(MctsTest, SoftPickBeforeMoveSixThenMostVisited) {
  FakeEvaluator e;
  std::set<int> early;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    MctsOptions o;
    o.num_readouts = 64;
    MctsPlayer p(o, seed, false);
    Search(p, e);
    const int m = p.ChooseMove();
    EXPECT_NE(m, kPass);
    EXPECT_GT(p.root().child_N(m), 0);
    early.insert(m);
    // Play on to move 6; from there the choice is the most visited move.
    ASSERT_TRUE(p.PlayMove(m).ok());
    for (int i = 1; i < 6; ++i) {
      Search(p, e);
      ASSERT_TRUE(p.PlayMove(p.ChooseMove()).ok());
    }
    ASSERT_EQ(p.position().move_number(), 6);
    Search(p, e);
    EXPECT_EQ(p.ChooseMove(), p.root().MostVisitedMove());
    EXPECT_EQ(p.root().child_N(p.ChooseMove()), p.root().child_N(MostVisited(p.root())));
  }
  EXPECT_GT(early.size(), 3u);  // the first move varies with the seed
}

TEST(MctsTest, SearchPiIsSquashedBeforeTheCutoff) {
  FakeEvaluator e;
  MctsOptions o;
  o.num_readouts = 32;
  MctsPlayer p(o, 3, false);
  Search(p, e);
  std::vector<float> n;
  for (int m = 0; m < kNumMoves; ++m) n.push_back(p.root().child_N(m));
  ASSERT_TRUE(p.PlayMove(p.ChooseMove()).ok());
  ASSERT_EQ(p.search_pi().size(), 1u);
  float total = 0;
  for (float x : n) total += std::pow(x, 0.98f);
  for (int m = 0; m < kNumMoves; ++m) EXPECT_NEAR(p.search_pi()[0][m], std::pow(n[m], 0.98f) / total, 1e-6);
}

TEST(MctsTest, ResignsBelowTheThresholdOnlyWhenEnabled) {
  FakeEvaluator::Options lost;
  lost.constant_value = -1.0f;  // black loses
  FakeEvaluator lost_eval(lost);
  {
    MctsPlayer p(Quiet(), 1, /*resign_enabled=*/true);
    Search(p, lost_eval);
    EXPECT_LT(p.root().QPerspective(), -0.99f);
    EXPECT_EQ(p.ChooseMove(), kResign);
    ASSERT_TRUE(p.PlayMove(kResign).ok());
    EXPECT_TRUE(p.game_over());
    EXPECT_EQ(p.Winner(), -1);
  }
  {
    MctsPlayer p(Quiet(), 1, /*resign_enabled=*/false);
    Search(p, lost_eval);
    EXPECT_NE(p.ChooseMove(), kResign);
  }
  FakeEvaluator::Options bad;
  bad.constant_value = -0.9f;  // bad, not hopeless
  FakeEvaluator bad_eval(bad);
  {
    MctsPlayer p(Quiet(), 1, true);
    Search(p, bad_eval);
    EXPECT_GT(p.root().QPerspective(), -0.99f);
    EXPECT_NE(p.ChooseMove(), kResign);
  }
  // White resigns when black's value is +1.
  FakeEvaluator::Options won;
  won.constant_value = 1.0f;
  FakeEvaluator won_eval(won);
  MctsPlayer p(Quiet(), 1, true);
  Search(p, won_eval);
  EXPECT_NE(p.ChooseMove(), kResign);  // black is winning
  ASSERT_TRUE(p.PlayMove(Pt("E5")).ok());
  Search(p, won_eval);
  EXPECT_EQ(p.ChooseMove(), kResign);
}

TEST(MctsTest, SelfPlayDisablesResignationInAFractionOfGames) {
  FakeEvaluator::Options lost;
  lost.constant_value = -1.0f;
  FakeEvaluator e(lost);
  MctsOptions o;
  // Q = W / (1 + N) reaches -0.99 only past 99 visits: 120 readouts do.
  o.num_readouts = 120;
  o.disable_resign_pct = 0.5f;
  auto games = PlaySelfPlayGames(o, 16, 8, 42, e);
  ASSERT_TRUE(games.ok()) << games.status().ToString();
  int disabled = 0;
  for (const SelfPlayGame& g : *games) {
    if (g.resign_enabled) {
      EXPECT_TRUE(g.resigned);
      EXPECT_EQ(g.moves.size(), 1u);  // black resigns at once
      EXPECT_EQ(g.moves[0], kResign);
      EXPECT_EQ(g.winner, -1);
    } else {
      ++disabled;
      EXPECT_FALSE(g.resigned);
      EXPECT_GT(g.moves.size(), 1u);
      EXPECT_EQ(g.winner, g.score > 0 ? 1 : -1);
      EXPECT_EQ(g.search_pi.size(), g.moves.size());
    }
  }
  EXPECT_GT(disabled, 2);
  EXPECT_LT(disabled, 14);
}

TEST(MctsTest, GamesAreAFunctionOfTheSeedNotOfTheBatching) {
  FakeEvaluator::Options fo;
  fo.material_scale = 0.1f;
  FakeEvaluator e(fo);
  MctsOptions o;
  o.num_readouts = 16;
  auto one_at_a_time = PlaySelfPlayGames(o, 3, 1, 7, e);
  auto together = PlaySelfPlayGames(o, 3, 3, 7, e);
  auto other_seed = PlaySelfPlayGames(o, 3, 3, 8, e);
  ASSERT_TRUE(one_at_a_time.ok() && together.ok() && other_seed.ok());
  for (int g = 0; g < 3; ++g) {
    EXPECT_EQ((*one_at_a_time)[g].moves, (*together)[g].moves) << g;
    EXPECT_EQ((*one_at_a_time)[g].search_pi, (*together)[g].search_pi) << g;
    EXPECT_EQ((*one_at_a_time)[g].winner, (*together)[g].winner) << g;
  }
  EXPECT_NE((*together)[0].moves, (*other_seed)[0].moves);
  for (const SelfPlayGame& g : *together) {
    // Games end by resignation, two passes or the move limit.
    EXPECT_LE(g.moves.size(), 162u);
    if (!g.resigned && g.moves.size() < 162u) {
      ASSERT_GE(g.moves.size(), 2u);
      EXPECT_EQ(g.moves[g.moves.size() - 1], kPass);
      EXPECT_EQ(g.moves[g.moves.size() - 2], kPass);
    }
  }
}

// Game k is seeded from (seed, k) whoever plays it: games 0-3 split over two
// callers (as cores k mod 2 own them) are games 0-3 of the whole run, and a
// bad index is refused naming it.
TEST(MctsTest, GamesSplitByIndexAreTheWholeRunsGames) {
  FakeEvaluator::Options fo;
  fo.material_scale = 0.1f;
  FakeEvaluator e(fo);
  MctsOptions o;
  o.num_readouts = 8;
  auto whole = PlaySelfPlayGames(o, 4, 4, 11, e);
  const std::vector<int> even = {0, 2}, odd = {1, 3};
  auto core0 = PlaySelfPlayGames(o, even, 2, 11, e);
  auto core1 = PlaySelfPlayGames(o, odd, 1, 11, e);
  ASSERT_TRUE(whole.ok() && core0.ok() && core1.ok());
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ((*core0)[i].moves, (*whole)[2 * i].moves) << i;
    EXPECT_EQ((*core0)[i].search_pi, (*whole)[2 * i].search_pi) << i;
    EXPECT_EQ((*core1)[i].moves, (*whole)[2 * i + 1].moves) << i;
    EXPECT_EQ((*core1)[i].winner, (*whole)[2 * i + 1].winner) << i;
  }
  const std::vector<int> bad = {0, -1};
  auto refused = PlaySelfPlayGames(o, bad, 2, 11, e);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("game index -1"));
}

// Search alone, with no hint in the policy, finds the capture of a big group
// in atari: the fake value counts material, the prior is uniform.
TEST(MctsTest, FindsTheCaptureOfAGroupInAtari) {
  auto start = Position::FromDiagram(
      ".........\n"
      "...OO....\n"
      "..XXXO...\n"
      "..XOOXO..\n"
      "..XOO....\n"
      "...XXO...\n"
      ".........\n"
      ".........\n"
      ".........\n",
      Color::kBlack);
  ASSERT_TRUE(start.ok()) << start.status().ToString();
  ASSERT_EQ(start->LibertiesAt(Pt("D6")), 1);  // white's four stones: F5 only
  FakeEvaluator::Options fo;
  fo.material_scale = 0.3f;
  FakeEvaluator e(fo);
  MctsOptions o;  // noise and symmetries on, as in self-play
  o.num_readouts = 800;
  o.soft_pick = false;
  MctsPlayer p(o, 1, false, *start);
  Search(p, e);
  EXPECT_EQ(p.ChooseMove(), Pt("F5")) << "visits at F5: " << p.root().child_N(Pt("F5"));
  EXPECT_GT(p.root().child_N(Pt("F5")), 0.5f * p.root().N());
  // With a value blind to material (constant 0) nothing points at F5: the
  // capture above is found by the search, not given by the evaluator.
  FakeEvaluator blind;
  MctsPlayer q(o, 1, false, *start);
  Search(q, blind);
  EXPECT_LT(q.root().child_N(Pt("F5")), 0.1f * q.root().N());
}

}  // namespace
}  // namespace podbench::minigo
