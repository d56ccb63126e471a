// The "minigo" plugin's projected mode: its preset and refusals, a v0.6
// generation priced on every slice tpu-v3-8 .. tpu-v3-2048 (structure and
// what must be monotonic), the convergence table of NVIDIA's and Intel's
// runs, and the shared games pricing (workloads/projection/games.h).
#include "workloads/minigo/minigo_projection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/system.h"
#include "workloads/minigo/minigo_graph.h"
#include "workloads/projected_runs.h"
#include "workloads/claims.h"
#include "workloads/projection/games.h"
#include "workloads/registry.h"

namespace podbench::minigo {
namespace {

using ::testing::HasSubstr;

const topology::SystemSpec& System() { return topology::DefaultSystem(); }

Result<workloads::ProjectedRunModel> Priced(const std::string& slice, const std::vector<std::string>& sets = {}) {
  return workloads::ModelProjectedRun("minigo", "nvidia-v0.6", slice, System(), sets);
}

TEST(MiniGoPluginTest, RegisteredInBothModesWithTheNvidiaAndFunctionalPresets) {
  const workloads::ModelRegistration* m = workloads::FindWorkload("minigo");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->Supports(workloads::Mode::kProjected));
  EXPECT_TRUE(m->Supports(workloads::Mode::kFunctional));
  EXPECT_EQ(m->presets(), (std::vector<std::string>{"nvidia-v0.6", "functional"}));
  EXPECT_EQ(m->scored_runs(), 10);
  auto w = m->Create();
  auto p = w->Preset("google-v0.6", {"tpu-v3-32", 32, 16});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(p.status().message(), HasSubstr("known: nvidia-v0.6, functional"));
}

TEST(MiniGoPluginTest, DescribesTheV06LoopAndLogsTheListsTheRulesRequire) {
  auto run = Priced("tpu-v3-32");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const workloads::WorkloadDescription& d = run->description;
  EXPECT_EQ(d.benchmark, "minigo");
  EXPECT_EQ(d.global_batch, 8192);
  EXPECT_EQ(d.run_end, workloads::RunEnd::kWinningModel);
  EXPECT_TRUE(d.cadence.beside_training);
  EXPECT_EQ(d.cadence.max_epochs, 50);
  ASSERT_EQ(d.targets.size(), 1u);
  EXPECT_EQ(d.targets[0].metric, "win_rate");
  EXPECT_DOUBLE_EQ(d.targets[0].target, 0.5);
  ASSERT_EQ(d.init_events.size(), 1u);
  EXPECT_EQ(d.init_events[0].key, "opt_base_learning_rate");
  EXPECT_EQ(d.init_events[0].value.dump(), "[0.32,0.032,0.0032]");
  EXPECT_EQ(StepsPerGeneration(run->hp), 222);  // loop §2: ~222 steps a generation
}

TEST(MiniGoPluginTest, RefusesWhatProjectedModeCannotProjectNamingTheValue) {
  struct Case {
    std::vector<std::string> sets;
    std::string slice;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"num_readouts=400"}, "tpu-v3-32", "num_readouts 400: projected mode takes the winning generation"},
           {{"global_batch_size=4096"}, "tpu-v3-32", "which used global_batch_size=8192"},
           {{"learning_rates=0.32,0.032"}, "tpu-v3-32", "learning_rates has 2 rates"},
           {{"learning_rates=0.32,x,0.0032"}, "tpu-v3-32", "'x' is not a positive number"},
           {{"virtual_losses=16", "num_readouts=8"}, "tpu-v3-32", "num_readouts 8 is below virtual_losses 16"},
           {{"projected_train_cores=32"}, "tpu-v3-8", "projected_train_cores 32 is more than the 8 cores of tpu-v3-8"},
           {{"projected_train_cores=12"}, "tpu-v3-32", "does not split evenly over the 12 training cores"},
       }) {
    auto run = Priced(c.slice, c.sets);
    ASSERT_FALSE(run.ok()) << c.says;
    EXPECT_EQ(run.status().code(), Status::Code::kInvalidArgument) << run.status().ToString();
    EXPECT_THAT(run.status().message(), HasSubstr(c.says));
  }
  // momentum is fixed by the closed division.
  auto fixed = Priced("tpu-v3-32", {"momentum=0.8"});
  ASSERT_FALSE(fixed.ok());
  EXPECT_THAT(fixed.status().message(), HasSubstr("momentum"));
}

TEST(MiniGoConvergenceTest, TwentyPublishedRunsWinAtGenerations15To21) {
  const projection::Convergence c = MiniGoConvergence();
  EXPECT_EQ(c.total_runs(), 20);
  std::vector<std::pair<int64_t, int>> got;
  for (const auto& p : c.points) got.push_back({p.label, p.runs});
  // loop §4: NVIDIA 19 18 16 21 15 16 19 18 17 19, Intel 15 15 18 19 21 17 18 17 17 18.
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int>>{{15, 3}, {16, 2}, {17, 4}, {18, 5}, {19, 4}, {21, 2}}));
  EXPECT_THAT(c.source, HasSubstr("Google ran no MiniGo"));
}

// A generation on every slice of the pod.
TEST(MiniGoGenerationTest, PricedOnEverySliceWithItsStructure) {
  double last_self_play = 1e300;
  double train_steps_s = 0;
  for (int64_t cores : {8, 32, 64, 128, 256, 512, 1024, 2048}) {
    const std::string slice = "tpu-v3-" + std::to_string(cores);
    SCOPED_TRACE(slice);
    auto run = Priced(slice);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    const projection::RunPricing& p = run->pricing;
    ASSERT_TRUE(p.generation.has_value());
    const projection::GenerationPricing& g = *p.generation;
    EXPECT_EQ(g.train_cores, 8);
    EXPECT_EQ(g.shared, cores == 8);  // tpu-v3-8: training and self-play take turns
    EXPECT_EQ(g.play_cores, cores == 8 ? 8 : cores - 8);
    // Self-play: 4096 games at 240 readouts and 8 virtual losses.
    EXPECT_EQ(g.self_play.games_per_core, (4096 + g.play_cores - 1) / g.play_cores);
    EXPECT_EQ(g.self_play.parallel_games, std::min<int64_t>(128, g.self_play.games_per_core));
    EXPECT_EQ(g.self_play.batch_per_core, g.self_play.parallel_games * 8);
    EXPECT_EQ(g.self_play.rounds, g.self_play.waves * 2663);  // ceil(88.745 x 240 / 8)
    EXPECT_GT(g.self_play.device_round_s, 0);
    EXPECT_GT(g.self_play.host_round_s, 0);
    EXPECT_DOUBLE_EQ(g.self_play.total_s, g.self_play.rounds * std::max(g.self_play.device_round_s,
                                                                        g.self_play.host_round_s));
    // More cores never make self-play slower.
    EXPECT_LE(g.self_play.total_s, last_self_play * (1 + 1e-9));
    last_self_play = g.self_play.total_s;
    // Training: 222 steps on the tpu-v3-8 sub-slice, the same on every slice.
    const double steps_s = 222 * p.step.step_s();
    if (train_steps_s == 0) train_steps_s = steps_s;
    EXPECT_NEAR(steps_s, train_steps_s, 1e-9 * train_steps_s);
    // Gating: 100 games on the 8 training cores, after the steps.
    EXPECT_EQ(g.gating.work.games, 100);
    EXPECT_EQ(g.gating.work.cores, 8);
    // The period: the longer path, or, sharing cores, their sum.
    const double period = p.BlockTrainS(222);
    if (g.shared) {
      EXPECT_NEAR(period, steps_s + g.gating.total_s + g.self_play.total_s, 1e-9 * period);
    } else {
      EXPECT_NEAR(period, std::max(steps_s + g.gating.total_s, g.self_play.total_s), 1e-9 * period);
    }
    // The target evaluation is games beside training: not on the run's path.
    ASSERT_TRUE(p.eval.has_value());
    EXPECT_NEAR(p.eval->device_s, g.evaluation.total_s, 1e-12);
    auto composed = projection::ComposeRun(p, run->labels, 17);
    ASSERT_TRUE(composed.ok()) << composed.status().ToString();
    EXPECT_NEAR(composed->split.total_s(), p.first_epoch_extra_s + 17 * period, 1e-6 * composed->split.total_s());
    EXPECT_EQ(composed->split.evaluation_s, 0);
  }
}

// Self-play's parallelism: with fewer games per core the batch per core
// shrinks, so the device's round gets cheaper while the rounds stay.
TEST(MiniGoGenerationTest, SelfPlayScalesByWavesUntilEveryGameHasItsOwnCoreShare) {
  auto small = Priced("tpu-v3-32");   // 24 self-play cores: 171 games a core, 2 waves of 128
  auto large = Priced("tpu-v3-2048");  // 2040 cores: 3 games a core, 1 wave
  ASSERT_TRUE(small.ok() && large.ok());
  const auto& s = small->pricing.generation->self_play;
  const auto& l = large->pricing.generation->self_play;
  EXPECT_EQ(s.waves, 2);
  EXPECT_EQ(s.batch_per_core, 1024);
  EXPECT_EQ(l.waves, 1);
  EXPECT_EQ(l.batch_per_core, 3 * 8);
  EXPECT_LT(l.device_round_s, s.device_round_s);
}

// One search thread a core instead of twelve: the host's tree search bounds
// self-play.
TEST(MiniGoGenerationTest, OneSearchThreadPerCoreMakesTheHostTheBound) {
  auto run = Priced("tpu-v3-32", {"projected_search_threads_per_core=1"});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const auto& s = run->pricing.generation->self_play;
  EXPECT_TRUE(s.host_bound());
  EXPECT_NEAR(s.host_round_s, 128 * 8 * kMiniGoHostOpsPerReadout / System().host.scoring_ops_per_s, 1e-12);
  auto too_many = Priced("tpu-v3-32", {"projected_search_threads_per_core=13"});
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.status().message(), HasSubstr("vcpus"));
}

// The registered claims are what-ifs that change the priced run, in the
// direction they state (the figure each reports: base over variant).
TEST(MiniGoClaimsTest, EachClaimsArmsPriceApartInItsDirection) {
  const workloads::ModelRegistration* m = workloads::FindModel("minigo");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->claims().size(), 2u);
  for (const workloads::ClaimSpec& c : m->claims()) {
    SCOPED_TRACE(c.id);
    EXPECT_EQ(c.workload, "minigo");
    auto price = [](const workloads::ClaimRun& arm) {
      auto run = workloads::ModelProjectedRun("minigo", arm.preset, arm.slice, System(), arm.sets);
      EXPECT_TRUE(run.ok()) << run.status().ToString();
      auto row = workloads::PredictRow(*run);
      EXPECT_TRUE(row.ok()) << row.status().ToString();
      return row->score_s;
    };
    EXPECT_GT(price(c.base) / price(c.variant), c.threshold);
  }
}

TEST(GamesPricingTest, RefusesMalformedWorkNamingIt) {
  auto graph = BuildMiniGoGraph();
  ASSERT_TRUE(graph.ok());
  auto slice = topology::Slice::FromName("tpu-v3-8", System());
  ASSERT_TRUE(slice.ok());
  projection::GameWork w;
  w.what = "self-play";
  w.games = 10;
  w.moves_per_game = 80;
  w.readouts_per_move = 16;
  w.virtual_losses = 8;
  w.parallel_games_per_core = 4;
  w.cores = 8;
  w.host_ops_per_readout = 1000;
  auto ok = projection::PriceGames(*graph, w, *slice);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->games_per_core, 2);
  EXPECT_EQ(ok->parallel_games, 2);
  EXPECT_EQ(ok->waves, 1);
  EXPECT_EQ(ok->rounds, 160);
  projection::GameWork bad = w;
  bad.cores = 9;
  EXPECT_THAT(projection::PriceGames(*graph, bad, *slice).status().message(),
              HasSubstr("self-play: 9 cores, but tpu-v3-8 has 8"));
  bad = w;
  bad.games = 0;
  EXPECT_THAT(projection::PriceGames(*graph, bad, *slice).status().message(),
              HasSubstr("self-play: games must be >= 1"));
  bad = w;
  bad.readouts_per_move = 4;
  EXPECT_THAT(projection::PriceGames(*graph, bad, *slice).status().message(), HasSubstr("below virtual_losses 8"));
}

}  // namespace
}  // namespace podbench::minigo
