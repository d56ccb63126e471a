// Drives the real binary: projected Mask R-CNN runs of Google's three
// slices, whose logs pass podbench's v0.6 rules and the official 0.6.0
// maskrcnn rules (the five keys, eval_accuracy as [box, mask]), `podbench
// scaling maskrcnn` prints their table, Google's own logs fail the official
// rules; a short functional run with its first stage split 2 ways reaches
// both targets and its log passes both rule sets; short runs split 2 and 4
// ways evaluate every epoch as the unpartitioned one; functional requests it
// cannot honour are refused.
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/kernels/pin_gemm.h"
#include "tests/testing/log_checks.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

// The reduced functional run: one class, one object of 16 to 40 pixels an
// image, 64x64, 128 training images (16 steps an epoch), the drops at steps
// 240 and 400. Seed 1 reaches both targets after 14 epochs unpartitioned
// (about 8 s of CPU), seed 2 after 8 with spatial_partitions=2 (5 s).
constexpr const char* kShortRun =
    "--set functional_image_size=64 --set functional_spread_area_ranges=false --set functional_classes=1 "
    "--set functional_max_objects=1 --set functional_min_object_size=16 --set functional_train_examples=128 "
    "--set functional_eval_examples=16 --set num_image_candidates=50 --set first_lr_drop_step=240 "
    "--set second_lr_drop_step=400 --set max_epochs=40 --set functional_target_box_map=0.377 "
    "--set functional_target_mask_map=0.339";

TEST(MaskRcnnRunE2eTest, ProjectedRunsPassBothRuleSetsAndScalingPrintsTheTable) {
  TempDir dir;
  const std::string db = (dir / "m.db").string();
  int rc = 0;
  for (const char* slice : {"tpu-v3-32", "tpu-v3-128", "tpu-v3-256"}) {
    SCOPED_TRACE(slice);
    const std::string log = (dir / (std::string(slice) + ".log")).string();
    std::string out = Podbench(std::string("run maskrcnn --mode projected --slice ") + slice +
                                   " --preset google-v0.6 --seed 3 --db " + db + " --log " + log,
                               &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_THAT(out, HasSubstr("5 runs"));  // the v0.6 rule for vision
    EXPECT_THAT(out, ::testing::Not(HasSubstr("FAILS")));
    const std::string first = (dir / (std::string(slice) + "_0.log")).string();
    const std::string text = ReadText(first);
    // The five keys the 0.6.0 maskrcnn rules require, once each, each > 0.
    ExpectEachKeyOnce(text, {"global_batch_size:", "opt_base_learning_rate:", "opt_learning_rate_warmup_steps:",
                          "opt_learning_rate_warmup_factor:", "num_image_candidates:"});
    EXPECT_THAT(text, HasSubstr("submission_benchmark: {\"value\":\"maskrcnn\""));
    EXPECT_THAT(text, HasSubstr("opt_learning_rate_warmup_factor: {\"value\":0.001"));
    // eval_accuracy is Google's [box, mask]; 15 evaluations, the last one
    // over both targets.
    EXPECT_EQ(CountOccurrences(text, " eval_accuracy: {\"value\":["), 15);
    EXPECT_THAT(text, HasSubstr("\\\"mode\\\":\\\"projected\\\""));  // the mAP values are modelled
    ExpectLogPassesBothRuleSets(first);
  }
  ExpectScalingTable("maskrcnn", db, 3, "tpu-v3-256");
}

// Google's own v0.6 Mask R-CNN logs fail the official rules: the warmup
// factor is logged as 0.0 and the benchmark is named "mask" (maskrcnn-v0.6.md
// §5).
TEST(MaskRcnnRunE2eTest, GooglesLogsFailTheOfficialRules) {
  auto shared = SharedDir();
  if (!shared) GTEST_SKIP() << "../shared is not here";
  int rc = 0;
  const std::string out =
      Podbench("check --ruleset 0.6.0 --rules-dir " + (*shared / "fixtures" / "mlperf-logging-rules").string() + " " +
                   (*shared / "fixtures/logs/v0.6/Google/results/tpu-v3-32/mask/result_0.txt").string(),
               &rc);
  EXPECT_NE(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("submission_benchmark"));
}

// A reduced functional run (kShortRun, in steps of 8) to MLPerf's own targets,
// box mAP 0.377 and mask mAP 0.339, with the first stage split over 2 cores
// a replica (`--set spatial_partitions=2`: 4 replicas, the second stage
// pinned; seed 2 reaches both after 8 epochs): its log carries both values
// in every eval_accuracy and passes both rule sets. The README runs the same
// reduced run unpartitioned to the targets (readme_test); the default run is
// in docs/models/maskrcnn.md.
TEST(MaskRcnnRunE2eTest, ShortPartitionedFunctionalRunReachesBothTargetsAndPassesBothRuleSets) {
  TempDir dir;
  const std::string log = (dir / "f.log").string();
  int rc = 0;
  const std::string out = Podbench(
      "run maskrcnn --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 2 " +
          std::string(kShortRun) + " --set spatial_partitions=2 --db " + (dir / "f.db").string() + " --log " + log,
      &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("success"));
  const std::string text = ReadText(log);
  ExpectEachKeyOnce(text, {"global_batch_size:", "opt_base_learning_rate:", "opt_learning_rate_warmup_steps:",
                           "opt_learning_rate_warmup_factor:", "num_image_candidates:"});
  // The values the run used: the preset's, and the --set candidates.
  EXPECT_THAT(text, HasSubstr("global_batch_size: {\"value\":8,"));
  EXPECT_THAT(text, HasSubstr("opt_learning_rate_warmup_factor: {\"value\":0.1,"));
  EXPECT_THAT(text, HasSubstr("num_image_candidates: {\"value\":50,"));
  EXPECT_THAT(text, HasSubstr("submission_benchmark: {\"value\":\"maskrcnn\""));
  // Computed, not modelled: [box, mask] every epoch.
  EXPECT_GE(CountOccurrences(text, " eval_accuracy: {\"value\":["), 1);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("modelled")));
  ExpectLogPassesBothRuleSets(log);
}

TEST(MaskRcnnRunE2eTest, FunctionalRequestsItCannotHonourAreRefusedBeforeAnythingRuns) {
  TempDir dir;
  const std::string run = "run maskrcnn --mode functional --slice tpu-v3-8 --db " + (dir / "r.db").string();
  struct Case {
    std::string flags, says;
  };
  for (const Case& c : std::vector<Case>{
           {"", "is a COCO-scale batch"},  // Google's batch 128 ... of 832x1344 images
           {"--preset functional --set global_batch_size=12", "does not split evenly over the 8 replicas"},
           {"--preset functional --set functional_target_box_map=0.3", "box mAP 0.377 and mask mAP 0.339"},
           {"--preset functional --set functional_target_mask_map=0.3", "box mAP 0.377 and mask mAP 0.339"},
           // Replicas of spatial_partitions cores: 1, 2 or 4 of them, the
           // batch split over the replicas.
           {"--preset functional --set spatial_partitions=3",
            "spatial_partitions 3 must be 1, 2 or 4 and divide the 8 cores of tpu-v3-8"},
           {"--preset functional --set spatial_partitions=2 --set global_batch_size=6",
            "global_batch_size 6 does not split evenly over the 4 replicas (8 cores of tpu-v3-8 / spatial_partitions "
            "2)"},
           {"--preset functional --set eval_batch_size=128", "it has no evaluation batch"},
           {"--preset functional --set projected_distribute_heads=false",
            "projected_* hyperparameters are read only by --mode projected"},
           {"--preset functional --set distributed_eval=false", "an ablation of projected mode"},
           {"--preset functional --set functional_image_size=64", "functional_spread_area_ranges needs "
                                                                   "functional_image_size >= 128"},
           {"--preset functional --set functional_image_size=96", "multiple of 64"},
           {"--preset functional --set functional_image_size=64 --set functional_spread_area_ranges=false "
            "--set functional_min_object_size=40", "functional_min_object_size 40 must be below the largest object"},
           {"--preset functional --set functional_train_examples=4", "smaller than one global batch"},
           {"--preset functional --set opt_learning_rate_warmup_factor=0",
            "opt_learning_rate_warmup_factor > 0 (Google's v0.6 logs write 0.0"},
       }) {
    SCOPED_TRACE(c.flags);
    int rc = 0;
    const std::string out = Podbench(run + " " + c.flags, &rc);
    EXPECT_EQ(rc, 2) << out;
    EXPECT_THAT(out, HasSubstr(c.says));
  }
  // Projected mode keeps Google's budget of 16 blocks.
  int rc = 0;
  const std::string out = Podbench("run maskrcnn --mode projected --slice tpu-v3-32 --preset google-v0.6 --set "
                                   "max_epochs=17 --db " + (dir / "r.db").string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("at most Google v0.6's total_steps, 16 blocks"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.db")) << "a refused run stores nothing";

  // A slice whose cores 4 does not divide: 6 cores (3 chips) of a system
  // file that has one.
  std::string yaml = Podbench("topology --print-system", &rc);
  ASSERT_EQ(rc, 0) << yaml;
  const std::string slices = "  slices:\n";
  const size_t at = yaml.find(slices);
  ASSERT_NE(at, std::string::npos) << yaml;
  yaml.insert(at + slices.size(), "    6: [1, 3]\n");
  std::ofstream(dir / "six.yaml") << yaml;
  const std::string six = Podbench("run maskrcnn --mode functional --slice tpu-v3-6 --system " +
                                       (dir / "six.yaml").string() + " --preset functional --set spatial_partitions=4 "
                                       "--db " + (dir / "r.db").string(), &rc);
  EXPECT_EQ(rc, 2) << six;
  EXPECT_THAT(six, HasSubstr("spatial_partitions 4 must be 1, 2 or 4 and divide the 6 cores of tpu-v3-6"));
}

// The [box, mask] of each eval_accuracy line of log text, in order.
std::vector<std::array<double, 2>> EvalAccuracies(const std::string& text) {
  std::vector<std::array<double, 2>> out;
  const std::string key = " eval_accuracy: ";
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(key);
    if (at == std::string::npos) continue;
    const nlohmann::json j = nlohmann::json::parse(line.substr(at + key.size()), nullptr, false);
    if (j.is_discarded() || !j.contains("value") || !j["value"].is_array() || j["value"].size() != 2) {
      ADD_FAILURE() << "not an eval_accuracy of [box, mask]: " << line;
      continue;
    }
    out.push_back({j["value"][0].get<double>(), j["value"][1].get<double>()});
  }
  return out;
}

// `--set spatial_partitions=K` through the CLI: the reduced run (kShortRun)
// on one batch of 8 images an epoch, for kEpochs epochs, with the first
// stage split K = 2 and 4 ways (4 and 2 replicas of tpu-v3-8's 8 cores, the
// second stage pinned) evaluates every epoch as the unpartitioned run (8
// replicas of 1 core) does (seed 2; measured the same at seed 1). Partitioned training equals
// unpartitioned up to the order of sums (about 1e-7 of a step's gradient,
// maskrcnn_functional_test), and mAP is piecewise constant in the weights:
// it moves only when a detection's score crosses another's or a box crosses
// an IoU threshold, which such differences do not do, so the values are
// equal (measured: bitwise; kTolerance allows for nothing more). Longer runs
// part: proposals' top-k and NMS and the ROI samples are discrete functions
// of the weights, and once the differences flip one sample (after about 10
// steps in docs/models/maskrcnn.md's measurement; within the first 16-step
// epoch of the 128-image set at some seeds and kernel choices) the runs
// train on different samples, so the epochs here are single steps.
TEST(MaskRcnnRunE2eTest, PartitionedRunsEvaluateEveryEpochAsTheUnpartitionedRun) {
  kernels::testing::PinGemmVariants();  // inherited by the podbench processes
  constexpr int kEpochs = 3;
  constexpr double kTolerance = 1e-12;
  TempDir dir;
  for (int seed : {2}) {  // one seed: the test runs in the sanitizer stage too
    std::vector<std::vector<std::array<double, 2>>> acc;
    for (int k : {1, 2, 4}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", spatial_partitions " + std::to_string(k));
      const std::string log = (dir / ("s" + std::to_string(seed) + "k" + std::to_string(k) + ".log")).string();
      int rc = 0;
      const std::string out = Podbench(
          "run maskrcnn --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed " +
              std::to_string(seed) + " " + std::string(kShortRun) + " --set functional_train_examples=8 --set "
              "max_epochs=" + std::to_string(kEpochs) + " --set spatial_partitions=" + std::to_string(k) + " --db " +
              (dir / "p.db").string() + " --log " + log,
          &rc);
      // Three steps do not reach the targets: the run ends aborted (exit 1).
      ASSERT_EQ(rc, 1) << out;
      EXPECT_THAT(out, HasSubstr("aborted after 3 epochs"));
      acc.push_back(EvalAccuracies(ReadText(log)));
      ASSERT_EQ(acc.back().size(), static_cast<size_t>(kEpochs));
    }
    ASSERT_GT(acc[0][0][0], 0.0) << "seed " << seed << ": no box found: the comparison would be vacuous";
    for (size_t k = 1; k < acc.size(); ++k) {
      for (size_t e = 0; e < acc[k].size(); ++e) {
        for (size_t m = 0; m < 2; ++m) {
          EXPECT_NEAR(acc[k][e][m], acc[0][e][m], kTolerance)
              << (m == 0 ? "box" : "mask") << " mAP at epoch " << e + 1 << ", seed " << seed
              << ", spatial_partitions " << (k == 1 ? 2 : 4);
        }
      }
    }
  }
}

}  // namespace
}  // namespace podbench::testing
