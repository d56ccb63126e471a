// End-to-end: `podbench check` and `podbench score` as users run them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench {
namespace {

using ::testing::HasSubstr;
using testing::Podbench;
using testing::PodbenchBinary;
using testing::RunCommand;
using testing::TempDir;

const char* kGoodLog =
    ":::MLL 0.0 submission_benchmark: {\"value\": \"minigo\", \"metadata\": {}}\n"
    ":::MLL 0.0 submission_division: {\"value\": \"closed\", \"metadata\": {}}\n"
    ":::MLL 0.0 submission_org: {\"value\": \"podbench\", \"metadata\": {}}\n"
    ":::MLL 0.0 submission_platform: {\"value\": \"cpu\", \"metadata\": {}}\n"
    ":::MLL 0.0 submission_status: {\"value\": \"research\", \"metadata\": {}}\n"
    ":::MLL 1.0 cache_clear: {\"value\": true, \"metadata\": {}}\n"
    ":::MLL 2.0 init_start: {\"value\": null, \"metadata\": {}}\n"
    ":::MLL 2.5 global_batch_size: {\"value\": 64, \"metadata\": {}}\n"
    ":::MLL 3.0 init_stop: {\"value\": null, \"metadata\": {}}\n"
    ":::MLL 3.0 run_start: {\"value\": null, \"metadata\": {}}\n"
    ":::MLL 9.0 eval_accuracy: {\"value\": 0.3, \"metadata\": {\"epoch_num\": 1}}\n"
    ":::MLL 19.0 eval_accuracy: {\"value\": 0.55, \"metadata\": {\"epoch_num\": 2}}\n"
    ":::MLL 19.5 eval_result: {\"value\": null, \"metadata\": {\"timestamp\": 16.0}}\n";

void WriteFile(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(CheckCli, PassingLogExitsZero) {
  TempDir dir;
  WriteFile(dir / "good.txt", kGoodLog);
  int rc = 0;
  std::string out = Podbench("check " + (dir / "good.txt").string(), &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("PASS  " + (dir / "good.txt").string()));
}

TEST(CheckCli, FailingLogExitsOneAndExplainsPerKey) {
  TempDir dir;
  std::string bad = kGoodLog;
  bad.replace(bad.find("0.55"), 4, "0.45");  // target never reached
  bad += ":::MLL 20.0 run_start: {\"value\": null, \"metadata\": {}}\n";  // duplicated run_start
  WriteFile(dir / "bad.txt", bad);
  WriteFile(dir / "sub/good.txt", kGoodLog);
  int rc = 0;
  std::string out = Podbench("check " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("ERROR [run_start] CHECK for 'run_start' failed in line 13:"));
  EXPECT_THAT(out, HasSubstr("bad.txt:14: :::MLL 20.0 run_start"));  // file:line of the failing log line
  EXPECT_THAT(out, HasSubstr("not s['run_started']"));                 // the failing expression
  EXPECT_THAT(out, HasSubstr("Failed checks for eval_accuracy"));
  EXPECT_THAT(out, HasSubstr("FAIL  " + (dir / "bad.txt").string()));
  EXPECT_THAT(out, HasSubstr("PASS  " + (dir / "sub/good.txt").string()));
  EXPECT_THAT(out, HasSubstr("1 of 2 logs pass"));

  std::string json = Podbench("check --format json " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 1);
  std::istringstream lines(json);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line);
    ASSERT_TRUE(j.contains("log") && j.contains("verdict") && j.contains("error_keys") && j.contains("errors") &&
                j.contains("warning_keys"))
        << line;
    if (j["log"].get<std::string>().find("bad.txt") != std::string::npos) {
      EXPECT_EQ(j["verdict"], "FAIL");
      EXPECT_EQ(j["error_keys"], nlohmann::json::array({"run_start"}));
    } else {
      EXPECT_EQ(j["verdict"], "PASS");
    }
    ++n;
  }
  EXPECT_EQ(n, 2);
}

TEST(CheckCli, UsageAndIoErrorsExitTwo) {
  int rc = 0;
  Podbench("check /no/such/log.txt", &rc);
  EXPECT_EQ(rc, 2);
  TempDir dir;
  WriteFile(dir / "good.txt", kGoodLog);
  std::string out = Podbench("check --rules-dir /no/such/dir " + (dir / "good.txt").string(), &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--rules-dir"));
  out = Podbench("check --ruleset 1.0.0 " + (dir / "good.txt").string(), &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("built-in rules are training 0.6.0"));
}

TEST(CheckCli, OfficialRulesOnFixtureFolderMatchOfficialVerdicts) {
  PODBENCH_REQUIRE_SHARED(shared);
  int rc = 0;
  std::string out = Podbench("check --format json --rules-dir " + (shared / "fixtures/mlperf-logging-rules").string() +
                                 " --ruleset 0.7.0 " + (shared / "fixtures/logs/v0.7").string(),
                             &rc);
  EXPECT_EQ(rc, 1);  // one v0.7 log fails in the official checker too
  std::istringstream lines(out);
  std::string line;
  int pass = 0, fail = 0;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line);
    (j["verdict"] == "PASS" ? pass : fail) += 1;
  }
  EXPECT_EQ(pass, 27);
  EXPECT_EQ(fail, 1);
}

TEST(ScoreCli, CsvAndJson) {
  TempDir dir;
  for (int i = 0; i < 10; ++i) {
    std::string log = kGoodLog;
    std::string t = std::to_string(10 + i) + ".0";
    log.replace(log.find("16.0"), 4, t);
    WriteFile(dir / "podbench/results/cpu/minigo" / ("result_" + std::to_string(i) + ".txt"), log);
  }
  int rc = 0;
  std::string csv = Podbench("score --format csv " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 0) << csv;
  // Runs of 10..19 s: drop 10 and 19, mean 14.5 s = 0.24 min.
  EXPECT_THAT(csv, HasSubstr("org,platform,benchmark,runs,converged_runs,score_minutes"));
  EXPECT_THAT(csv, HasSubstr("podbench,cpu,minigo,10,10,0.24,0.17,0.32,"));
  std::string json = Podbench("score --format json " + dir.path().string(), &rc);
  auto j = nlohmann::json::parse(json);
  EXPECT_NEAR(j["score_minutes"].get<double>(), 14.5 / 60, 1e-9);
  EXPECT_EQ(j["runs"].size(), 10u);
}

}  // namespace
}  // namespace podbench
