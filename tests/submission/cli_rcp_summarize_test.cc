// podbench rcp and podbench summarize, run as a user runs them: exit codes,
// the CSV the official tool writes, and the files --csv writes.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/submission/mlperf_logging_fixture.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"
#include "tests/submission/json_lines.h"

namespace podbench {
namespace {

namespace fs = std::filesystem;

std::string Q(const fs::path& p) { return "'" + p.string() + "'"; }

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json Expected(const fs::path& shared, const std::string& tree) {
  for (auto& j : testing::ReadJsonLines(shared / "fixtures/parity/expected/result_summarizer.jsonl")) {
    if (j["tree"] == tree) return j;
  }
  return nullptr;
}

TEST(CliRcp, VerdictsAndExitCodes) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  const fs::path gc = shared / "fixtures/parity/trees/v1.0/Graphcore/results";
  int rc = -1;
  std::string out = testing::PodbenchStdout(
      "rcp " + Q(gc / "ipu-pod16-POPART-closed/bert") + " --ruleset 1.0.0 --mlperf-logging " + Q(ml.path()), &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("PASS  " + (gc / "ipu-pod16-POPART-closed/bert").string() + "  (RCP found)\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("  score normalization  2764498.6666666665 / 2714134.625 = 1.0185562061670639"), std::string::npos)
      << out;
  out = testing::PodbenchStdout(
      "rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0 --mlperf-logging " + Q(ml.path()) +
          " --format json",
      &rc);
  EXPECT_EQ(rc, 1) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["message"], "RCP found");
  out = testing::PodbenchStdout(
      "rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0 --mlperf-logging " + Q(ml.path()), &rc);
  EXPECT_NE(out.find("  score normalization  none: the submission mean 2167718.125 is below min epochs"), std::string::npos)
      << out;
  EXPECT_NE(out.find("FAIL  " + (gc / "ipu-pod16-POPART-open/bert").string() +
                     "  (RCP found; --rcp-bypass lets it pass, as the package checker's --rcp_bypass does)\n"),
            std::string::npos)
      << out;
  out = testing::PodbenchStdout("rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0 --rcp-bypass " +
                                    "--mlperf-logging " + Q(ml.path()),
                                &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("  (RCP found passed using rcp_bypass)"), std::string::npos) << out;
  EXPECT_NE(out.find("  WARNING RCP test failed but allowed to proceed with RCP bypass."), std::string::npos) << out;
  std::string err;
  testing::PodbenchStdout("rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0", &rc, &err);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("--mlperf-logging"), std::string::npos) << err;
  // A --custom-rcps file that is missing or not JSON is bad input (exit 2,
  // named), not a FAIL of the submission.
  testing::TempDir dir;
  std::ofstream(dir / "bad.json") << "{not json";
  for (const std::string& file : {(dir / "missing.json").string(), (dir / "bad.json").string()}) {
    err.clear();
    testing::PodbenchStdout("rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0 --custom-rcps " + Q(file),
                            &rc, &err);
    EXPECT_EQ(rc, 2) << file;
    EXPECT_NE(err.find("podbench rcp: --custom-rcps " + file + ": "), std::string::npos) << err;
  }
}

// The value after `key` in an official "RCP Record: {...}" log line, as printed.
std::string OfficialField(const std::string& log, const std::string& key) {
  const size_t at = log.find("'" + key + "': ");
  if (at == std::string::npos) return "";
  const size_t from = at + key.size() + 4;
  if (log[from] == '[') return log.substr(from + 1, log.find(']', from) - from - 1);
  return log.substr(from, log.find_first_of(",}", from) - from);
}

// A number as podbench prints it: the official digits, a whole float without ".0".
std::string Whole(std::string n) {
  return n.size() > 2 && n.compare(n.size() - 2, 2, ".0") == 0 ? n.substr(0, n.size() - 2) : n;
}

// On every official rcp_checker case, the text output holds every number
// the official tool logs: the record's batch size, convergence list, mean,
// stdev, max speedup and min epochs, the submission mean and the
// normalization; and the same verdict.
TEST(CliRcp, TextHoldsEveryNumberTheOfficialToolLogs) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  int cases = 0;
  for (const auto& c : testing::ReadJsonLines(shared / "fixtures/parity/expected/rcp_checker.jsonl")) {
    const std::vector<std::string> argv = c["argv"];
    const fs::path dir = shared / "fixtures/parity/trees" / c["tree"].get<std::string>() / c["target"].get<std::string>();
    SCOPED_TRACE(dir.string());
    ++cases;
    std::string log;
    for (const auto& [name, text] : c["log_files"].items()) log += text.get<std::string>();
    int rc = -1;
    const std::string out = testing::PodbenchStdout(
        "rcp " + Q(dir) + " --usage " + argv[5] + " --ruleset " + argv[7] + " --mlperf-logging " + Q(ml.path()), &rc);
    EXPECT_EQ(rc == 0 ? "PASS" : "FAIL", c["verdict"].get<std::string>()) << out;
    auto has_line = [&](const std::string& name, const std::string& value) {
      const std::string want = "  " + name + std::string(21 - name.size(), ' ') + value;
      EXPECT_NE(out.find(want), std::string::npos) << "missing: " << want << "\n" << out;
    };
    if (log.find("RCP Record: ") != std::string::npos) {
      const std::string bs = OfficialField(log, "BS");
      EXPECT_NE(out.find("  (batch size " + Whole(bs)), std::string::npos) << out;
      std::string list;
      std::stringstream items(OfficialField(log, "Epochs to converge"));
      for (std::string x; std::getline(items, x, ',');) list += (list.empty() ? "" : ", ") + Whole(x.substr(x.find_first_not_of(' ')));
      if (!list.empty()) {
        EXPECT_NE(out.find(list), std::string::npos) << out;
      }
      has_line("RCP mean", Whole(OfficialField(log, "RCP Mean")));
      has_line("RCP stdev", Whole(OfficialField(log, "RCP Stdev")));
      has_line("max speedup", Whole(OfficialField(log, "Max Speedup")));
      has_line("min epochs", Whole(OfficialField(log, "Min Epochs")));
    }
    const size_t mean_at = log.find("Submission mean epochs: ");
    if (mean_at != std::string::npos) {
      // The official tool prints 4 decimals; podbench prints the number itself.
      const double official = std::stod(log.substr(mean_at + 24));
      const size_t at = out.find("  submission mean      ");
      ASSERT_NE(at, std::string::npos) << out;
      EXPECT_NEAR(std::stod(out.substr(at + 23)), official, 5e-5) << out;
    }
    const size_t norm = log.find("normalized by factor of ");
    if (norm != std::string::npos) {
      // "A / B = C", each number as podbench prints it.
      std::stringstream parts(log.substr(norm + 24, log.find('\n', norm) - norm - 24));
      std::string rcp_mean, slash, subm_mean, eq, factor;
      parts >> rcp_mean >> slash >> subm_mean >> eq >> factor;
      has_line("score normalization", Whole(rcp_mean) + " / " + Whole(subm_mean) + " = " + Whole(factor));
    }
  }
  EXPECT_EQ(cases, 10);
}

TEST(CliSummarize, HpcPrintsTheStrongThenTheWeakTableAsTheOfficialSummaryCsv) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  const fs::path data = PODBENCH_SUBMISSION_TEST_DATA;
  nlohmann::json expected;
  for (auto& j : testing::ReadJsonLines(data / "official_summaries.jsonl")) {
    if (j["case"] == "hpc_strong_and_weak") expected = j;
  }
  ASSERT_FALSE(expected.is_null());
  testing::TempDir tmp;
  int rc = -1;
  const std::string args = "summarize " + Q(data / "summary_trees/HPE+LBNL") + " --usage hpc --ruleset 3.0.0 --mlperf-logging " +
                           Q(ml.path());
  std::string out = testing::PodbenchStdout(args + " --format csv --csv " + Q(tmp / "summary.csv"), &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, expected["outputs"]["summary.csv"].get<std::string>());
  EXPECT_EQ(ReadAll(tmp / "summary.csv"), expected["outputs"]["summary.csv"].get<std::string>());
  EXPECT_EQ(ReadAll(tmp / "summary_weak.json"), expected["outputs"]["summary.json"].get<std::string>());
  out = testing::PodbenchStdout(args, &rc);
  EXPECT_NE(out.find("summary: PASS (2 rows, 1 of them weak scaling)"), std::string::npos) << out;
  out = testing::PodbenchStdout(args + " --format json", &rc);
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["weak_scaling"].size(), 1u) << out;
  EXPECT_EQ(j["weak_scaling"][0]["cosmoflow:time_to_train_all"], 14.70215);
}

TEST(CliSummarize, CsvEqualsTheOfficialAndNothingIsWrittenIntoTheTree) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  testing::TempDir tmp;
  const fs::path habana = shared / "fixtures/parity/trees/v1.0/Habana";
  const auto expected = Expected(shared, "v1.0/Habana");
  ASSERT_FALSE(expected.is_null());
  int rc = -1;
  std::string out = testing::PodbenchStdout("summarize " + Q(habana) + " --ruleset 1.0.0 --format csv --mlperf-logging " +
                                                Q(ml.path()) + " --csv " + Q(tmp / "summary.csv"),
                                            &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, expected["outputs"]["summary.csv"].get<std::string>());
  for (const char* f : {"summary.csv", "summary.json", "summary_detailed.csv", "summary_detailed.json"}) {
    EXPECT_EQ(ReadAll(tmp / f), expected["outputs"][f].get<std::string>()) << f;
  }
  const fs::path graphcore = shared / "fixtures/parity/trees/v1.0/Graphcore";
  out = testing::PodbenchStdout("summarize " + Q(graphcore) + " --ruleset 1.0.0 --format json --mlperf-logging " +
                                    Q(ml.path()),
                                &rc);
  EXPECT_EQ(rc, 1);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["messages"][0], "ERROR: RCP Test Failed on Graphcore/ipu-pod64-POPART-closed/bert with message: RCP found.");
  EXPECT_EQ(j["summary"].size(), 6u);
  EXPECT_FALSE(fs::exists(graphcore / "results/ipu-pod16-POPART-closed/bert/scaling.json"));

  out = testing::PodbenchStdout("summarize --ruleset 1.0.0 --mlperf-logging " + Q(ml.path()) + " --benchmark-folder " +
                                    Q(habana / "results/SYS-420GH-TNGR/bert") + " --system SYS-420GH-TNGR",
                                &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Final score - Time to Train (minutes): 164.36769166666667"), std::string::npos) << out;
}

}  // namespace
}  // namespace podbench
