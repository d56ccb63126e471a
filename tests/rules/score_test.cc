// podbench score reproduces every Google v0.6 score in the reference table.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "rules/score.h"
#include "tests/testing/shared_dir.h"

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
  auto timed = ScoreDirs({shared / "fixtures/logs/v0.6/Google"}, AbortPolicy::kTimed);
  ASSERT_TRUE(timed.ok()) << timed.status().ToString();
  ASSERT_EQ(timed->size(), 26u);
  for (const auto& s : *timed) {
    auto it = published.find({s.benchmark, s.platform});
    ASSERT_NE(it, published.end()) << s.benchmark << " " << s.platform;
    ASSERT_TRUE(s.score_minutes.has_value()) << s.benchmark << " " << s.platform;
    EXPECT_LE(std::fabs(*s.score_minutes - it->second), 0.005 + 1e-9)
        << s.benchmark << " " << s.platform << ": " << *s.score_minutes << " vs published " << it->second;
    EXPECT_EQ(s.org, "Google");
  }
}

TEST(Score, AbortedRunCountsAsSlowestByDefault) {
  PODBENCH_REQUIRE_SHARED(shared);
  auto scores = ScoreDirs({shared / "fixtures/logs/v0.6/Google/results/tpu-v3-1024/resnet/../.."});
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  bool seen = false;
  for (const auto& s : *scores) {
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
  EXPECT_FALSE(OlympicMean({run(1), run(2)}).has_value());
}

}  // namespace
}  // namespace podbench::rules
