// `podbench topology` end to end: text and JSON output, user system files, errors.
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

TEST(TopologyCliTest, TextDescribesTheFullPod) {
  int rc = 0;
  std::string out = Podbench("topology --slice tpu-v3-2048", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("32 x 32 chips"));
  EXPECT_THAT(out, HasSubstr("256 hosts"));
  EXPECT_THAT(out, HasSubstr("bisection"));
  EXPECT_THAT(out, HasSubstr("1 GiB"));
  EXPECT_THAT(out, HasSubstr("ResNet-50"));
}

TEST(TopologyCliTest, JsonHasTheTableAndTheResNetComparison) {
  int rc = 0;
  std::string out = Podbench("topology --slice tpu-v3-128 --format json", &rc);
  ASSERT_EQ(rc, 0) << out;
  nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["slice"], "tpu-v3-128");
  EXPECT_EQ(j["chips_x"], 8);
  EXPECT_EQ(j["hosts"], 16);
  ASSERT_EQ(j["table"].size(), 21u);  // 1 KiB .. 1 GiB
  EXPECT_EQ(j["table"][0]["bytes"], 1024);
  EXPECT_GT(j["table"][20]["seconds"]["torus2d"].get<double>(), 0.0);
  ASSERT_EQ(j["resnet50"].size(), 2u);
  EXPECT_EQ(j["resnet50"][1]["dtype"], "bf16");
  EXPECT_GT(j["resnet50"][0]["ring_over_torus2d"].get<double>(), 0.0);
}

TEST(TopologyCliTest, WhatIfSystemFileChangesTheTimes) {
  TempDir dir;
  int rc = 0;
  std::string base = Podbench("topology --slice tpu-v3-32 --format json", &rc);
  ASSERT_EQ(rc, 0);
  // A file with twice the link bandwidth.
  std::string yaml = Podbench("topology --print-system", &rc);
  ASSERT_EQ(rc, 0);
  const std::string from = "link_bandwidth_bytes_per_s: 82.0e9";
  ASSERT_NE(yaml.find(from), std::string::npos);
  yaml.replace(yaml.find(from), from.size(), "link_bandwidth_bytes_per_s: 164.0e9");
  std::ofstream(dir / "fast.yaml") << yaml;
  std::string fast = Podbench("topology --slice tpu-v3-32 --format json --system " + (dir / "fast.yaml").string(), &rc);
  ASSERT_EQ(rc, 0) << fast;
  const double t0 = nlohmann::json::parse(base)["table"][20]["seconds"]["ring"];
  const double t1 = nlohmann::json::parse(fast)["table"][20]["seconds"]["ring"];
  EXPECT_LT(t1, t0 * 0.75);
}

TEST(TopologyCliTest, MalformedSystemFileNamesTheField) {
  TempDir dir;
  std::ofstream(dir / "bad.yaml") << "name: x\ncore: {mxus: two}\n";
  int rc = 0;
  std::string out = Podbench("topology --system " + (dir / "bad.yaml").string(), &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("bad.yaml"));
  EXPECT_THAT(out, HasSubstr("core.mxus"));
}

TEST(TopologyCliTest, UnknownSliceIsAUsageError) {
  int rc = 0;
  std::string out = Podbench("topology --slice tpu-v3-7", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("tpu-v3-2048"));
}

}  // namespace
}  // namespace podbench::testing
