// The scaling table: olympic-mean scores, block times from the stored
// evaluations, and the published v0.6 figures beside them.
#include "results/scaling.h"

#include <sstream>

#include <gmock/gmock.h>
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
  r.run.git_hash = "abc";
  r.run.flags_json = R"({"set": [], "system": "", "system_fingerprint": "builtin"})";
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
  auto rows = BuildScalingTable("resnet", runs, evals, opt).rows;
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
  auto rows = BuildScalingTable("resnet", runs, {}, ScalingOptions{}).rows;
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
  ScalingTable table = BuildScalingTable("resnet", runs, {}, ScalingOptions{}, {{1, a}, {2, b}});
  const std::vector<ScalingRow>& rows = table.rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].per_step.has_value());  // tpu-v3-32 has no stored breakdown
  ASSERT_TRUE(rows[1].per_step.has_value());
  EXPECT_DOUBLE_EQ(rows[1].per_step->mxu_s, 6.0 / 400);
  EXPECT_DOUBLE_EQ(rows[1].per_step->collectives_s, 0.3 / 400);
  EXPECT_DOUBLE_EQ(rows[1].per_step->halo_s, 0.4 / 400);
  EXPECT_DOUBLE_EQ(rows[1].per_step->evaluation_s, 0);
  std::ostringstream text;
  WriteScalingText(text, table);
  EXPECT_NE(text.str().find("step by category"), std::string::npos);
  EXPECT_NE(text.str().find("gradients"), std::string::npos);
  EXPECT_EQ(text.str().find("compute"), std::string::npos);
  EXPECT_EQ(ScalingToJson(table)["rows"][1]["step_ms"]["mxu"], 15.0);
  EXPECT_TRUE(ScalingToJson(table)["rows"][0]["step_ms"].is_null());
  StepBreakdown old;
  old.steps = 10;
  old.unsplit_compute_s = 1;
  std::ostringstream with_old;
  WriteScalingText(with_old, BuildScalingTable("resnet", runs, {}, ScalingOptions{}, {{3, old}}));
  EXPECT_NE(with_old.str().find("compute"), std::string::npos);
}

// A preset's row holds only its plain runs of one build: an ablation (--set),
// another system file, a run whose flags did not record the system, and a
// run of an older build each get their own labelled row, never counted in it
// nor compared with Google's figures. Every row names its runs.
TEST(ScalingTest, PresetRowsHoldOnlyPlainRunsOfOneBuild) {
  std::vector<RunRecord> runs;
  for (int64_t i = 1; i <= 5; ++i) runs.push_back(ProjectedRun(i, "tpu-v3-2048", 1024, 74 + static_cast<double>(i)));
  for (int64_t i = 6; i <= 10; ++i) {
    runs.push_back(ProjectedRun(i, "tpu-v3-2048", 1024, 80 + static_cast<double>(i)));
    runs.back().run.flags_json = R"({"set": ["allreduce=ring"], "system": "", "system_fingerprint": "builtin"})";
  }
  runs.push_back(ProjectedRun(11, "tpu-v3-2048", 1024, 900));
  runs.back().run.flags_json = R"({"set": [], "system": "fast.yaml", "system_fingerprint": "fnv1a64:1234"})";
  runs.push_back(ProjectedRun(12, "tpu-v3-2048", 1024, 900));
  runs.back().run.flags_json = R"({"set": []})";  // stored before the system was recorded
  runs.push_back(ProjectedRun(0, "tpu-v3-2048", 1024, 10));  // the oldest run, of an older build
  runs.back().run.git_hash = "old";
  runs.push_back(ProjectedRun(14, "tpu-v3-2048", 1024, 90));
  runs.back().run.preset = "functional";  // another preset: not even listed with --preset google-v0.6
  ScalingOptions opt;
  opt.preset = "google-v0.6";
  ScalingTable t = BuildScalingTable("resnet", runs, {}, opt);
  ASSERT_EQ(t.rows.size(), 6u);
  const ScalingRow& row = t.rows.back();
  EXPECT_THAT(row.run_ids, ::testing::ElementsAre(1, 2, 3, 4, 5));
  EXPECT_EQ(row.variant, "");
  EXPECT_DOUBLE_EQ(*row.predicted_min, 77.0 / 60);
  EXPECT_TRUE(row.published_min.has_value());
  std::vector<std::string> variants;
  for (const ScalingRow& o : t.others) {
    variants.push_back(o.variant);
    EXPECT_FALSE(o.published_min.has_value()) << o.variant;
    EXPECT_FALSE(o.parallel_efficiency.has_value()) << o.variant;
  }
  EXPECT_THAT(variants, ::testing::ElementsAre("build old", "set allreduce=ring",
                                               "system fast.yaml (fnv1a64:1234)", "system not recorded"));
  EXPECT_THAT(t.others[1].run_ids, ::testing::ElementsAre(6, 7, 8, 9, 10));

  const nlohmann::json j = ScalingToJson(t);
  EXPECT_EQ(j["preset"], "google-v0.6");
  EXPECT_EQ(j["rows"].size(), 6u);
  EXPECT_EQ(j["rows"][5]["run_ids"], nlohmann::json({1, 2, 3, 4, 5}));
  EXPECT_EQ(j["other_rows"].size(), 4u);
  EXPECT_EQ(j["other_rows"][1]["run_ids"], nlohmann::json({6, 7, 8, 9, 10}));
  std::ostringstream text;
  WriteScalingText(text, t);
  EXPECT_NE(text.str().find("1-5\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("other runs of resnet"), std::string::npos);
  EXPECT_NE(text.str().find("6-10\n"), std::string::npos);
  std::ostringstream csv;
  WriteScalingCsv(csv, t);
  EXPECT_NE(csv.str().find("\nset allreduce=ring,google-v0.6,abc,6 7 8 9 10,tpu-v3-2048,"), std::string::npos)
      << csv.str();

  // Without --preset every configuration is a labelled row of the table,
  // the other preset's run too; Google's figures stand beside the plain
  // google-v0.6 row only.
  t = BuildScalingTable("resnet", runs, {}, ScalingOptions{});
  EXPECT_TRUE(t.others.empty());
  ASSERT_EQ(t.rows.size(), 6u);
  int published = 0;
  for (const ScalingRow& r : t.rows) {
    if (r.preset == "functional") {
      EXPECT_EQ(r.variant, "");
    }
    if (r.published_min) {
      ++published;
      EXPECT_EQ(r.preset, "google-v0.6");
      EXPECT_EQ(r.variant, "");
      EXPECT_THAT(r.run_ids, ::testing::ElementsAre(1, 2, 3, 4, 5));
    }
  }
  EXPECT_EQ(published, 1);
}

TEST(ScalingTest, IdRangesCollapseConsecutiveIds) {
  EXPECT_EQ(IdRanges({}), "");
  EXPECT_EQ(IdRanges({4}), "4");
  EXPECT_EQ(IdRanges({1, 2, 3, 5, 7, 8}), "1-3,5,7-8");
}

}  // namespace
}  // namespace podbench::results
