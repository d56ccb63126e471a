// Drives the real binary: projected ResNet-50 runs with Google's v0.6
// preset write logs that pass podbench check, land in the store, and give
// the scaling table its predictions.
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

std::string Podbench(const std::string& args, int* rc) {
  std::string out;
  *rc = RunCommand(PodbenchBinary().string() + " " + args, &out);
  return out;
}

TEST(ResNetRunE2eTest, ProjectedRunsPassTheRulesAndMatchPublishedScores) {
  TempDir dir;
  const std::string db = (dir / "r.db").string();
  for (const char* slice : {"tpu-v3-32", "tpu-v3-2048"}) {
    int rc = 0;
    std::string out = Podbench(std::string("run resnet --mode projected --slice ") + slice +
                                   " --preset google-v0.6 --seed 11 --db " + db + " --log " +
                                   (dir / (std::string(slice) + ".log")).string(),
                               &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_THAT(out, HasSubstr("5 runs"));
    EXPECT_THAT(out, HasSubstr("passes the v0.6 rules"));
    EXPECT_THAT(out, ::testing::Not(HasSubstr("FAILS")));
    // The logs also pass a separate `podbench check`.
    std::string check = Podbench("check --quiet " + (dir / (std::string(slice) + "_0.log")).string(), &rc);
    EXPECT_EQ(rc, 0) << check;
  }
  int rc = 0;
  std::string json = Podbench("scaling resnet --preset google-v0.6 --format json --db " + db, &rc);
  ASSERT_EQ(rc, 0) << json;
  auto rows = nlohmann::json::parse(json);
  int checked = 0;
  for (const auto& row : rows) {
    if (row["predicted_min"].is_null()) continue;
    // The two calibration slices: within 5% of Google's published score.
    EXPECT_LT(std::abs(row["error_pct"].get<double>()), 5.0) << row.dump();
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(ResNetRunE2eTest, BadHyperparametersAreRefusedBeforeAnythingRuns) {
  TempDir dir;
  int rc = 0;
  std::string out = Podbench("run resnet --mode projected --slice tpu-v3-2048 --preset google-v0.6 "
                             "--set model_bn_span=100 --db " + (dir / "r.db").string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("model_bn_span"));
  out = Podbench("run resnet --mode projected --slice tpu-v3-2048 --set "
                 "lars_opt_learning_rate_decay_poly_power=1.0 --db " + (dir / "r.db").string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("polynomial"));
  out = Podbench("run resnet --mode projected --slice tpu-v3-8 --preset google-v0.6 --db " +
                 (dir / "r.db").string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.db"));
}

TEST(ResNetRunE2eTest, CalibrateReportsTheFitAndWritesASystemFile) {
  TempDir dir;
  int rc = 0;
  std::string out = Podbench("calibrate --format json --write " + (dir / "sys.yaml").string(), &rc);
  ASSERT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_GT(j["mxu_efficiency"].get<double>(), 0.3);
  ASSERT_EQ(j["blocks"].size(), 6u);
  // The written file loads and calibrates to the same values.
  std::string again = Podbench("calibrate --format json --system " + (dir / "sys.yaml").string(), &rc);
  ASSERT_EQ(rc, 0) << again;
  EXPECT_NEAR(nlohmann::json::parse(again)["mxu_efficiency"].get<double>(),
              j["mxu_efficiency"].get<double>(), 1e-6);
  out = Podbench("calibrate --system /nonexistent.yaml", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("/nonexistent.yaml"));
}

}  // namespace
}  // namespace podbench::testing
