// podbench score reproduces every Google v0.6 score in the reference table.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "rules/score.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::rules {
namespace {

// (benchmark, platform) -> published score, from google-v0.6-submission.md.
std::map<std::pair<std::string, std::string>, double> PublishedScores(const std::filesystem::path& shared) {
  std::map<std::pair<std::string, std::string>, double> out;
  std::ifstream in(shared / "reference/google-v0.6-submission.md");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0 || line.find("| tpu-v3-") == std::string::npos) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line.substr(1));
    std::string c;
    while (std::getline(ss, c, '|')) {
      size_t b = c.find_first_not_of(' '), e = c.find_last_not_of(' ');
      cols.push_back(b == std::string::npos ? "" : c.substr(b, e - b + 1));
    }
    if (cols.size() < 5) continue;
    out[{cols[0], cols[1]}] = std::stod(cols[4]);  // "2.27 (one run aborted ...)" -> 2.27
  }
  return out;
}

TEST(Score, ReproducesEveryGoogleScore) {
  PODBENCH_REQUIRE_SHARED(shared);
  auto published = PublishedScores(shared);
  ASSERT_EQ(published.size(), 26u);
  auto timed = ScorePaths({shared / "fixtures/logs/v0.6/Google"}, AbortPolicy::kTimed);
  ASSERT_TRUE(timed.ok()) << timed.status().ToString();
  ASSERT_EQ(timed->scores.size(), 26u);
  for (const auto& s : timed->scores) {
    auto it = published.find({s.benchmark, s.platform});
    ASSERT_NE(it, published.end()) << s.benchmark << " " << s.platform;
    ASSERT_TRUE(s.score_minutes.has_value()) << s.benchmark << " " << s.platform;
    EXPECT_LE(std::fabs(*s.score_minutes - it->second), 0.005 + 1e-9)
        << s.benchmark << " " << s.platform << ": " << *s.score_minutes << " vs published " << it->second;
    EXPECT_EQ(s.org, "google");  // the logs' own submission_org
  }
}

TEST(Score, AbortedRunCountsAsSlowestByDefault) {
  PODBENCH_REQUIRE_SHARED(shared);
  auto scores = ScorePaths({shared / "fixtures/logs/v0.6/Google/results/tpu-v3-1024/resnet/../.."});
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  bool seen = false;
  for (const auto& s : scores->scores) {
    if (s.benchmark != "resnet" || s.platform != "tpu-v3-1024") continue;
    seen = true;
    // The published 2.27 timed the aborted run; under the rule text it is
    // dropped as the slowest: mean(2.275, 2.278, 2.359) = 2.30.
    ASSERT_TRUE(s.score_minutes.has_value());
    EXPECT_NEAR(*s.score_minutes, 2.304, 0.005);
    int aborted = 0;
    for (const auto& r : s.runs) aborted += !r.converged;
    EXPECT_EQ(aborted, 1);
  }
  EXPECT_TRUE(seen);
}

TEST(Score, OlympicMeanRules) {
  auto run = [](double m, bool ok = true) {
    RunTime r;
    r.converged = ok;
    r.minutes = m;
    return r;
  };
  EXPECT_DOUBLE_EQ(*OlympicMean({run(1), run(2), run(3), run(4), run(10)}), 3.0);
  EXPECT_DOUBLE_EQ(*OlympicMean({run(1), run(2), run(3), run(4), run(0.5, false)}), 3.0);
  EXPECT_FALSE(OlympicMean({run(1), run(2, false), run(3, false)}).has_value());
  EXPECT_DOUBLE_EQ(*OlympicMean({run(1), run(2)}), 1.5);  // fewer than 3: the plain mean
  EXPECT_FALSE(OlympicMean({run(1), run(2, false)}).has_value());
  EXPECT_FALSE(OlympicMean({}).has_value());
}

// A :::MLL log of one run of `seconds`, with the given submission keys
// (an empty one left out).
std::string Log(const std::string& org, const std::string& platform, const std::string& benchmark,
                double seconds, const std::string& status = "success") {
  std::string log;
  auto key = [&](const char* k, const std::string& v) {
    if (!v.empty()) log += ":::MLL 1.0 " + std::string(k) + ": {\"value\": \"" + v + "\", \"metadata\": {}}\n";
  };
  key("submission_org", org);
  key("submission_platform", platform);
  key("submission_benchmark", benchmark);
  log += "some other line\n:::MLL 10.0 run_start: {\"value\": null, \"metadata\": {}}\n";
  log += ":::MLL " + std::to_string(10.0 + seconds) + " run_stop: {\"value\": null, \"metadata\": {\"status\": \"" +
         status + "\"}}\n";
  return log;
}

void Write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(ScorePaths, GroupsFilesOfAnyLayoutByTheirOwnSubmissionKeys) {
  testing::TempDir dir;
  // One folder, flat, two platforms mixed; names need not be result_N.txt.
  for (int i = 0; i < 5; ++i) {
    Write(dir / "flat" / ("resnet-a_" + std::to_string(i) + ".log"), Log("podbench", "tpu-v3-32", "resnet", 60.0 * (i + 1)));
    Write(dir / "flat" / ("resnet-b_" + std::to_string(i) + ".log"), Log("podbench", "tpu-v3-128", "resnet", 30.0));
  }
  Write(dir / "flat" / "notes.txt", "not a log\n");
  auto r = ScorePaths({dir / "flat"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->scores.size(), 2u);
  EXPECT_EQ(r->skipped_files, 1);
  // Slices by core count: tpu-v3-32 before tpu-v3-128.
  EXPECT_EQ(r->scores[0].platform, "tpu-v3-32");
  EXPECT_EQ(r->scores[0].org, "podbench");
  EXPECT_EQ(r->scores[0].runs.size(), 5u);
  EXPECT_DOUBLE_EQ(*r->scores[0].score_minutes, 3.0);  // drop 1 and 5 min: mean(2, 3, 4)
  EXPECT_EQ(r->scores[1].platform, "tpu-v3-128");
  EXPECT_DOUBLE_EQ(*r->scores[1].score_minutes, 0.5);

  // Files given one by one score as their folder does; a lone run is its own
  // plain mean, and says so.
  auto one = ScorePaths({dir / "flat/resnet-a_0.log"});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->scores.size(), 1u);
  EXPECT_DOUBLE_EQ(*one->scores[0].score_minutes, 1.0);
  EXPECT_NE(one->scores[0].note.find("plain mean"), std::string::npos);

  // A log without submission keys takes them from a submission layout.
  Write(dir / "sub/acme/results/box/ssd/result_0.txt", Log("", "", "", 120));
  auto laid = ScorePaths({dir / "sub"});
  ASSERT_TRUE(laid.ok()) << laid.status().ToString();
  ASSERT_EQ(laid->scores.size(), 1u);
  EXPECT_EQ(laid->scores[0].org, "acme");
  EXPECT_EQ(laid->scores[0].platform, "box");
  EXPECT_EQ(laid->scores[0].benchmark, "ssd");
}

// Intel's v0.6 MiniGo lines (str(dict) metadata) as JSON: single quotes
// double-quoted, a double quote inside escaped, Python's words as JSON's
// outside strings only; a MiniGo log written so scores to its eval_result.
TEST(PythonLiteralToJson, ReadsPythonDictsAsJson) {
  EXPECT_EQ(PythonLiteralToJson(R"({"value": null, "metadata": {'lineno': 52, 'iteration': 14, 'timestamp': 746.014}})"),
            R"({"value": null, "metadata": {"lineno": 52, "iteration": 14, "timestamp": 746.014}})");
  EXPECT_EQ(PythonLiteralToJson(R"({'a': True, 'b': None, 'c': False, 'd': 'None "x" it\'s', 'Truer': 1})"),
            R"({"a": true, "b": null, "c": false, "d": "None \"x\" it's", "Truer": 1})");
  testing::TempDir dir;
  const auto log = dir / "intel.txt";
  Write(log,
        ":::MLL 100.0 submission_benchmark: {\"value\": \"minigo\", \"metadata\": {'lineno': 1}}\n"
        ":::MLL 100.5 run_start: {\"value\": null, \"metadata\": {'lineno': 615, 'file': 'x.py'}}\n"
        ":::MLL 15608[2019-06-18 10:02:47] iteration time 0: 56.971 seconds\n"
        ":::MLL 900.0 eval_result: {\"value\": null, \"metadata\": {'iteration': 14, 'timestamp': 746.014}}\n");
  auto r = ScoreRun(log, "minigo");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->converged) << r->note;
  EXPECT_NEAR(r->minutes * 60, 746.014, 1e-9);
  EXPECT_NE(r->note.find("3 line(s) with Python-dict metadata"), std::string::npos) << r->note;
  EXPECT_NE(r->note.find("1 unparsable line(s) skipped"), std::string::npos) << r->note;
}

TEST(ScorePaths, NoLogsIsAnError) {
  testing::TempDir dir;
  Write(dir / "empty/readme.txt", "nothing here\n");
  auto r = ScorePaths({dir / "empty"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_NE(r.status().message().find("no MLPerf logs"), std::string::npos) << r.status().message();
  auto f = ScorePaths({dir / "empty/readme.txt"});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("not an MLPerf log"), std::string::npos) << f.status().message();
  EXPECT_FALSE(ScorePaths({dir / "missing"}).ok());
}

}  // namespace
}  // namespace podbench::rules
