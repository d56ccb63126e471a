// podbench rcp and podbench summarize, run as a user runs them: exit codes,
// the CSV the official tool writes, and the files --csv writes.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/submission/mlperf_logging_fixture.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

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
  std::ifstream in(shared / "fixtures/parity/expected/result_summarizer.jsonl");
  for (std::string l; std::getline(in, l);) {
    auto j = nlohmann::json::parse(l);
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
  EXPECT_NE(out.find("INFO - RCP found, RCP test PASSED"), std::string::npos) << out;
  EXPECT_NE(out.find("normalized by factor of 2764498.6666666665 / 2714134.625 = 1.0185562061670639"), std::string::npos)
      << out;
  out = testing::PodbenchStdout(
      "rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0 --mlperf-logging " + Q(ml.path()) +
          " --format json",
      &rc);
  EXPECT_EQ(rc, 1) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["message"], "RCP found");
  out = testing::PodbenchStdout("rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0 --rcp-bypass " +
                                    "--mlperf-logging " + Q(ml.path()),
                                &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("RCP found passed using rcp_bypass"), std::string::npos) << out;
  std::string err;
  testing::PodbenchStdout("rcp " + Q(gc / "ipu-pod16-POPART-open/bert") + " --ruleset 1.0.0", &rc, &err);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("--mlperf-logging"), std::string::npos) << err;
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
