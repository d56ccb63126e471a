// Machine-readable output: every subcommand that takes --format json prints
// exactly one JSON document on standard output (progress, notes and warnings
// go to standard error). The subcommands come from `podbench --help`, so a new
// one with --format json and no case here fails the test.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The subcommands `podbench --help` lists, in its order.
std::vector<std::string> Subcommands() {
  int rc = 0;
  const std::string help = PodbenchStdout("--help", &rc);
  EXPECT_EQ(rc, 0) << help;
  std::vector<std::string> names;
  std::istringstream in(help);
  bool listing = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
      listing = true;
      continue;
    }
    if (!listing) continue;
    if (line.rfind("  ", 0) != 0) break;
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

// Whether `podbench SUB --help` offers --format json.
bool TakesJson(const std::string& sub) {
  int rc = 0;
  const std::string help = PodbenchStdout(sub + " --help", &rc);
  EXPECT_EQ(rc, 0) << sub;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    if (line.find("--format") != std::string::npos && line.find("json") != std::string::npos) return true;
  }
  return false;
}

// One invocation with --format json and the document it must print.
struct JsonCase {
  std::string args = {};
  bool object = true;               // else an array
  std::vector<std::string> keys = {};  // an object's keys that must be there
  std::vector<int> exit_codes = {0};
};

// Runs `c` and checks stdout is one JSON document of the expected shape.
void ExpectOneDocument(const std::string& sub, const JsonCase& c) {
  SCOPED_TRACE("podbench " + sub + " " + c.args);
  int rc = 0;
  std::string err;
  const std::string out = PodbenchStdout(sub + " " + c.args, &rc, &err);
  EXPECT_THAT(c.exit_codes, ::testing::Contains(rc)) << err;
  nlohmann::json doc;
  // parse() takes the whole text: a second document or any other trailing
  // text throws.
  try {
    doc = nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << "stdout is not one JSON document (" << e.what() << "):\n" << out << "\nstderr:\n" << err;
    return;
  }
  EXPECT_THAT(out, Not(HasSubstr("\r")));
  if (!c.object) {
    EXPECT_TRUE(doc.is_array()) << out;
    return;
  }
  ASSERT_TRUE(doc.is_object()) << out;
  for (const std::string& k : c.keys) EXPECT_TRUE(doc.contains(k)) << "no \"" << k << "\" in " << out;
}

TEST(JsonOutputTest, EverySubcommandPrintsOneJsonDocument) {
  TempDir dir;
  const std::string db = (dir / "r.db").string(), logs = (dir / "logs").string();
  std::filesystem::create_directories(dir / "logs");
  // A scratch database: two labelled toy sets (functional) and a projected
  // resnet run, their logs in logs/.
  const std::string toy_base =
      "toy --runs 2 --seed 3 --label base --db " + db + " --log " + logs + "/toy.log --format json";
  const std::string projected = "resnet --mode projected --slice tpu-v3-32 --preset google-v0.6 --runs 1 --seed 1 --db " +
                                db + " --log " + logs + "/resnet.log --format json";
  const std::string out_dir = (dir / "reproduce").string();

  // Made first (and checked as `run`'s cases): what the other cases read.
  for (const std::string& args : {toy_base, "toy --runs 2 --seed 5 --label cand --db " + db + " --format json",
                                  projected}) {
    ExpectOneDocument("run", {args, true, {"workload", "runs", "score_min"}});
  }

  // A submission tree and an mlperf_logging folder whose rules check nothing.
  const std::filesystem::path tree = dir / "submission", ml = dir / "mlperf_logging";
  std::filesystem::create_directories(ml / "compliance_checker/training_1.0.0");
  std::filesystem::create_directories(ml / "rcp_checker/training_1.0.0");
  // (one record: an empty rule file is an error, as for the official checker)
  std::ofstream(ml / "compliance_checker/training_1.0.0/common.yaml") << "- BEGIN:\n    CODE: \"nothing = 0\"\n";
  std::filesystem::create_directories(tree / "systems");
  std::filesystem::create_directories(tree / "results/sys/bert");
  std::ofstream(tree / "systems/sys.json") << R"({"division": "open", "system_name": "sys"})";
  std::filesystem::copy_file(logs + "/toy_0.log", tree / "results/sys/bert/result_0.txt");

  std::map<std::string, std::vector<JsonCase>> cases = {
      {"package", {{tree.string() + " --ruleset 1.0.0 --format json --mlperf-logging " + ml.string(), true,
                    {"verdict", "errors", "warnings", "systems", "benchmarks", "summary"}, {1}}}},
      {"sysdesc", {{(tree / "systems/sys.json").string() + " --ruleset 1.0.0 --format json", true, {"files"}, {1}}}},
      {"repo", {{tree.string() + " --format json", true, {"verdict", "git_unfriendly_names"}}}},
      {"rcp", {{(tree / "results/sys/bert").string() + " --ruleset 1.0.0 --format json --mlperf-logging " + ml.string(),
                true, {"verdict", "message"}, {0, 1}}}},
      {"summarize", {{tree.string() + " --ruleset 1.0.0 --format json --mlperf-logging " + ml.string(), true,
                      {"verdict", "messages", "summary"}, {0, 1}}}},
      {"run", {{"toy --runs 1 --seed 7 --db " + (dir / "other.db").string() + " --format json", true, {"runs"}}}},
      {"check", {{"--format json " + logs, true, {"logs", "summary"}, {0, 1}}}},
      {"score", {{"--format json " + logs, true, {"scores", "skipped_files"}}}},
      {"runs", {{"--format json --db " + db, false}}},
      {"show", {{"1 --format json --db " + db, true, {"id", "evals", "step_breakdown"}}}},
      {"scaling", {{"resnet --format json --db " + db, true, {"rows", "other_rows", "rows_are"}}}},
      {"report", {{"--format json --db " + db, false}}},
      {"compare", {{"label:base label:cand --only runs --format json --db " + db, true, {"metrics", "regression", "verdict", "pass"}, {0, 1}}}},
      {"model", {{"--format json", false}, {"resnet --slice tpu-v3-32 --format json", true, {"train", "eval", "layout"}}}},
      {"topology", {{"--slice tpu-v3-32 --format json", true, {"slice", "table"}}}},
      {"calibrate", {{"--format json", true, {"values", "points", "rows"}}}},
      {"reproduce",
       {{"--workloads resnet --slices tpu-v3-32 --claims none --out " + out_dir + " --format json", true,
         {"workloads", "fidelity", "claims"}, {0, 1}}}},
#if PODBENCH_HAVE_BENCHMARKS
      {"bench", {{"--filter '^relu/' --min-time 0.001 --format json", true,
                  {"context", "benchmarks"}}}},
#else
      {"bench", {{"--format json", true, {}, {3}}}},  // not built: exit 3, nothing on stdout
#endif
  };

  const std::vector<std::string> subs = Subcommands();
  ASSERT_FALSE(subs.empty()) << "podbench --help lists no subcommands";
  int covered = 0;
  for (const std::string& sub : subs) {
    if (!TakesJson(sub)) continue;
    auto it = cases.find(sub);
    ASSERT_NE(it, cases.end()) << "podbench " << sub << " takes --format json: add a case for it here";
    for (const JsonCase& c : it->second) {
#if !PODBENCH_HAVE_BENCHMARKS
      if (sub == "bench") {
        int rc = 0;
        const std::string out = PodbenchStdout(sub + " " + c.args, &rc);
        EXPECT_EQ(rc, 3);
        EXPECT_EQ(out, "");
        continue;
      }
#endif
      ExpectOneDocument(sub, c);
    }
    ++covered;
  }
  EXPECT_EQ(covered, static_cast<int>(cases.size())) << "a case here names no subcommand with --format json";
}

}  // namespace
}  // namespace podbench::testing
