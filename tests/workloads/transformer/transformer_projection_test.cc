// The projected Transformer through the shared composition
// (transformer_projection.h, workloads/projected_runs.h) on the built-in
// (jointly calibrated) system: Google's six slices against the published
// block time and score, the score's split, the ablations at tpu-v3-2048,
// and Google's convergence table.
#include "workloads/transformer/transformer_projection.h"

#include <cmath>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/system.h"
#include "workloads/projected_runs.h"
#include "workloads/transformer/transformer_google_v06.h"
#include "workloads/transformer/transformer_graph.h"

namespace podbench::transformer {
namespace {

using ::testing::HasSubstr;

struct Prediction {
  workloads::ProjectedRunModel run;
  projection::RowPrediction row;
  double published_score_min = 0, published_gap_s = 0;
  double score_min() const { return row.score_s / 60; }
};

Prediction Predict(const std::string& slice, const std::vector<std::string>& sets = {},
                   const std::vector<std::string>& overrides = {}) {
  Prediction p;
  auto run = workloads::ModelProjectedRun("transformer", "google-v0.6", slice, topology::DefaultSystem(), sets,
                                          overrides);
  EXPECT_TRUE(run.ok()) << slice << ": " << run.status().ToString();
  if (!run.ok()) return p;
  p.run = std::move(run).value();
  auto row = workloads::PredictRow(p.run);
  EXPECT_TRUE(row.ok());
  if (row.ok()) p.row = *row;
  const TransformerConvergenceRow& conv = TransformerConvergenceFor(slice, 0);
  p.published_score_min = conv.published_score_min;
  p.published_gap_s = conv.published_gap_s;
  return p;
}

TEST(TransformerConvergenceTest, TableHoldsTenRunsPerSliceWithinTheRunsBlocks) {
  ASSERT_EQ(TransformerConvergenceTable().size(), TransformerGoogleV06Slices().size());
  for (const auto& row : TransformerConvergenceTable()) {
    const TransformerGoogleV06Slice* cfg = TransformerGoogleV06SliceFor(row.slice);
    ASSERT_NE(cfg, nullptr) << row.slice;
    EXPECT_EQ(row.global_sequences, cfg->global_sequences);
    int runs = 0;
    for (const auto& p : row.points) {
      runs += p.runs;
      EXPECT_GE(p.blocks_started, p.evals) << row.slice;
      EXPECT_LE(p.blocks_started, cfg->blocks) << row.slice;
    }
    EXPECT_EQ(runs, 10) << row.slice;
  }
  // A slice outside the table falls back to its global batch.
  EXPECT_EQ(TransformerConvergenceFor("tpu-v3-8", 2048).global_sequences, 2048);
  EXPECT_EQ(TransformerConvergenceFor("tpu-v3-8", 512).slice, "tpu-v3-32");
}

// The fidelity targets: every slice's block (the median gap between
// evaluations) and score within 15% of Google's published figures.
TEST(TransformerProjectionTest, EverySliceWithinFifteenPercentOfPublished) {
  for (const auto& cfg : TransformerGoogleV06Slices()) {
    const Prediction p = Predict(std::string(cfg.slice));
    EXPECT_LT(std::abs(p.row.median_gap_s / p.published_gap_s - 1), 0.15) << cfg.slice << " block "
                                                                         << p.row.median_gap_s;
    EXPECT_LT(std::abs(p.score_min() / p.published_score_min - 1), 0.15) << cfg.slice << " score "
                                                                         << p.score_min();
    EXPECT_EQ(p.run.plan.schedule.examples_per_epoch, cfg.steps_per_block * cfg.global_sequences);
  }
}

TEST(TransformerProjectionTest, ScoreSplitsIntoTrainingEvaluationStartupAndTail) {
  const Prediction p = Predict("tpu-v3-2048");
  const projection::RunPricing& pr = p.run.pricing;
  auto five = projection::ComposeRun(pr, p.run.labels, 5);
  ASSERT_TRUE(five.ok());
  const projection::ScoreSplit& s = five->split;
  const double block = pr.BlockTrainS(271);
  EXPECT_NEAR(s.training_s, 5 * block, 1e-9);
  EXPECT_NEAR(s.startup_s, pr.first_epoch_extra_s, 1e-12);
  // Scoring overlaps the next block but the last one's ends the run.
  EXPECT_NEAR(s.tail_s, pr.eval->scoring_s, 1e-9);
  EXPECT_NEAR(s.evaluation_s, 4 * pr.EvalS(block, false) + pr.eval->device_s, 1e-9);
  EXPECT_NEAR(s.total_s(), five->eval_end_s.back(), 1e-9);
  // 3003 sentences decode in ceil(3003 / 2048) = 2 steps of one sentence a core.
  EXPECT_EQ(pr.eval->steps, 2);
  // Serial scoring (an overlap switch) puts it in every gap.
  const Prediction serial = Predict("tpu-v3-2048", {}, {"overlap.eval_scoring_with_training=false"});
  EXPECT_NEAR(serial.run.pricing.EvalS(block, false), pr.eval->device_s + pr.eval->scoring_s, 1e-9);
  EXPECT_GT(serial.row.median_gap_s, p.row.median_gap_s);
}

// Each ablation switch is honoured by the layer and moves the score the way
// the technique should.
TEST(TransformerProjectionTest, AblationsAtTpuV3_2048) {
  using projection::Category;
  const Prediction base = Predict("tpu-v3-2048");
  const Prediction no_wus = Predict("tpu-v3-2048", {"weight_update_sharding=false"});
  const Prediction bf16 = Predict("tpu-v3-2048", {"gradient_allreduce_dtype=bf16"});
  const Prediction one_d = Predict("tpu-v3-2048", {"allreduce=ring_bidir"});
  const Prediction no_eval = Predict("tpu-v3-2048", {"projected_eval=false"});
  // Without sharding every core runs Adam over all 210 M parameters.
  EXPECT_GT(no_wus.run.pricing.step.time[Category::kOptimizer], 100 * base.run.pricing.step.time[Category::kOptimizer]);
  EXPECT_GT(no_wus.score_min(), 1.1 * base.score_min());
  // Half the bytes in the reduce-scatter; the all-gather of the updated
  // weights stays fp32.
  EXPECT_LT(bf16.run.pricing.step.time[Category::kGradients], 0.8 * base.run.pricing.step.time[Category::kGradients]);
  EXPECT_LT(bf16.score_min(), base.score_min());
  EXPECT_GT(one_d.run.pricing.step.time[Category::kGradients], base.run.pricing.step.time[Category::kGradients]);
  EXPECT_LT(no_eval.score_min(), base.score_min());
  EXPECT_EQ(no_eval.row.split.tail_s, 0);
  EXPECT_EQ(no_eval.run.pricing.EvalS(1, false), 0);
}

TEST(TransformerProjectionTest, RefusesWhatItCannotPrice) {
  auto run = workloads::ModelProjectedRun("transformer", "google-v0.6", "tpu-v3-8", topology::DefaultSystem());
  EXPECT_EQ(run.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(run.status().message(), HasSubstr("tpu-v3-8"));
  run = workloads::ModelProjectedRun("transformer", "google-v0.6", "tpu-v3-32", topology::DefaultSystem(),
                                     {"allreduce=nope"});
  EXPECT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("nope"));
  run = workloads::ModelProjectedRun("transformer", "google-v0.6", "tpu-v3-32", topology::DefaultSystem(),
                                     {"steps_per_block=0"});
  EXPECT_THAT(run.status().message(), HasSubstr("steps_per_block"));
}

}  // namespace
}  // namespace podbench::transformer
