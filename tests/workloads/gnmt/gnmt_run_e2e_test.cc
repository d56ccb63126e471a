// Drives the real binary: projected GNMT runs of Google's five slices, whose
// logs pass podbench's v0.6 rules and the official 0.6.0 gnmt rules (the
// ten keys, the two schedule-shape keys as booleans), `podbench scaling
// gnmt` prints their table, and functional mode refuses a Google-scale batch.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/log_checks.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

TEST(GnmtRunE2eTest, ProjectedRunsPassBothRuleSetsAndScalingPrintsTheTable) {
  TempDir dir;
  const std::string db = (dir / "g.db").string();
  int rc = 0;
  for (const char* slice : {"tpu-v3-32", "tpu-v3-128", "tpu-v3-256", "tpu-v3-512", "tpu-v3-1024"}) {
    SCOPED_TRACE(slice);
    const std::string log = (dir / (std::string(slice) + ".log")).string();
    std::string out = Podbench(std::string("run gnmt --mode projected --slice ") + slice +
                                   " --preset google-v0.6 --seed 11 --db " + db + " --log " + log,
                               &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_THAT(out, HasSubstr("10 runs"));  // the v0.6 rule for translation
    EXPECT_THAT(out, ::testing::Not(HasSubstr("FAILS")));
    const std::string first = (dir / (std::string(slice) + "_0.log")).string();
    const std::string text = ReadText(first);
    // The ten keys the 0.6.0 gnmt rules require, once each, the two
    // schedule-shape keys as booleans.
    ExpectEachKeyOnce(text, {"global_batch_size:", "opt_learning_rate_alt_decay_func:", "opt_base_learning_rate:",
                          "opt_learning_rate_decay_interval:", "opt_learning_rate_decay_factor:",
                          "opt_learning_rate_decay_steps:", "opt_learning_rate_remain_steps:",
                          "opt_learning_rate_alt_warmup_func:", "opt_learning_rate_warmup_steps:",
                          "max_sequence_length:"});
    EXPECT_THAT(text, HasSubstr("opt_learning_rate_alt_warmup_func: {\"value\":true"));
    EXPECT_THAT(text, HasSubstr("opt_learning_rate_alt_decay_func: {\"value\":true"));
    EXPECT_THAT(text, HasSubstr("\\\"mode\\\":\\\"projected\\\""));  // the BLEU values are modelled
    ExpectLogPassesBothRuleSets(first);
  }
  ExpectScalingTable("gnmt", db, 5, "tpu-v3-1024");
}

// Google's own v0.6 GNMT logs fail the official rules: two keys logged as
// strings where the rules want booleans (gnmt-v0.6.md §6).
TEST(GnmtRunE2eTest, GooglesLogsFailTheOfficialRulesOnTheTwoStringKeys) {
  auto shared = SharedDir();
  if (!shared) GTEST_SKIP() << "../shared is not here";
  int rc = 0;
  const std::string out =
      Podbench("check --ruleset 0.6.0 --rules-dir " + (*shared / "fixtures" / "mlperf-logging-rules").string() + " " +
                   (*shared / "fixtures/logs/v0.6/Google/results/tpu-v3-32/gnmt/result_0.txt").string(),
               &rc);
  EXPECT_NE(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("opt_learning_rate_alt_warmup_func"));
  EXPECT_THAT(out, HasSubstr("opt_learning_rate_alt_decay_func"));
}

TEST(GnmtRunE2eTest, FunctionalModeRefusesAGoogleScaleBatchNamingTheFix) {
  TempDir dir;
  int rc = 0;
  const std::string out =
      Podbench("run gnmt --mode functional --slice tpu-v3-8 --db " + (dir / "f.db").string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("is a Google-scale batch"));
  EXPECT_THAT(out, HasSubstr("--preset functional"));
  EXPECT_FALSE(std::filesystem::exists(dir / "f.db")) << "a refused run stores nothing";
}

}  // namespace
}  // namespace podbench::testing
