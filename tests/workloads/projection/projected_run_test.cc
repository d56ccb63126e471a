// The one composition of a projected run (workloads/projection/
// projected_run.h) on a toy model: the schedule's steps, the convergence
// draw, the modelled curve, the start-up, each evaluation's exposed part,
// the tail, the median gap and the split that adds up to the score, and a
// block's concurrent work.
#include "workloads/projection/projected_run.h"

#include <cmath>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projection/graph_builder.h"

namespace podbench::projection {
namespace {

using ::testing::HasSubstr;

// A one-convolution model with host work, on one core a replica.
StepSpec ToySpec(int64_t per_replica) {
  StepSpec s;
  ModelGraph& g = s.graph;
  g.name = "toy";
  g.description = "toy";
  g.example_unit = "image 8x8";
  g.host.infeed_bytes = 8 * 8 * 3 * 2;
  g.host.outfeed_bytes = 40;
  g.host.score_ops = 1e6;  // 1 ms an example at the system's 1e9 ops/s
  g.host.scoring_processes = 1;
  OpWriter w(&g, &g.train);
  FeatureMap x{8, 8, 3};
  x = w.Conv("conv", x, 16, 3, 1, 1, /*bias=*/false);
  OpWriter e(&g, &g.eval);
  e.Conv("conv", FeatureMap{8, 8, 3}, 16, 3, 1, 1, false);
  s.config.layout.replicas = 32;
  s.config.per_replica_batch = per_replica;
  s.config.eval_per_replica_batch = per_replica;
  return s;
}

const topology::Slice& Slice32() {
  static const topology::Slice s = *topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  return s;
}

TEST(TrainingScheduleTest, EpochsCountWholeStepsFromRunStart) {
  TrainingSchedule s;
  s.global_batch = 1000;
  s.examples_per_epoch = 2500;  // 2.5 steps an epoch
  ASSERT_TRUE(s.Validate().ok());
  EXPECT_EQ(*s.StepsThrough(0), 0);
  EXPECT_EQ(*s.StepsThrough(1), 3);
  EXPECT_EQ(*s.StepsThrough(2), 5);  // not 6: rounding does not drift
  EXPECT_EQ(*s.StepsThrough(4), 10);
  EXPECT_EQ(s.FirstEpochSteps(), 3);
  // Explicit points (SSD's blocks) win, and name the labels they know.
  s.points = {{33, 3750}, {43, 5000}};
  EXPECT_EQ(*s.StepsThrough(43), 5000);
  auto missing = s.StepsThrough(40);
  EXPECT_EQ(missing.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("33, 43"));
  s.points = {{43, 5000}, {33, 3750}};
  EXPECT_FALSE(s.Validate().ok());
  s.points.clear();
  s.global_batch = 0;
  EXPECT_FALSE(s.Validate().ok());
}

TEST(ConvergenceTest, DrawsInProportionToThePublishedRuns) {
  Convergence c;
  c.points = {{72, 11}, {76, 8}};
  ASSERT_EQ(c.total_runs(), 19);
  std::map<int64_t, int> seen;
  for (uint64_t seed = 0; seed < 3800; ++seed) ++seen[c.Draw(seed).label];
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[72] / 3800.0, 11.0 / 19, 0.03);
  EXPECT_EQ(c.Draw(7).label, c.Draw(7).label);  // a seed draws the same run again
}

TEST(ModelledCurveTest, StaysBelowTheTargetUntilTheConvergingEvaluation) {
  ModelledCurve c;
  c.target = 0.759;
  c.first = 0.1;
  c.below = 0.004;
  c.above = 0.0015;
  c.per_label_after = 0.0002;
  c.cap = 0.761;
  for (double shape : {0.0, 3.0}) {
    c.shape = shape;
    EXPECT_DOUBLE_EQ(c.At(4, 4, 72), 0.1);
    double last = 0;
    for (int64_t label = 4; label < 72; label += 4) {
      const double v = c.At(label, 4, 72);
      EXPECT_LT(v, c.target) << label;
      EXPECT_GE(v, last) << label;
      last = v;
    }
    EXPECT_DOUBLE_EQ(c.At(72, 4, 72), 0.759 + 0.0015);
    EXPECT_DOUBLE_EQ(c.At(80, 4, 72), 0.761);  // capped
  }
}

TEST(ComposeRunTest, SplitAddsUpToTheRunAndTheTailIsTheLastScoring) {
  topology::SystemSpec sys = topology::DefaultSystem();
  const StepSpec spec = ToySpec(4);
  TrainingSchedule sched;
  sched.global_batch = 128;
  sched.examples_per_epoch = 1280;  // 10 steps an epoch
  auto p = PriceRun(spec, sched, /*eval_examples=*/1000, 0, Slice32());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const double step = p->step.step_s();
  EXPECT_GT(step, 0);
  ASSERT_TRUE(p->eval.has_value());
  EXPECT_EQ(p->eval->steps, 8);  // ceil(1000 / 128)
  const double scoring = 1000 * 1e6 / sys.host.scoring_ops_per_s;  // 1e6 operations an example
  EXPECT_NEAR(p->eval->scoring_s, scoring, 1e-12);
  EXPECT_NEAR(p->first_epoch_extra_s,
              sys.host.startup_s + sys.host.startup_s_per_host * Slice32().num_hosts(), 1e-12);

  const std::vector<int64_t> labels = {2, 4, 6, 8};
  auto run = ComposeRun(*p, labels, 6);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->steps, 60);
  EXPECT_NEAR(run->split.training_s, 60 * step, 1e-12);
  EXPECT_NEAR(run->split.startup_s, p->first_epoch_extra_s, 1e-12);
  // The first two evaluations' scoring (seconds) outlasts the next block (20
  // steps of a few microseconds): it shows; the last one is the tail.
  const double block = 20 * step;
  const double exposed = p->eval->device_s + std::max(0.0, scoring - block);
  EXPECT_GT(exposed, p->eval->device_s);
  EXPECT_NEAR(run->split.evaluation_s, 2 * exposed + p->eval->device_s, 1e-12);
  EXPECT_NEAR(run->split.tail_s, scoring, 1e-12);
  ASSERT_EQ(run->eval_end_s.size(), 3u);
  EXPECT_NEAR(run->eval_end_s.back(), run->split.total_s(), 1e-12);
  // Two gaps: a block and an exposed evaluation, then a block and the last
  // evaluation whole; the last one (it holds the tail) is left out.
  EXPECT_NEAR(run->median_gap_s, block + exposed, 1e-9);
  // A label the run does not evaluate cannot end it.
  EXPECT_FALSE(ComposeRun(*p, labels, 5).ok());

  // Evaluation not priced (the projected_eval=false ablation): no eval, no tail.
  auto free_eval = PriceRun(spec, sched, 0, 0, Slice32());
  ASSERT_TRUE(free_eval.ok());
  auto r2 = ComposeRun(*free_eval, labels, 6);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->split.evaluation_s, 0);
  EXPECT_EQ(r2->split.tail_s, 0);
  EXPECT_NEAR(r2->split.total_s(), run->split.startup_s + run->split.training_s, 1e-12);
}

// A pool of scoring processes lets an evaluation's scoring lag that many
// next blocks (SSD's 10 COCO processes); a main thread that scores (pool 1)
// holds the run up by what outlasts one block; serial scoring by all of it.
TEST(ComposeRunTest, ScoringPoolHidesScoringBehindThatManyBlocks) {
  EvalProjection e;
  e.device_s = 1;
  e.scoring_s = 10;
  EXPECT_DOUBLE_EQ(e.exposed_s(4), 1 + 6);
  e.scoring_pool = 2;
  EXPECT_DOUBLE_EQ(e.exposed_s(4), 1 + 2);
  e.scoring_pool = 3;
  EXPECT_DOUBLE_EQ(e.exposed_s(4), 1);
  e.scoring_overlapped = false;
  EXPECT_DOUBLE_EQ(e.exposed_s(4), 11);
}

TEST(ComposeRunTest, ConcurrentBlockWorkExtendsABlockToTheLongerOfTheTwo) {
  const StepSpec spec = ToySpec(4);
  TrainingSchedule sched;
  sched.global_batch = 128;
  sched.examples_per_epoch = 1280;
  auto p = PriceRun(spec, sched, 0, /*concurrent_block_s=*/5.0, Slice32());
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->BlockTrainS(10), 5.0);
  EXPECT_NEAR(p->BlockExcessS(10), 5.0 - 10 * p->step.step_s(), 1e-12);
  EXPECT_FALSE(PriceRun(spec, sched, 0, -1, Slice32()).ok());
}

TEST(PredictOverConvergenceTest, OlympicMeanOfThePublishedRuns) {
  const StepSpec spec = ToySpec(4);
  TrainingSchedule sched;
  sched.global_batch = 128;
  sched.examples_per_epoch = 1280;
  auto p = PriceRun(spec, sched, 1000, 0, Slice32());
  ASSERT_TRUE(p.ok());
  const std::vector<int64_t> labels = {1, 2, 3, 4, 5};
  Convergence c;
  c.points = {{2, 1}, {3, 3}, {5, 1}};  // 5 runs: drop the fastest (2) and the slowest (5)
  auto row = PredictOverConvergence(*p, labels, c);
  ASSERT_TRUE(row.ok());
  auto three = ComposeRun(*p, labels, 3);
  ASSERT_TRUE(three.ok());
  EXPECT_NEAR(row->score_s, three->split.total_s(), 1e-12);
  EXPECT_NEAR(row->split.tail_s, three->split.tail_s, 1e-12);
  EXPECT_NEAR(row->median_gap_s, three->median_gap_s, 1e-12);
  c.points = {{2, 0}};
  EXPECT_FALSE(PredictOverConvergence(*p, labels, c).ok());
}

}  // namespace
}  // namespace podbench::projection
