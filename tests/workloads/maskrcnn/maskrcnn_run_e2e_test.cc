// Drives the real binary: projected Mask R-CNN runs of Google's three
// slices, whose logs pass podbench's v0.6 rules and the official 0.6.0
// maskrcnn rules (the five keys, eval_accuracy as [box, mask]), `podbench
// scaling maskrcnn` prints their table, Google's own logs fail the official
// rules; a short functional run reaches both targets and its log passes both
// rule sets; functional requests it cannot honour are refused.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/log_checks.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

// The reduced functional run: one class, one object of 16 to 40 pixels an
// image, 64x64, 128 training images (16 steps an epoch), the drops at steps
// 240 and 400. Seeds 1 and 2 reach both targets at epochs 13 and 10 (7-9 s).
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
// box mAP 0.377 and mask mAP 0.339: its log carries both values in every
// eval_accuracy and passes both rule sets. The default run is in
// docs/models/maskrcnn.md.
TEST(MaskRcnnRunE2eTest, ShortFunctionalRunReachesBothTargetsAndPassesBothRuleSets) {
  TempDir dir;
  const std::string log = (dir / "f.log").string();
  int rc = 0;
  const std::string out = Podbench(
      "run maskrcnn --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 1 " +
          std::string(kShortRun) + " --db " + (dir / "f.db").string() + " --log " + log,
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
           {"--preset functional --set global_batch_size=12", "does not split evenly over the 8 cores"},
           {"--preset functional --set functional_target_box_map=0.3", "box mAP 0.377 and mask mAP 0.339"},
           {"--preset functional --set functional_target_mask_map=0.3", "box mAP 0.377 and mask mAP 0.339"},
           {"--preset functional --set spatial_partitions=2", "runs one replica per core"},
           {"--preset functional --set eval_batch_size=128", "it has no evaluation batch"},
           {"--preset functional --set projected_distribute_heads=false", "an ablation of projected mode"},
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
}

}  // namespace
}  // namespace podbench::testing
