// The results summary and compute_score's score: parity with what the
// official result_summarizer wrote on the parity trees (../shared), and
// verdicts, never crashes, on broken copies.
#include "submission/summary.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <variant>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "submission/pynum.h"
#include "tests/testing/shared_dir.h"
#include "tests/submission/mlperf_logging_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/submission/json_lines.h"

namespace podbench::submission {
namespace {

namespace fs = std::filesystem;

using testing::Lines;

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
  return testing::ReadJsonLines(shared / "fixtures/parity/expected" / (tool + ".jsonl"));
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

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char kWeakCosmoflow[] = "results/perlmutter_10x128x4_ngc21.09_mxnet/weak/cosmoflow";
const char kPowerResnet[] = "results/1xSMC-H100-SXM-80GB/resnet";

// The breaks of data/record_summaries.py's cases, on a copy at `root`.
void BreakSummaryTree(const std::string& name, const fs::path& root) {
  if (name == "hpc_weak_too_few_models") fs::remove(root / kWeakCosmoflow / "result_10.txt");
  if (name == "training_power_with_switch_logs") {
    for (const auto& run : fs::directory_iterator(root / kPowerResnet / "power")) {
      WriteText(run.path() / "sw_1.txt",
                ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", \"key\": "
                "\"conversion_eff\", \"value\": 0.9, \"metadata\": \"\"}\n"
                ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2, \"event_type\": \"POINT_IN_TIME\", \"key\": "
                "\"interconnect_power_est\", \"value\": 150, \"metadata\": \"\"}\n");
    }
  }
  if (name == "training_power_one_aborted_run") {
    const fs::path log = root / kPowerResnet / "result_5797-240517143743970275917_1.txt";
    const std::string text = ReadText(log);
    const size_t key = text.find("\"key\": \"run_stop\"");
    ASSERT_NE(key, std::string::npos);
    WriteText(log, text.substr(0, text.rfind('\n', key) + 1));
  }
}

// What the official result_summarizer wrote on trimmed subsets of real trees
// (data/summary_trees; recorded by data/record_summaries.py): hpc v3.0 strong
// and weak scaling (HPE+LBNL) and training v4.0 power (Sustainable Metal
// Cloud's resnet with power logs), broken copies of both, and a copy with
// switch power logs (sw_*.txt, made up: no real tree here has them). podbench's
// tables, messages and verdicts equal them. The official summary.csv holds the
// strong table and then the weak one with its own header; its summary.json is
// the weak table when there is one (written last), else the strong one.
TEST(SummaryParity, HpcWeakScalingAndTrainingPower) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture fixture(shared);
  const fs::path data = PODBENCH_SUBMISSION_TEST_DATA;
  int cases = 0;
  for (const auto& c : testing::ReadJsonLines(data / "official_summaries.jsonl")) {
    const std::string name = c["case"], tree = c["tree"];
    SCOPED_TRACE(name);
    ++cases;
    testing::TempDir tmp;
    const fs::path root = tmp / tree;
    fs::copy(data / "summary_trees" / tree, root, fs::copy_options::recursive);
    BreakSummaryTree(name, root);
    SummaryOptions o;
    o.usage = c["usage"];
    o.ruleset = c["ruleset"];
    o.mlperf_logging = fixture.path();
    auto s = Summarize({root}, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    const auto& out = c["outputs"];
    const bool weak = !s->weak.rows.empty();
    EXPECT_EQ(weak, o.usage == "hpc");
    EXPECT_EQ(SummaryCsv(s->strong) + (weak ? SummaryCsv(s->weak) : ""), out["summary.csv"].get<std::string>());
    EXPECT_EQ(SummaryJson(weak ? s->weak : s->strong), out["summary.json"].get<std::string>());
    EXPECT_EQ(SummaryCsv(s->detailed), out["summary_detailed.csv"].get<std::string>());
    EXPECT_EQ(SummaryJson(s->detailed), out["summary_detailed.json"].get<std::string>());
    EXPECT_EQ(s->failed ? "FAIL" : "PASS", c["verdict"].get<std::string>());
    std::vector<std::string> expected;
    for (const auto& line : Lines(c["stdout"])) {
      if (line != "Strong Scaling Scores:" && line != "Weak Scaling Scores:") expected.push_back(line);
    }
    std::vector<std::string> got;
    for (const auto& m : s->messages) got.push_back(Replace(m, root.generic_string(), "<TREE>"));
    EXPECT_EQ(got, expected);
  }
  EXPECT_EQ(cases, 5);
}

// Where the official summarizer crashes on power logs (an AssertionError for a
// run without node_*.txt, a ValueError for a log without
// power_measurement_start), podbench prints an ERROR naming the file and
// leaves the Energy cell empty; the time to train is still scored.
TEST(Summary, BrokenPowerLogsLeaveEnergyEmptyWithAnError) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture fixture(shared);
  const fs::path data = PODBENCH_SUBMISSION_TEST_DATA;
  testing::TempDir tmp;
  const fs::path root = tmp / "smc-ac-power";
  fs::copy(data / "summary_trees/smc-ac-power", root, fs::copy_options::recursive);
  SummaryOptions o;
  o.ruleset = "4.0.0";
  o.mlperf_logging = fixture.path();
  auto energy_cell = [](const Summary& s) {
    const auto col = std::find(s.detailed.columns.begin(), s.detailed.columns.end(), "resnet:Energy") -
                     s.detailed.columns.begin();
    return s.detailed.rows.at(0).at(static_cast<size_t>(col));
  };
  auto has = [](const Summary& s, const std::string& needle) {
    for (const auto& m : s.messages) {
      if (m.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  const fs::path run = root / kPowerResnet / "power/result_5797-240517143743970275917_1";
  const std::string node = ReadText(run / "node_1.txt");
  WriteText(run / "node_1.txt", Replace(node, "power_measurement_start", "power_measurement_begin"));
  auto s = Summarize({root}, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->failed);
  EXPECT_TRUE(has(*s, (run / "node_1.txt").generic_string() + ": Power start timestamp not found"));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(energy_cell(*s)));
  EXPECT_FALSE(std::holds_alternative<std::monostate>(s->strong.rows.at(0).at(15)));  // resnet's time to train

  fs::remove_all(run);
  s = Summarize({root}, o);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(has(*s, run.generic_string() + ": no node_*.txt power log for result_5797-240517143743970275917_1.txt"));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(energy_cell(*s)));

  // Intact, the cell holds the official number (the parity case above).
  fs::remove_all(root);
  fs::copy(data / "summary_trees/smc-ac-power", root, fs::copy_options::recursive);
  s = Summarize({root}, o);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->failed);
  EXPECT_EQ(std::get<double>(energy_cell(*s)), 5620140.6572646815);
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
  // Python's json refuses a byte-order mark, so the official tool does too.
  WriteText(org / "systems/SYS-420GH-TNGR.json", "\xEF\xBB\xBF{\"division\": \"closed\"}");
  s = Summarize({org}, o);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(has("ERROR: Could not decode JSON struct in"));
  EXPECT_TRUE(s->strong.rows.empty());

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
