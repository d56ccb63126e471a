// The scaling table: olympic-mean scores, block times from the stored
// evaluations, and the published v0.6 figures beside them.
#include "results/scaling.h"

#include <sstream>

#include <gtest/gtest.h>

namespace podbench::results {
namespace {

EvalRecord Eval(double epoch, double ts, std::string metric = "top1") {
  EvalRecord e;
  e.epoch = epoch;
  e.metric = std::move(metric);
  e.ts_emulated_s = ts;
  return e;
}

RunRecord ProjectedRun(int64_t id, const std::string& slice, int64_t chips, double ttt_s, bool success = true) {
  RunRecord r;
  r.id = id;
  r.run.workload = "resnet";
  r.run.mode = "projected";
  r.run.preset = "google-v0.6";
  r.run.slice = slice;
  r.run.chips = chips;
  r.run.global_batch = 32768;
  r.complete = true;
  r.status = success ? "success" : "aborted";
  r.outcome.ttt_emulated_s = ttt_s;
  r.outcome.step_time_s = 0.025;
  r.outcome.throughput = 1e6;
  return r;
}

TEST(ScalingTest, MedianEvalGapUsesOneTimestampPerEpochAndLeavesTheTailOut) {
  // Epoch 8 has two metrics; the earlier timestamp counts. Gaps 10, 12, 11
  // and the last, 30, which holds the final scoring: left out.
  std::vector<EvalRecord> e = {Eval(4, 15), Eval(8, 25), Eval(8, 25.5, "top5"), Eval(12, 37), Eval(16, 48),
                               Eval(20, 78)};
  ASSERT_TRUE(MedianEvalGapS(e).has_value());
  EXPECT_DOUBLE_EQ(*MedianEvalGapS(e), 11);
  // One gap: kept.
  EXPECT_DOUBLE_EQ(*MedianEvalGapS({Eval(4, 15), Eval(8, 40)}), 25);
  EXPECT_FALSE(MedianEvalGapS({Eval(4, 15)}).has_value());
  EXPECT_FALSE(MedianEvalGapS({}).has_value());
}

TEST(ScalingTest, BlockTimeAndScoreAgainstPublished) {
  // Five tpu-v3-2048 runs: the score drops the fastest and the slowest.
  std::vector<RunRecord> runs;
  std::map<int64_t, std::vector<EvalRecord>> evals;
  const double ttt[] = {70, 76, 78, 80, 90};
  for (int64_t i = 0; i < 5; ++i) {
    runs.push_back(ProjectedRun(i + 1, "tpu-v3-2048", 1024, ttt[i]));
    double gap = 3.9 + 0.05 * static_cast<double>(i);  // medians 3.9 .. 4.1
    evals[i + 1] = {Eval(4, 10), Eval(8, 10 + gap), Eval(12, 10 + 2 * gap)};
  }
  ScalingOptions opt;
  opt.preset = "google-v0.6";
  auto rows = BuildScalingTable("resnet", runs, evals, opt);
  ASSERT_EQ(rows.size(), 6u);  // every published resnet slice is listed
  const ScalingRow& r = rows.back();
  EXPECT_EQ(r.slice, "tpu-v3-2048");
  EXPECT_EQ(r.runs, 5);
  ASSERT_TRUE(r.predicted_min && r.published_min && r.block_s && r.published_block_s);
  EXPECT_DOUBLE_EQ(*r.predicted_min, (76 + 78 + 80) / 3.0 / 60);
  EXPECT_DOUBLE_EQ(*r.published_min, 1.28);
  EXPECT_DOUBLE_EQ(*r.block_s, 4.0);
  EXPECT_DOUBLE_EQ(*r.published_block_s, 3.95);
  EXPECT_NEAR(*r.block_error_pct, (4.0 - 3.95) / 3.95 * 100, 1e-9);
  // Slices without runs carry the published figures only.
  EXPECT_EQ(rows.front().slice, "tpu-v3-32");
  EXPECT_FALSE(rows.front().block_s.has_value());
  EXPECT_DOUBLE_EQ(*rows.front().published_block_s, 164.1);
  EXPECT_FALSE(rows.front().block_error_pct.has_value());
}

TEST(ScalingTest, RunsWithoutEvaluationsGiveNoBlockTime) {
  std::vector<RunRecord> runs = {ProjectedRun(1, "tpu-v3-32", 16, 2500)};
  auto rows = BuildScalingTable("resnet", runs, {}, ScalingOptions{});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].predicted_min.has_value());
  EXPECT_FALSE(rows[0].block_s.has_value());
  EXPECT_FALSE(rows[0].block_error_pct.has_value());
}


// The step by category: the runs' breakdowns summed, per step, printed as a
// second table (schema-1 runs add an unsplit compute column).
TEST(ScalingTest, StepByCategoryFromTheStoredBreakdowns) {
  std::vector<RunRecord> runs = {ProjectedRun(1, "tpu-v3-2048", 1024, 77), ProjectedRun(2, "tpu-v3-2048", 1024, 78),
                                 ProjectedRun(3, "tpu-v3-32", 16, 2500)};
  StepBreakdown a, b;
  a.steps = 100;
  a.mxu_s = 1.5;
  a.collectives_s = 0.3;
  a.evaluation_s = 9;  // not per step
  b.steps = 300;
  b.mxu_s = 4.5;
  b.halo_s = 0.4;
  auto rows = BuildScalingTable("resnet", runs, {}, ScalingOptions{}, {{1, a}, {2, b}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].per_step.has_value());  // tpu-v3-32 has no stored breakdown
  ASSERT_TRUE(rows[1].per_step.has_value());
  EXPECT_DOUBLE_EQ(rows[1].per_step->mxu_s, 6.0 / 400);
  EXPECT_DOUBLE_EQ(rows[1].per_step->collectives_s, 0.3 / 400);
  EXPECT_DOUBLE_EQ(rows[1].per_step->halo_s, 0.4 / 400);
  EXPECT_DOUBLE_EQ(rows[1].per_step->evaluation_s, 0);
  std::ostringstream text;
  WriteScalingText(text, "resnet", rows);
  EXPECT_NE(text.str().find("step by category"), std::string::npos);
  EXPECT_NE(text.str().find("gradients"), std::string::npos);
  EXPECT_EQ(text.str().find("compute"), std::string::npos);
  EXPECT_EQ(ScalingToJson(rows)[1]["step_ms"]["mxu"], 15.0);
  EXPECT_TRUE(ScalingToJson(rows)[0]["step_ms"].is_null());
  StepBreakdown old;
  old.steps = 10;
  old.unsplit_compute_s = 1;
  rows = BuildScalingTable("resnet", runs, {}, ScalingOptions{}, {{3, old}});
  std::ostringstream with_old;
  WriteScalingText(with_old, "resnet", rows);
  EXPECT_NE(with_old.str().find("compute"), std::string::npos);
}

}  // namespace
}  // namespace podbench::results
