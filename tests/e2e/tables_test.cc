// Every table says what it is made of: a preset's runs and its ablations in
// one database, through the real binary. The preset's row in `scaling`,
// `report` and `reproduce` holds only the preset's plain runs (no --set, the
// built-in system); the others get their own labelled rows; every JSON row
// names its run ids.
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
using ::testing::Not;

class TablesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = (dir_->path() / "t.db").string();
    const std::string run = "run resnet --mode projected --slice tpu-v3-2048 --preset google-v0.6 --seed 1 --db " + db_;
    int rc = 0;
    std::string out = Podbench(run + " --runs 5", &rc);  // ids 1-5
    ASSERT_EQ(rc, 0) << out;
    out = Podbench(run + " --runs 5 --set allreduce=ring", &rc);  // ids 6-10
    ASSERT_EQ(rc, 0) << out;
    // A slower machine: the built-in system with a tenth of the ICI bandwidth.
    std::string system = Podbench("topology --print-system 2>/dev/null", &rc);
    ASSERT_EQ(rc, 0);
    const std::string key = "link_bandwidth_bytes_per_s:";
    const size_t at = system.find(key);
    ASSERT_NE(at, std::string::npos);
    system.replace(at, system.find('\n', at) - at, key + " 7.0e9");
    std::ofstream(dir_->path() / "slow.yaml") << system;
    out = Podbench(run + " --runs 3 --system " + (dir_->path() / "slow.yaml").string(), &rc);  // ids 11-13
    ASSERT_EQ(rc, 0) << out;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static nlohmann::json Json(const std::string& args) {
    int rc = 0;
    const std::string out = Podbench(args + " --format json 2>/dev/null", &rc);
    EXPECT_EQ(rc, 0) << args;
    nlohmann::json j = nlohmann::json::parse(out, nullptr, false);  // the whole output: one document
    EXPECT_FALSE(j.is_discarded()) << args << "\n" << out;
    return j;
  }

  static TempDir* dir_;
  static std::string db_;
};
TempDir* TablesTest::dir_ = nullptr;
std::string TablesTest::db_;

TEST_F(TablesTest, ScalingKeepsThePresetRowToItsOwnRuns) {
  int rc = 0;
  const std::string text = Podbench("scaling resnet --preset google-v0.6 --db " + db_, &rc);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_THAT(text, HasSubstr("rows: the complete projected runs of preset google-v0.6 with no --set"));
  EXPECT_THAT(text, ::testing::ContainsRegex("tpu-v3-2048 +1024 +5 .* 1-5\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("set allreduce=ring +tpu-v3-2048 .* 6-10\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("system .*slow.yaml \\(fnv1a64:[0-9a-f]{16}\\) +tpu-v3-2048 .* 11-13\n"));

  const nlohmann::json j = Json("scaling resnet --preset google-v0.6 --db " + db_);
  ASSERT_EQ(j["rows"].size(), 6u);  // every published slice
  const nlohmann::json& row = j["rows"][5];
  EXPECT_EQ(row["slice"], "tpu-v3-2048");
  EXPECT_EQ(row["run_ids"], nlohmann::json({1, 2, 3, 4, 5}));
  EXPECT_EQ(row["runs"], 5);
  EXPECT_FALSE(row["error_pct"].is_null());
  ASSERT_EQ(j["other_rows"].size(), 2u);
  EXPECT_EQ(j["other_rows"][0]["variant"], "set allreduce=ring");
  EXPECT_EQ(j["other_rows"][0]["run_ids"], nlohmann::json({6, 7, 8, 9, 10}));
  EXPECT_TRUE(j["other_rows"][0]["error_pct"].is_null());
  EXPECT_EQ(j["other_rows"][1]["run_ids"], nlohmann::json({11, 12, 13}));
  // The ablation is slower and the slow machine slower still: neither leaks into the preset's row.
  EXPECT_LT(row["step_time_s"].get<double>(), j["other_rows"][0]["step_time_s"].get<double>());
  EXPECT_LT(j["other_rows"][0]["step_time_s"].get<double>(), j["other_rows"][1]["step_time_s"].get<double>());

  const std::string csv = Podbench("scaling resnet --preset google-v0.6 --format csv --db " + db_, &rc);
  ASSERT_EQ(rc, 0);
  EXPECT_THAT(csv, HasSubstr("\n,google-v0.6,"));
  EXPECT_THAT(csv, HasSubstr(",1 2 3 4 5,tpu-v3-2048,"));
  EXPECT_THAT(csv, HasSubstr("\nset allreduce=ring,google-v0.6,"));
}

TEST_F(TablesTest, ReportGroupsByVariantAndNamesTheRuns) {
  int rc = 0;
  const std::string text = Podbench("report --db " + db_, &rc);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_THAT(text, ::testing::ContainsRegex("tpu-v3-2048 +projected +google-v0.6 +- +5 +5 .* 1-5 .* -\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("tpu-v3-2048 +projected +google-v0.6 +- +5 +5 .* 6-10 .* set allreduce=ring\n"));
  const nlohmann::json j = Json("report --db " + db_);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["run_ids"], nlohmann::json({1, 2, 3, 4, 5}));
  EXPECT_EQ(j[0]["variant"], "");
  EXPECT_EQ(j[1]["variant"], "set allreduce=ring");

  const std::string html_path = (dir_->path() / "r.html").string();
  std::string out = Podbench("report --html " + html_path + " --db " + db_, &rc);
  ASSERT_EQ(rc, 0) << out;
  std::ifstream in(html_path);
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_THAT(html.str(), HasSubstr("data-table=\"resnet-scaling-other\""));
  EXPECT_THAT(html.str(), HasSubstr("<td class=\"text\">1-5</td>"));
  EXPECT_THAT(html.str(), HasSubstr("<td class=\"text\">set allreduce=ring</td>"));
}

TEST_F(TablesTest, ReproduceTablesOnlyItsOwnScoredSets) {
  const std::string out_dir = (dir_->path() / "rep").string();
  const nlohmann::json j = Json("reproduce --workloads resnet --slices tpu-v3-2048 --claims none --out " + out_dir +
                                " --db " + db_);
  ASSERT_TRUE(j.contains("workloads")) << j.dump();
  const nlohmann::json& slice = j["workloads"][0]["slices"][0];
  EXPECT_EQ(slice["runs"], 5);
  ASSERT_EQ(slice["run_ids"].size(), 5u);
  for (const auto& id : slice["run_ids"]) EXPECT_GT(id.get<int>(), 13) << "a run made before reproduce";
  EXPECT_EQ(slice["variant"], "");
}

}  // namespace
}  // namespace podbench::testing
