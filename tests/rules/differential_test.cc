// Differential test: podbench's checker against the official mlperf_logging
// checker's recorded verdicts on every fixture log (CRASH counts as FAIL).
// Verdict, error-key set and warning-key set must agree.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "rules/checker.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::rules {
namespace {

struct Expected {
  std::string verdict, ruleset;
  std::vector<std::string> error_keys, warning_keys;
};

std::map<std::string, Expected> LoadExpected(const std::filesystem::path& shared) {
  std::map<std::string, Expected> out;
  std::ifstream in(shared / "fixtures/expected/official-verdicts.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    Expected e;
    e.verdict = j["verdict"];
    e.ruleset = j["ruleset"];
    e.error_keys = j["error_keys"].get<std::vector<std::string>>();
    e.warning_keys = j["warning_keys"].get<std::vector<std::string>>();
    std::sort(e.error_keys.begin(), e.error_keys.end());
    std::sort(e.warning_keys.begin(), e.warning_keys.end());
    out[j["log"]] = e;
  }
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

TEST(Differential, EveryFixtureLogAgreesWithTheOfficialChecker) {
  PODBENCH_REQUIRE_SHARED(shared);
  auto expected = LoadExpected(shared);
  ASSERT_EQ(expected.size(), 287u);
  auto rules = std::make_shared<RuleSet>(DirectorySource(shared / "fixtures/mlperf-logging-rules"));
  std::map<std::string, std::unique_ptr<Checker>> checkers;
  int agree = 0, crashes = 0;
  for (const auto& [log, e] : expected) {
    auto& checker = checkers[e.ruleset];
    if (!checker) {
      CheckOptions opt;
      opt.config = DefaultConfig("training", e.ruleset);
      opt.format = FormatForRuleset(e.ruleset);
      checker = std::make_unique<Checker>(rules, opt);
    }
    // The log's folder version names its ruleset (v0.6 -> 0.6.0, ...).
    std::string folder_version = log.substr(1, log.find('/') - 1) + ".0";
    EXPECT_EQ(folder_version, e.ruleset) << log;
    auto r = checker->CheckFile(shared / "fixtures/logs" / log);
    ASSERT_TRUE(r.ok()) << log << ": " << r.status().ToString();
    std::string want = e.verdict == "CRASH" ? "FAIL" : e.verdict;
    crashes += e.verdict == "CRASH";
    bool same = want == (r->pass ? "PASS" : "FAIL") && e.error_keys == r->error_keys && e.warning_keys == r->warning_keys;
    EXPECT_TRUE(same) << log << "\n  official: " << e.verdict << " errors[" << Join(e.error_keys) << "] warnings["
                      << Join(e.warning_keys) << "]\n  podbench: " << (r->pass ? "PASS" : "FAIL") << " errors["
                      << Join(r->error_keys) << "] warnings[" << Join(r->warning_keys) << "]";
    agree += same;
  }
  EXPECT_EQ(agree, 287);
  EXPECT_EQ(crashes, 15);  // the Google Mask R-CNN logs: podbench reports FAIL with a clear error instead
}

TEST(Differential, MissingEnqueuedFileIsAClearFailNotACrash) {
  PODBENCH_REQUIRE_SHARED(shared);
  auto rules = std::make_shared<RuleSet>(DirectorySource(shared / "fixtures/mlperf-logging-rules"));
  CheckOptions opt;
  opt.config = "training_0.6.0/common.yaml";
  Checker checker(rules, opt);
  auto r = checker.CheckFile(shared / "fixtures/logs/v0.6/Google/results/tpu-v3-128/mask/result_0.txt");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->pass);
  bool found = false;
  for (const auto& m : r->errors) found |= m.text.find("Could not find config file") != std::string::npos &&
                                           m.text.find("training_0.6.0/mask.yaml") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(Differential, EveryOfficialRuleFileLoads) {
  PODBENCH_REQUIRE_SHARED(shared);
  auto root = shared / "fixtures/mlperf-logging-rules";
  RuleSet rules(DirectorySource(root));
  int loaded = 0, failed = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".yaml") continue;
    std::string rel = std::filesystem::relative(entry.path(), root).generic_string();
    auto f = rules.Load(rel);
    if (f.ok()) {
      ++loaded;
    } else {
      ++failed;
      // The one file that is not valid YAML in the official package.
      EXPECT_EQ(rel, "training_0.7.0_warn/bert.yaml") << f.status().ToString();
      EXPECT_NE(f.status().message().find("training_0.7.0_warn/bert.yaml:"), std::string::npos);
    }
  }
  EXPECT_EQ(loaded, 326);
  EXPECT_EQ(failed, 1);
}

}  // namespace
}  // namespace podbench::rules
