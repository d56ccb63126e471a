// Testing a seed paper's claim (harness/run/claims.h): podbench's figure
// from the two arms for every measure, the verdict for every comparison,
// and a claim made by real projected runs whose figure is the composition's.
#include "harness/run/claims.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "topology/system.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"

namespace podbench::harness {
namespace {

using ::testing::HasSubstr;
using workloads::ClaimComparison;
using workloads::ClaimMeasure;
using workloads::ClaimSpec;

ClaimArm Arm(double device_step_s, double gradients_s, std::optional<double> score_min,
             std::vector<double> final_metric = {}) {
  ClaimArm a;
  a.global_batch = 1000;
  a.device_step_s = device_step_s;
  a.category_step_s["gradients"] = gradients_s;
  a.score_min = score_min;
  a.metric = "top1";
  a.final_metric = final_metric;
  double sum = 0;
  for (double v : final_metric) sum += v;
  a.final_metric_mean = final_metric.empty() ? 0 : sum / static_cast<double>(final_metric.size());
  double sq = 0;
  for (double v : final_metric) sq += (v - a.final_metric_mean) * (v - a.final_metric_mean);
  a.final_metric_sd = final_metric.size() > 1 ? std::sqrt(sq / static_cast<double>(final_metric.size() - 1)) : 0;
  return a;
}

ClaimSpec Spec(ClaimMeasure m, ClaimComparison c, std::optional<double> paper) {
  ClaimSpec s;
  s.id = "x";
  s.measure = m;
  s.category = "gradients";
  s.comparison = c;
  s.paper_figure = paper;
  s.unit = "x";
  return s;
}

TEST(JudgeClaimTest, RatiosOfTheArmsAgainstThePapersFigure) {
  results::ClaimRow row;
  // Gradient summation 5 ms on the ring, 3 on the torus: 1.67x, at least 1.5.
  JudgeClaim(Spec(ClaimMeasure::kCategoryRatio, ClaimComparison::kAtLeast, 1.5), Arm(0.02, 0.005, 2.0),
             Arm(0.018, 0.003, 1.9), &row);
  EXPECT_NEAR(*row.podbench_figure, 5.0 / 3.0, 1e-12);
  EXPECT_NEAR(*row.base_value, 5.0, 1e-12);  // ms
  EXPECT_NEAR(*row.reference, 5.0 / 1.5, 1e-12);
  EXPECT_EQ(row.verdict, "agrees");
  row = {};
  JudgeClaim(Spec(ClaimMeasure::kCategoryRatio, ClaimComparison::kAtLeast, 2.0), Arm(0.02, 0.005, 2.0),
             Arm(0.018, 0.003, 1.9), &row);
  EXPECT_EQ(row.verdict, "disagrees");
  // Device step and score ratios; about, within the tolerance.
  row = {};
  JudgeClaim(Spec(ClaimMeasure::kDeviceStepRatio, ClaimComparison::kAbout, 1.6), Arm(0.020, 0, 2),
             Arm(0.0125, 0, 1.5), &row);
  EXPECT_NEAR(*row.podbench_figure, 1.6, 1e-12);
  EXPECT_EQ(row.verdict, "agrees");
  row = {};
  JudgeClaim(Spec(ClaimMeasure::kScoreRatio, ClaimComparison::kAbout, 1.48), Arm(0, 0, 1.79), Arm(0, 0, 1.0),
             &row);
  EXPECT_NEAR(*row.podbench_figure, 1.79, 1e-12);
  EXPECT_EQ(row.verdict, "disagrees");  // 21% from 1.48
  // No number: the figure and no verdict.
  row = {};
  JudgeClaim(Spec(ClaimMeasure::kScoreRatio, ClaimComparison::kNoNumber, std::nullopt), Arm(0, 0, 2),
             Arm(0, 0, 1), &row);
  EXPECT_NEAR(*row.podbench_figure, 2, 1e-12);
  EXPECT_EQ(row.verdict, "no number to compare");
  EXPECT_FALSE(row.reference.has_value());
}

TEST(JudgeClaimTest, ThroughputTimeAndShareOfOneArm) {
  results::ClaimRow row;
  JudgeClaim(Spec(ClaimMeasure::kDeviceThroughput, ClaimComparison::kAtLeast, 1e5), ClaimArm{},
             Arm(0.008, 0, 1.2), &row);
  EXPECT_NEAR(*row.podbench_figure, 1000 / 0.008, 1e-6);
  EXPECT_EQ(row.verdict, "agrees");
  EXPECT_FALSE(row.base_value.has_value());
  row = {};
  JudgeClaim(Spec(ClaimMeasure::kScoreMinutes, ClaimComparison::kAbout, 2.2), ClaimArm{}, Arm(0.008, 0, 1.24),
             &row);
  EXPECT_EQ(row.verdict, "disagrees");
  row = {};
  JudgeClaim(Spec(ClaimMeasure::kCategorySharePct, ClaimComparison::kNoNumber, std::nullopt), Arm(0.02, 0, 1),
             Arm(0.025, 0.005, 1), &row);
  EXPECT_NEAR(*row.podbench_figure, 20, 1e-9);
}

TEST(JudgeClaimTest, AFunctionalEffectMustClearItsThresholdAndTheSeedsSpread) {
  ClaimSpec s = Spec(ClaimMeasure::kFinalMetricGain, ClaimComparison::kPositive, std::nullopt);
  s.threshold = 0.02;
  s.variant.mode = "functional";
  results::ClaimRow row;
  JudgeClaim(s, Arm(0, 0, {}, {0.68, 0.69, 0.71}), Arm(0, 0, {}, {0.97, 0.92, 0.95}), &row);
  EXPECT_NEAR(*row.podbench_figure, (0.97 + 0.92 + 0.95) / 3 - (0.68 + 0.69 + 0.71) / 3, 1e-12);
  EXPECT_EQ(row.verdict, "agrees");
  // In the wrong direction, or inside the spread: not reproduced at this scale.
  row = {};
  JudgeClaim(s, Arm(0, 0, {}, {0.90, 0.92, 0.91}), Arm(0, 0, {}, {0.86, 0.86, 0.83}), &row);
  EXPECT_LT(*row.podbench_figure, 0);
  EXPECT_EQ(row.verdict, "not reproduced at this scale");
  row = {};
  JudgeClaim(s, Arm(0, 0, {}, {0.80, 0.90, 0.70}), Arm(0, 0, {}, {0.85, 0.95, 0.75}), &row);
  EXPECT_EQ(row.verdict, "not reproduced at this scale");  // +0.05 against a spread of 0.1 x 2
  // An arm that measured nothing gives no figure.
  row = {};
  JudgeClaim(s, Arm(0, 0, {}, {}), Arm(0, 0, {}, {0.9}), &row);
  EXPECT_FALSE(row.podbench_figure.has_value());
}

// A registered claim made by real projected runs: its figure is the ratio of
// the two arms' gradient summation, which the composition prices.
// Each model with a distributed evaluation declares it once, by two arms
// that differ in that one switch.
TEST(ClaimSpecTest, DistributedEvaluationDiffersFromItsBaseInOneSwitch) {
  int declared = 0;
  for (const workloads::ModelRegistration* m : workloads::AllWorkloads()) {
    for (const ClaimSpec& c : m->claims()) {
      if (c.id != m->name() + "-distributed-eval") continue;
      SCOPED_TRACE(c.id);
      ++declared;
      std::vector<std::string> without = c.variant.sets;
      without.push_back("distributed_eval=false");
      EXPECT_EQ(c.base.sets, without);
      EXPECT_EQ(c.base.slice, c.variant.slice);
      EXPECT_EQ(c.base.runs, c.variant.runs);
      EXPECT_NE(c.base.label, c.variant.label);
      EXPECT_EQ(c.measure, ClaimMeasure::kScoreRatio);
      EXPECT_EQ(c.workload, m->name());
    }
  }
  EXPECT_EQ(declared, 5) << "GNMT, Mask R-CNN, ResNet, SSD and the Transformer";
}

TEST(RunClaimTest, TheTwoDimensionalSummationClaimByRealRuns) {
  const workloads::ModelRegistration* resnet = workloads::FindModel("resnet");
  ASSERT_NE(resnet, nullptr);
  const ClaimSpec* claim = nullptr;
  for (const ClaimSpec& c : resnet->claims()) {
    if (c.id == "resnet-2d-gradient-summation") claim = &c;
  }
  ASSERT_NE(claim, nullptr);
  testing::TempDir dir;
  auto store = results::ResultsStore::Open((dir / "c.db").string());
  ASSERT_TRUE(store.ok());
  ClaimRunOptions o;
  o.db = (dir / "c.db").string();
  o.log_dir = dir.path();
  int called = 0;
  o.on_claim = [&](const ClaimOutcome&) { ++called; };
  auto out = RunClaim(*claim, **store, o);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(called, 1);
  EXPECT_EQ(out->base.run_ids.size(), 5u);
  EXPECT_EQ(out->variant.run_ids.size(), 5u);
  for (const std::string& st : out->variant.statuses) EXPECT_EQ(st, "success");
  auto ring = workloads::ModelProjectedRun("resnet", "google-v0.6", "tpu-v3-2048", topology::DefaultSystem(),
                                           {"allreduce=ring"});
  auto torus = workloads::ModelProjectedRun("resnet", "google-v0.6", "tpu-v3-2048", topology::DefaultSystem());
  ASSERT_TRUE(ring.ok() && torus.ok());
  const double expect = ring->pricing.step.time[projection::Category::kGradients] /
                        torus->pricing.step.time[projection::Category::kGradients];
  EXPECT_NEAR(*out->row.podbench_figure, expect, 1e-9 * expect);
  EXPECT_EQ(out->row.verdict, expect >= 1.5 ? "agrees" : "disagrees");
  EXPECT_TRUE(std::filesystem::exists(dir / "resnet-2d-gradient-summation-base_0.log"));
}

TEST(RunClaimTest, ARequestRunRefusesNamesTheClaimAndArm) {
  ClaimSpec c = Spec(ClaimMeasure::kScoreRatio, ClaimComparison::kNoNumber, std::nullopt);
  c.id = "bad-claim";
  c.workload = "resnet";
  c.base = {"tpu-v3-6", "projected", "google-v0.6", {}, 1, "b"};
  c.variant = c.base;
  testing::TempDir dir;
  auto store = results::ResultsStore::Open((dir / "c.db").string());
  ASSERT_TRUE(store.ok());
  ClaimRunOptions o;
  o.db = (dir / "c.db").string();
  auto out = RunClaim(c, **store, o);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("claim bad-claim, base arm"));
  EXPECT_THAT(out.status().message(), HasSubstr("tpu-v3-6"));
}

}  // namespace
}  // namespace podbench::harness
