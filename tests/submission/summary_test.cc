// The results summary and compute_score's score: parity with what the
// official result_summarizer wrote on the parity trees (../shared), and
// verdicts, never crashes, on broken copies.
#include "submission/summary.h"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "submission/pynum.h"
#include "tests/testing/shared_dir.h"
#include "tests/submission/mlperf_logging_fixture.h"
#include "tests/testing/temp_dir.h"

namespace podbench::submission {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// Every file of a tree with its size and modification time: what must not change.
std::set<std::string> Snapshot(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string line = e.path().string();
    if (e.is_regular_file()) {
      line += " " + std::to_string(e.file_size()) + " " +
              std::to_string(e.last_write_time().time_since_epoch().count());
    }
    out.insert(line);
  }
  return out;
}

std::vector<nlohmann::json> Cases(const fs::path& shared, const std::string& tool) {
  std::vector<nlohmann::json> out;
  std::ifstream in(shared / "fixtures/parity/expected" / (tool + ".jsonl"));
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}

TEST(SummaryParity, EveryOfficialResultSummarizerCase) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture fixture(shared);
  const fs::path ml = fixture.path();
  auto cases = Cases(shared, "result_summarizer");
  ASSERT_EQ(cases.size(), 3u);
  for (const auto& c : cases) {
    const std::string tree = c["tree"];
    SCOPED_TRACE(tree);
    std::vector<std::string> argv = c["argv"];
    const fs::path root = shared / "fixtures/parity/trees" / tree;
    SummaryOptions o;
    o.usage = argv[4];
    o.ruleset = argv[5];
    o.mlperf_logging = ml;
    const auto before = Snapshot(root);
    auto s = Summarize({root}, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(Snapshot(root), before) << "the summary wrote into the tree";
    const auto& out = c["outputs"];
    EXPECT_EQ(SummaryCsv(s->strong), out["summary.csv"].get<std::string>());
    EXPECT_EQ(SummaryCsv(s->detailed), out["summary_detailed.csv"].get<std::string>());
    EXPECT_EQ(SummaryJson(s->strong), out["summary.json"].get<std::string>());
    EXPECT_EQ(SummaryJson(s->detailed), out["summary_detailed.json"].get<std::string>());
    EXPECT_EQ(s->failed ? "FAIL" : "PASS", c["verdict"].get<std::string>());
    std::vector<std::string> expected;
    for (const auto& l : Lines(c["stdout"])) {
      if (l != "Strong Scaling Scores:") expected.push_back(l);
    }
    std::vector<std::string> got;
    for (const auto& m : s->messages) got.push_back(Replace(m, root.generic_string(), "<TREE>"));
    EXPECT_EQ(got, expected);
  }
}

// compute_score crashed on every folder (it unpacks five values into four);
// podbench prints the score it meant to: the summarizer's time_to_train of
// that system and benchmark (scaling.json read, never deleted).
TEST(SummaryParity, ComputeScoreCasesScoreAsTheSummarizerRow) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture fixture(shared);
  const fs::path ml = fixture.path();
  std::map<std::string, std::string> detailed_csv;
  for (const auto& c : Cases(shared, "result_summarizer")) detailed_csv[c["tree"]] = c["outputs"]["summary_detailed.csv"];
  auto cases = Cases(shared, "compute_score");
  ASSERT_EQ(cases.size(), 10u);
  for (const auto& c : cases) {
    const std::string tree = c["tree"], target = c["target"];
    SCOPED_TRACE(tree + "/" + target);
    EXPECT_EQ(c["verdict"], "CRASH");
    std::vector<std::string> argv = c["argv"];
    SummaryOptions o;
    o.usage = argv[6];
    o.ruleset = argv[8];
    o.mlperf_logging = ml;
    const std::string system = argv[10];
    const fs::path root = shared / "fixtures/parity/trees" / tree;
    const auto before = Snapshot(root);
    auto r = ScoreBenchmarkFolder(root / target, system, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Snapshot(root), before);
    ASSERT_TRUE(r->score.has_value());
    // The row of this system in the official detailed summary.
    auto lines = Lines(detailed_csv[tree]);
    std::vector<std::string> head;
    std::stringstream hs(lines[0]);
    for (std::string f; std::getline(hs, f, ',');) head.push_back(f);
    const auto col = std::find(head.begin(), head.end(), r->benchmark + ":time_to_train") - head.begin();
    bool found = false;
    for (size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].find("/systems/" + system + ".json,") == std::string::npos) continue;
      std::vector<std::string> f;
      std::stringstream ls(lines[i]);
      for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
      EXPECT_EQ(PyRepr(*r->score), f[static_cast<size_t>(col)]);
      found = true;
    }
    EXPECT_TRUE(found) << system;
  }
}

void WriteText(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

TEST(Summary, BrokenCopiesGiveVerdictsNotCrashes) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::TempDir tmp;
  testing::MlperfLoggingFixture fixture(shared);
  const fs::path ml = fixture.path();
  const fs::path org = tmp / "Habana";
  fs::copy(shared / "fixtures/parity/trees/v1.0/Habana", org, fs::copy_options::recursive);
  SummaryOptions o;
  o.ruleset = "1.0.0";
  o.mlperf_logging = ml;
  // A log that stops without run_stop, an unknown benchmark folder, a system
  // file that is not JSON, and a second system with no description.
  const fs::path bert = org / "results/SYS-420GH-TNGR/bert";
  std::string first;
  for (const auto& e : fs::directory_iterator(bert)) {
    if (e.path().filename().string().rfind("result_", 0) == 0 && (first.empty() || e.path().string() < first)) first = e.path().string();
  }
  ASSERT_FALSE(first.empty());
  {
    std::ifstream in(first);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    WriteText(first, text.substr(0, text.find("run_stop")));
  }
  fs::create_directories(org / "results/SYS-420GH-TNGR/not_a_benchmark");
  fs::create_directories(org / "results/NO-DESC/resnet");
  auto s = Summarize({org}, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->failed);
  auto has = [&](const std::string& needle) {
    for (const auto& m : s->messages) {
      if (m.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("Compliance check failed in " + fs::path(first).generic_string()));
  EXPECT_TRUE(has("NOTICE: Dropping non-converged run(s) for HabanaLabs SYS-420GH-TNGR/bert"));
  EXPECT_TRUE(has("not_a_benchmark is not a training 1.0.0 benchmark"));
  EXPECT_TRUE(has("ERROR: Missing " + (org / "systems/NO-DESC.json").generic_string()));
  ASSERT_EQ(s->strong.rows.size(), 1u);

  WriteText(org / "systems/SYS-420GH-TNGR.json", "{not json");
  s = Summarize({org}, o);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->failed);
  EXPECT_TRUE(has("ERROR: Could not decode JSON struct in"));
  EXPECT_TRUE(s->strong.rows.empty());
  EXPECT_EQ(SummaryJson(s->strong), "[]");

  // No results folder at all: the official tool crashes; podbench says so.
  fs::remove_all(org / "results");
  s = Summarize({org}, o);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->failed);
  EXPECT_TRUE(has("no results folder"));
}

TEST(Summary, UnknownRulesetOrMissingRulesAreErrors) {
  testing::TempDir tmp;
  SummaryOptions o;
  o.ruleset = "9.9.9";
  o.mlperf_logging = tmp.path();
  EXPECT_FALSE(Summarize({tmp.path()}, o).ok());
  o.ruleset = "1.0.0";
  auto s = Summarize({tmp.path()}, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("compliance_checker"), std::string::npos);
}

}  // namespace
}  // namespace podbench::submission
