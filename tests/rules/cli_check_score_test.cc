// End-to-end: `podbench check` and `podbench score` as users run them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Podbench;
using testing::PodbenchStdout;
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
  // The log line first (file:line, 1-based), then the official wording (0-based line index).
  EXPECT_THAT(out, HasSubstr("ERROR " + (dir / "bad.txt").string() + ":14: [run_start] CHECK for 'run_start' failed in line 13:"));
  EXPECT_THAT(out, HasSubstr("bad.txt:14: :::MLL 20.0 run_start"));  // file:line of the failing log line
  EXPECT_THAT(out, HasSubstr("not s['run_started']"));                 // the failing expression
  EXPECT_THAT(out, HasSubstr("Failed checks for eval_accuracy"));
  EXPECT_THAT(out, HasSubstr("FAIL  " + (dir / "bad.txt").string()));
  EXPECT_THAT(out, HasSubstr("PASS  " + (dir / "sub/good.txt").string()));
  EXPECT_THAT(out, HasSubstr("1 of 2 logs pass"));

  // --format json: one document, every log and a summary.
  std::string json = PodbenchStdout("check --format json " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 1);
  const auto doc = nlohmann::json::parse(json);  // throws on a second document
  ASSERT_TRUE(doc.is_object()) << json;
  ASSERT_EQ(doc["logs"].size(), 2u) << json;
  for (const auto& j : doc["logs"]) {
    ASSERT_TRUE(j.contains("log") && j.contains("verdict") && j.contains("error_keys") && j.contains("errors") &&
                j.contains("warning_keys"))
        << j.dump();
    if (j["log"].get<std::string>().find("bad.txt") != std::string::npos) {
      EXPECT_EQ(j["verdict"], "FAIL");
      EXPECT_EQ(j["error_keys"], nlohmann::json::array({"run_start"}));
      // error_lines runs beside errors: run_start's failure is at line 14; the
      // never-reached target comes from no single line.
      ASSERT_EQ(j["error_lines"].size(), j["errors"].size()) << j.dump();
      EXPECT_EQ(j["error_lines"][0], 14) << j.dump();
      EXPECT_TRUE(j["error_lines"].back().is_null()) << j.dump();
    } else {
      EXPECT_EQ(j["verdict"], "PASS");
    }
  }
  EXPECT_EQ(doc["summary"], (nlohmann::json{{"logs", 2}, {"pass", 1}, {"fail", 1}, {"unchecked", 0}}));

  // --format jsonl: JSON Lines, one log a line, the same objects.
  std::string jsonl = PodbenchStdout("check --format jsonl " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 1);
  std::istringstream lines(jsonl);
  std::string line;
  std::vector<nlohmann::json> per_line;
  while (std::getline(lines, line)) per_line.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(per_line.size(), 2u) << jsonl;
  EXPECT_EQ(per_line[0], doc["logs"][0]);
  EXPECT_EQ(per_line[1], doc["logs"][1]);
}

TEST(CheckCli, JsonListsAnUnreadableLogAndExitsTwo) {
  TempDir dir;
  WriteFile(dir / "good.txt", kGoodLog);
  WriteFile(dir / "locked.txt", kGoodLog);
  std::filesystem::permissions(dir / "locked.txt", std::filesystem::perms::none);
  if (std::ifstream(dir / "locked.txt").good()) GTEST_SKIP() << "running as a user who reads any file (root)";
  int rc = 0;
  std::string err;
  std::string json = PodbenchStdout("check --format json " + dir.path().string(), &rc, &err);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(err, HasSubstr("locked.txt"));
  const auto doc = nlohmann::json::parse(json);
  EXPECT_EQ(doc["summary"], (nlohmann::json{{"logs", 2}, {"pass", 1}, {"fail", 0}, {"unchecked", 1}}));
  bool seen = false;
  for (const auto& j : doc["logs"]) {
    if (j["log"].get<std::string>().find("locked.txt") == std::string::npos) continue;
    seen = true;
    EXPECT_EQ(j["verdict"], "ERROR");
    EXPECT_EQ(j["errors"].size(), 1u);
  }
  EXPECT_TRUE(seen) << json;
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
  std::string out = PodbenchStdout("check --format json --rules-dir " + (shared / "fixtures/mlperf-logging-rules").string() +
                                 " --ruleset 0.7.0 " + (shared / "fixtures/logs/v0.7").string(),
                             &rc);
  EXPECT_EQ(rc, 1);  // one v0.7 log fails in the official checker too
  const auto doc = nlohmann::json::parse(out);
  int pass = 0, fail = 0;
  for (const auto& j : doc["logs"]) (j["verdict"] == "PASS" ? pass : fail) += 1;
  EXPECT_EQ(pass, 27);
  EXPECT_EQ(fail, 1);
  EXPECT_EQ(doc["summary"]["pass"], 27);
  EXPECT_EQ(doc["summary"]["fail"], 1);
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
  std::string json = PodbenchStdout("score --format json " + dir.path().string(), &rc);
  const auto doc = nlohmann::json::parse(json);  // one document
  ASSERT_EQ(doc["scores"].size(), 1u) << json;
  const auto& j = doc["scores"][0];
  EXPECT_NEAR(j["score_minutes"].get<double>(), 14.5 / 60, 1e-9);
  EXPECT_EQ(j["runs"].size(), 10u);
  EXPECT_EQ(doc["skipped_files"], 0);
}

// Slices in the order of their core counts, not as text (tpu-v3-1024 is
// not before tpu-v3-128), in every format; a single run says "1 run".
TEST(ScoreCli, SlicesInNumericOrder) {
  TempDir dir;
  for (const char* slice : {"tpu-v3-1024", "tpu-v3-128", "tpu-v3-8", "tpu-v3-32"}) {
    std::string log = kGoodLog;
    log.replace(log.find("\"cpu\""), 5, std::string("\"") + slice + "\"");
    WriteFile(dir / slice / "result_0.txt", log);
  }
  WriteFile(dir / "notes.txt", "not a log\n");
  int rc = 0;
  std::string text = PodbenchStdout("score " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 0) << text;
  const size_t p8 = text.find("tpu-v3-8 "), p32 = text.find("tpu-v3-32 "), p128 = text.find("tpu-v3-128 "),
               p1024 = text.find("tpu-v3-1024 ");
  ASSERT_NE(p8, std::string::npos) << text;
  ASSERT_NE(p1024, std::string::npos) << text;
  EXPECT_LT(p8, p32) << text;
  EXPECT_LT(p32, p128) << text;
  EXPECT_LT(p128, p1024) << text;
  EXPECT_THAT(text, HasSubstr("1 run (v0.6 requires 10)"));
  EXPECT_THAT(text, Not(HasSubstr("1 runs")));
  EXPECT_THAT(text, HasSubstr("(1 file without :::MLL or :::MLLOG lines skipped)"));

  const auto doc = nlohmann::json::parse(PodbenchStdout("score --format json " + dir.path().string(), &rc));
  std::vector<std::string> order;
  for (const auto& s : doc["scores"]) order.push_back(s["platform"]);
  EXPECT_EQ(order, (std::vector<std::string>{"tpu-v3-8", "tpu-v3-32", "tpu-v3-128", "tpu-v3-1024"}));
}

}  // namespace
}  // namespace podbench
