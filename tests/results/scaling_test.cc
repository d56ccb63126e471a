// The scaling table: olympic-mean scores, block times from the stored
// evaluations, and the published v0.6 figures beside them.
#include "results/scaling.h"

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

TEST(ScalingTest, MedianEvalGapUsesOneTimestampPerEpoch) {
  // Epoch 8 has two metrics; the earlier timestamp counts. Gaps 10, 12, 11.
  std::vector<EvalRecord> e = {Eval(4, 15), Eval(8, 25), Eval(8, 25.5, "top5"), Eval(12, 37), Eval(16, 48)};
  ASSERT_TRUE(MedianEvalGapS(e).has_value());
  EXPECT_DOUBLE_EQ(*MedianEvalGapS(e), 11);
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

}  // namespace
}  // namespace podbench::results
