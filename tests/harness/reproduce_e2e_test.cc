// `podbench reproduce` through the real binary: every slice of the
// google-v0.6 preset, projected, scored runs, checked logs, the fidelity
// table, the published logs beside it (when ../shared is here), and the
// files it leaves in --out.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/sanitizers.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class ReproduceE2eTest : public ::testing::Test {
 protected:
  std::string Run(const std::string& args, int* rc) {
    std::string out;
    *rc = RunCommand("cd " + dir_.path().string() + " && " + PodbenchBinary().string() + " " + args + " 2>&1",
                     &out);
    return out;
  }
  TempDir dir_;
};

TEST_F(ReproduceE2eTest, EveryPublishedSliceWithScoredRunsCheckedLogsAndTheFidelityTable) {
  const auto shared = SharedDir();
  const std::string published =
      shared ? " --published " + (*shared / "fixtures/logs/v0.6/Google").string() : "";
  int rc = 0;
  const std::string out = Run("reproduce --workloads resnet --claims none --out out --format json" + published, &rc);
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["preset"], "google-v0.6");
  EXPECT_EQ(j["mode"], "projected");
  EXPECT_EQ(j["any_failed"], false);
  EXPECT_GT(j["host_time_s"].get<double>(), 0);
  ASSERT_EQ(j["workloads"].size(), 1u);
  const nlohmann::json& w = j["workloads"][0];
  EXPECT_EQ(w["workload"], "resnet");
  EXPECT_EQ(w["scored_runs"], 5);
  // The slices come from the preset: Google's six.
  std::vector<std::string> slices;
  for (const auto& s : w["slices"]) {
    slices.push_back(s["slice"]);
    EXPECT_EQ(s["runs"], 5) << s["slice"];
    EXPECT_EQ(s["set"]["logs_pass"], 5) << s["slice"];
    EXPECT_LT(std::abs(s["error_pct"].get<double>()), 15) << s["slice"];
    EXPECT_LT(std::abs(s["block_error_pct"].get<double>()), 15) << s["slice"];
    // The score split of the runs, composed again from their seeds: every
    // run's composition is its log's time to train.
    const nlohmann::json& split = s["score_split"];
    ASSERT_TRUE(split["predicted"].is_object()) << s["slice"];
    EXPECT_EQ(split["predicted"]["runs"], 5);
    EXPECT_EQ(split["predicted"]["runs_not_matching_their_log"], 0) << s["slice"];
    EXPECT_NEAR(split["predicted"]["total_s"].get<double>() / 60, s["predicted_min"].get<double>(),
                0.05 * s["predicted_min"].get<double>());
    const double parts = split["predicted"]["startup_pct"].get<double>() + split["predicted"]["training_pct"].get<double>() +
                         split["predicted"]["evaluation_pct"].get<double>() + split["predicted"]["tail_pct"].get<double>();
    EXPECT_NEAR(parts, 100, 1e-6);
    if (shared) {
      // The same split of Google's logs, and how it was read.
      ASSERT_TRUE(split["logs"].is_object()) << split.dump();
      EXPECT_EQ(split["logs"]["runs"], 5);
      EXPECT_THAT(split["logs"]["method"].get<std::string>(), HasSubstr("eval_accuracy"));
      ASSERT_TRUE(s["published_logs"].is_object()) << s["slice"];
      EXPECT_EQ(s["published_logs"]["logs"], 5) << s["slice"];
      EXPECT_NEAR(s["published_logs"]["score_min"].get<double>(), s["published_min"].get<double>(), 0.05)
          << s["slice"];
    } else {
      EXPECT_TRUE(s["published_logs"].is_null());
    }
  }
  EXPECT_THAT(slices, ::testing::ElementsAre("tpu-v3-32", "tpu-v3-128", "tpu-v3-256", "tpu-v3-512",
                                             "tpu-v3-1024", "tpu-v3-2048"));
  EXPECT_EQ(w["fidelity"]["score"]["n"], 6);
  EXPECT_LT(w["fidelity"]["score"]["median_abs_error_pct"].get<double>(), 15);
  EXPECT_EQ(j["fidelity"], w["fidelity"]);  // one workload: overall = it

  // Everything saved in --out.
  const fs::path o = dir_ / "out";
  EXPECT_TRUE(fs::exists(o / "podbench.db"));
  EXPECT_TRUE(fs::exists(o / "logs" / "resnet-tpu-v3-32_0.log"));
  EXPECT_TRUE(fs::exists(o / "logs" / "resnet-tpu-v3-2048_4.log"));
  std::ifstream summary(o / "reproduce.json");
  EXPECT_EQ(nlohmann::json::parse(summary), j);
  std::ifstream report(o / "report.html");
  std::stringstream html;
  html << report.rdbuf();
  EXPECT_THAT(html.str(), HasSubstr("data-plot=\"resnet-scaling-score\""));
  const std::string runs = Run("runs --db out/podbench.db --format json", &rc);
  ASSERT_EQ(rc, 0) << runs;
  EXPECT_EQ(nlohmann::json::parse(runs).size(), 30u);
}

TEST_F(ReproduceE2eTest, GnmtsLogsGiveTheirEvaluationWindowsBesidePodbenchsDecode) {
  const auto shared = SharedDir();
  if (!shared) GTEST_SKIP() << "needs ../shared (Google's GNMT logs); set PODBENCH_SHARED";
  int rc = 0;
  const std::string published = " --published " + (*shared / "fixtures/logs/v0.6/Google").string();
  const std::string out =
      Run("reproduce --workloads gnmt --slices tpu-v3-1024 --claims none --out out --format json" + published, &rc);
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  const nlohmann::json& logs = j["workloads"][0]["slices"][0]["score_split"]["logs"];
  ASSERT_TRUE(logs.is_object()) << j.dump();
  EXPECT_NEAR(logs["first_eval_window_s"].get<double>(), 0.45, 0.006);
  EXPECT_NEAR(logs["later_eval_window_s"].get<double>(), 2.01, 0.006);
  EXPECT_THAT(logs["method"].get<std::string>(), HasSubstr("upper bound"));
  const std::string text = Run("reproduce --workloads gnmt --slices tpu-v3-1024 --claims none --out out2" + published, &rc);
  EXPECT_THAT(text, HasSubstr("the logs' evaluation windows"));
  EXPECT_THAT(text, ::testing::ContainsRegex("gnmt +tpu-v3-1024 +0\\.45 +2\\.01 +0\\.16"));
}

TEST_F(ReproduceE2eTest, TextHasTheTableErrorsReportAndHostTimeButNoProgressBarOffATerminal) {
  int rc = 0;
  const std::string out = Run("reproduce --slices tpu-v3-32,tpu-v3-2048 --out o --published /nonexistent", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("--published /nonexistent: no such folder"));
  const std::string text = Run("reproduce --slices tpu-v3-32,tpu-v3-2048 --claims none --out o", &rc);
  ASSERT_EQ(rc, 0) << text;
  // Two slices of every projected workload with a google-v0.6 preset.
  EXPECT_THAT(text, HasSubstr("5 workloads, 8 scored sets"));  // GNMT and Mask R-CNN have no tpu-v3-2048
  EXPECT_THAT(text, ::testing::ContainsRegex("ssd +tpu-v3-32 +16 +5 "));
  EXPECT_THAT(text, HasSubstr("fidelity against Google's published MLPerf v0.6 results"));
  EXPECT_THAT(text, ::testing::ContainsRegex("resnet +tpu-v3-2048 +1024 +5 "));
  EXPECT_THAT(text, ::testing::ContainsRegex("transformer +tpu-v3-2048 +1024 +10 "));
  EXPECT_THAT(text, HasSubstr("overall"));
  EXPECT_THAT(text, HasSubstr("where the time to train goes"));
  EXPECT_THAT(text, ::testing::ContainsRegex("transformer +tpu-v3-2048 +[0-9.]+% +[0-9.]+%"));
  EXPECT_THAT(text, Not(HasSubstr("the seed papers' claims")));
  EXPECT_THAT(text, HasSubstr("report: o/report.html"));
  EXPECT_THAT(text, ::testing::ContainsRegex("host time: [0-9.]+ s"));
  EXPECT_THAT(text, Not(HasSubstr("\r")));
  EXPECT_THAT(text, Not(HasSubstr("tpu-v3-128")));
}

// The seed papers' claims: paired runs in the database, the figures, the
// verdicts, reproduce.json and the report's drawing. SSD's scaling claim is
// the ratio of the same runs' scores the fidelity table holds.
TEST_F(ReproduceE2eTest, ClaimsAreTestedByPairedRunsAndDrawnInTheReport) {
  int rc = 0;
  const std::string out = Run("reproduce --workloads ssd --slices tpu-v3-512,tpu-v3-2048 --claims "
                              "ssd-plateau,ssd-spatial-partitioning --out o --format json",
                              &rc);
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  ASSERT_EQ(j["claims"].size(), 2u);
  std::map<std::string, double> score;
  for (const auto& s : j["workloads"][0]["slices"]) score[s["slice"]] = s["predicted_min"];
  for (const auto& c : j["claims"]) {
    EXPECT_EQ(c["paper"], "Kumar et al. 2019");
    EXPECT_FALSE(c["words"].get<std::string>().empty());
    EXPECT_EQ(c["base"]["run_ids"].size(), 5u);
    EXPECT_EQ(c["variant"]["run_ids"].size(), 5u);
    EXPECT_TRUE(c["verdict"] == "agrees" || c["verdict"] == "disagrees") << c.dump();
    if (c["id"] == "ssd-plateau") {
      EXPECT_NEAR(c["podbench_figure"].get<double>(), score["tpu-v3-512"] / score["tpu-v3-2048"], 1e-9);
      EXPECT_EQ(c["paper_figure"], 1.48);
    }
  }
  std::ifstream report(dir_ / "o" / "report.html");
  std::stringstream html;
  html << report.rdbuf();
  EXPECT_THAT(html.str(), HasSubstr("data-plot=\"claim-ssd-plateau\""));
  EXPECT_THAT(html.str(), HasSubstr("data-plot=\"claim-ssd-spatial-partitioning\""));
  EXPECT_THAT(html.str(), HasSubstr("data-table=\"claims\""));
  // The claims' arms are runs in the database beside the scored sets: 2 x 5
  // set runs and 2 x 2 x 5 claim runs.
  const std::string runs = Run("runs --db o/podbench.db --format json", &rc);
  ASSERT_EQ(rc, 0) << runs;
  EXPECT_EQ(nlohmann::json::parse(runs).size(), 30u);
  // A claim no chosen workload declares is refused, listing those that are.
  const std::string bad = Run("reproduce --workloads ssd --claims resnet-2d-gradient-summation --out b", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(bad, HasSubstr("--claims resnet-2d-gradient-summation: the chosen workloads declare no such claim"));
  EXPECT_THAT(bad, HasSubstr("ssd-plateau"));
}

// Ying et al.'s distributed batch norm at 4 images a replica, trained for
// real: per-replica statistics lose accuracy that statistics over the
// replicas keep, beyond the three seeds' spread.
TEST_F(ReproduceE2eTest, DistributedBatchNormKeepsAccuracyAtSmallPerReplicaBatches) {
  // Six functional ResNet runs: about 2.5 minutes of CI's sanitizer stage.
  PODBENCH_RELEASE_STAGE_ONLY("the same training code runs in resnet_functional_test and ResNetRunE2eTest");
  int rc = 0;
  const std::string out = Run("reproduce --workloads resnet --slices tpu-v3-2048 --claims "
                              "resnet-distributed-bn-accuracy --out o --format json",
                              &rc);
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  ASSERT_EQ(j["claims"].size(), 1u);
  const nlohmann::json& c = j["claims"][0];
  EXPECT_EQ(c["verdict"], "agrees") << c.dump();
  EXPECT_GT(c["podbench_figure"].get<double>(), 0.1) << c.dump();
  EXPECT_EQ(c["base"]["final_metric"].size(), 3u);
  EXPECT_EQ(c["variant"]["mode"], "functional");
  // Fixed budget: every run ends at max_epochs, aborted at the target 1.
  for (const auto& st : c["variant"]["statuses"]) EXPECT_EQ(st, "aborted");
  EXPECT_EQ(j["any_failed"], false);  // claim arms are experiments, not submissions
}

TEST_F(ReproduceE2eTest, BadSelectionsAreRefusedBeforeAnythingRuns) {
  int rc = 0;
  std::string out = Run("reproduce --workloads toy --out a", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--workloads toy: no projected workload with a google-v0.6 preset"));
  out = Run("reproduce --slices tpu-v3-6 --out a", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--slices tpu-v3-6"));
  out = Run("reproduce --slices tpu-v3-8 --out a", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("no workload's google-v0.6 preset has values for the slices asked for"));
  EXPECT_FALSE(fs::exists(dir_ / "a"));
}

TEST_F(ReproduceE2eTest, ReportHtmlWritesOneFileAndRefusesBadRequests) {
  int rc = 0;
  std::string out = Run("report --html r.html --db missing.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("missing.db: no such results database"));
  Run("run toy --runs 1 --seed 1 --db t.db", &rc);
  ASSERT_EQ(rc, 0);
  out = Run("report --html no/such/folder/r.html --db t.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("no/such/folder/r.html: cannot create the HTML report"));
  out = Run("report --html r.html --format json --db t.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--html writes HTML"));
  out = Run("report --html r.html -o r.txt --db t.db", &rc);
  EXPECT_EQ(rc, 2);
  out = Run("report --html r.html --db t.db", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("HTML report: r.html (open file://"));
  std::ifstream in(dir_ / "r.html");
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_THAT(html.str(), HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html.str(), HasSubstr("data-plot=\"toy-accuracy-accuracy\""));
  EXPECT_THAT(html.str(), HasSubstr("target &gt;= 0.92"));  // the target stored with the run
}

}  // namespace
}  // namespace podbench::testing
