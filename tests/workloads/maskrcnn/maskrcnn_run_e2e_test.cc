// Drives the real binary: projected Mask R-CNN runs of Google's three
// slices, whose logs pass podbench's v0.6 rules and the official 0.6.0
// maskrcnn rules (the five keys, eval_accuracy as [box, mask]), `podbench
// scaling maskrcnn` prints their table, Google's own logs fail the official
// rules, and functional mode is refused.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/log_checks.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

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

TEST(MaskRcnnRunE2eTest, FunctionalModeIsRefusedUntilItIsWired) {
  TempDir dir;
  int rc = 0;
  const std::string out =
      Podbench("run maskrcnn --mode functional --slice tpu-v3-8 --db " + (dir / "f.db").string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("maskrcnn has no functional mode"));
  EXPECT_FALSE(std::filesystem::exists(dir / "f.db")) << "a refused run stores nothing";
}

}  // namespace
}  // namespace podbench::testing
