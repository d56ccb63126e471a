// The projected Transformer (transformer_projection.h) on the built-in
// (jointly calibrated) system: Google's six slices against the published
// block time and score, the score's split, the ablations at tpu-v3-2048,
// and Google's convergence table.
#include "workloads/transformer/transformer_projection.h"

#include <cmath>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/system.h"
#include "workloads/transformer/transformer_google_v06.h"
#include "workloads/transformer/transformer_graph.h"

namespace podbench::transformer {
namespace {

using ::testing::HasSubstr;

GooglePrediction Predict(const std::string& slice, const std::vector<std::string>& overrides = {}) {
  auto p = PredictGoogleTransformer(topology::DefaultSystem(), slice, overrides);
  EXPECT_TRUE(p.ok()) << slice << ": " << p.status().ToString();
  return p.ok() ? *p : GooglePrediction{};
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
    const GooglePrediction p = Predict(std::string(cfg.slice));
    EXPECT_LT(std::abs(p.gap_error_pct()), 15.0) << cfg.slice << " block " << p.run.gap_s();
    EXPECT_LT(std::abs(p.score_error_pct()), 15.0) << cfg.slice << " score " << p.score_min;
    EXPECT_EQ(p.run.steps_per_block, cfg.steps_per_block);
  }
}

TEST(TransformerProjectionTest, ScoreSplitsIntoTrainingEvaluationStartupAndTail) {
  const GooglePrediction p = Predict("tpu-v3-2048");
  const ScoreSplit s = SplitScore(p.run, 5);
  EXPECT_NEAR(s.training_s, 5 * p.run.block_train_s(), 1e-9);
  EXPECT_NEAR(s.startup_s, topology::DefaultSystem().host.startup_s, 1e-9);
  // Scoring overlaps the next block but the last one's ends the run.
  EXPECT_NEAR(s.tail_s, p.run.eval.scoring_s, 1e-9);
  EXPECT_NEAR(s.evaluation_s, 5 * p.run.eval.device_s, 1e-9);
  EXPECT_NEAR(s.total_s(), s.startup_s + 5 * p.run.gap_s() + s.tail_s, 1e-9);
  // 3003 sentences decode in ceil(3003 / 2048) = 2 steps of one sentence a core.
  EXPECT_EQ(p.run.eval.steps, 2);
  // Serial scoring (an overlap switch) puts it in every gap.
  const GooglePrediction serial = Predict("tpu-v3-2048", {"overlap.eval_scoring_with_training=false"});
  EXPECT_NEAR(serial.run.gap_s(), p.run.gap_s() + p.run.eval.scoring_s, 1e-9);
}

// Each ablation switch is honoured by the layer and moves the score the way
// the technique should.
TEST(TransformerProjectionTest, AblationsAtTpuV3_2048) {
  const GooglePrediction base = Predict("tpu-v3-2048");
  const GooglePrediction no_wus = Predict("tpu-v3-2048", {"weight_update_sharding=false"});
  const GooglePrediction bf16 = Predict("tpu-v3-2048", {"gradient_dtype=bf16"});
  const GooglePrediction one_d = Predict("tpu-v3-2048", {"allreduce=ring_bidir"});
  const GooglePrediction no_eval = Predict("tpu-v3-2048", {"eval=false"});
  // Without sharding every core runs Adam over all 210 M parameters.
  EXPECT_GT(no_wus.run.step.time[projection::Category::kOptimizer],
            100 * base.run.step.time[projection::Category::kOptimizer]);
  EXPECT_GT(no_wus.score_min, 1.1 * base.score_min);
  // Half the bytes in the reduce-scatter; the all-gather of the updated
  // weights stays fp32.
  EXPECT_LT(bf16.run.step.time[projection::Category::kGradients],
            0.8 * base.run.step.time[projection::Category::kGradients]);
  EXPECT_LT(bf16.score_min, base.score_min);
  EXPECT_GT(one_d.run.step.time[projection::Category::kGradients],
            base.run.step.time[projection::Category::kGradients]);
  EXPECT_LT(no_eval.score_min, base.score_min);
  EXPECT_EQ(no_eval.split.tail_s, 0);
  EXPECT_EQ(no_eval.run.eval_s(false), 0);
}

// `podbench calibrate` wrote the committed system file: one fit over
// ResNet-50's and the Transformer's blocks at tpu-v3-32 and tpu-v3-2048.
// Fails when the cost model changes without a re-run.
TEST(JointCalibrationTest, CommittedSystemFileIsTheJointFit) {
  const topology::SystemSpec& sys = topology::DefaultSystem();
  auto cal = resnet::CalibrateResNet(sys, TransformerCalibrationTargets());
  ASSERT_TRUE(cal.ok()) << cal.status().ToString();
  EXPECT_NEAR(cal->mxu_efficiency, sys.core.mxu_efficiency, 1e-4 * sys.core.mxu_efficiency);
  EXPECT_NEAR(cal->op_overhead_s, sys.core.op_overhead_s, 1e-3 * sys.core.op_overhead_s);
  EXPECT_EQ(cal->input_bytes_per_s, sys.host.input_bytes_per_s);
  EXPECT_NEAR(cal->startup_s, sys.host.startup_s, 0.01);
  EXPECT_NEAR(cal->cache_fill_bytes_per_s, sys.host.cache_fill_bytes_per_s, 1e-5 * sys.host.cache_fill_bytes_per_s);
  // Least squares over four blocks: none exact, all four close.
  EXPECT_LT(std::abs(cal->small.error_pct()), 5.0);
  EXPECT_LT(std::abs(cal->large.error_pct()), 5.0);
  ASSERT_EQ(cal->extra.size(), 2u);
  for (const auto& t : cal->extra) EXPECT_LT(std::abs(t.error_pct()), 5.0) << t.name;
}

TEST(TransformerProjectionTest, RefusesWhatItCannotPrice) {
  auto p = PredictGoogleTransformer(topology::DefaultSystem(), "tpu-v3-8");
  EXPECT_EQ(p.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("tpu-v3-8"));
  p = PredictGoogleTransformer(topology::DefaultSystem(), "tpu-v3-32", {"allreduce=nope"});
  EXPECT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("nope"));
  auto graph = BuildTransformerGraph();
  ASSERT_TRUE(graph.ok());
  auto slice = topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  auto config = GoogleV06Preset("google-v0.6", "tpu-v3-32", 32);
  ASSERT_TRUE(config.ok());
  auto run = ProjectTransformerRun(*graph, *config, *slice, {}, 0, kEvalSentences);
  EXPECT_THAT(run.status().message(), HasSubstr("steps_per_block 0"));
}

}  // namespace
}  // namespace podbench::transformer
