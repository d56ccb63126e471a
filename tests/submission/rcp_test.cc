// The RCP check: Python-exact arithmetic, and parity with what the official
// rcp_checker printed on the parity trees (../shared/fixtures/parity).
#include "submission/rcp.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "submission/pynum.h"
#include "tests/submission/official_rcp_log.h"
#include "tests/testing/shared_dir.h"
#include "tests/submission/json_lines.h"

namespace podbench::submission {
namespace {

namespace fs = std::filesystem;

TEST(PyNum, ReprIsPythonsRepr) {
  EXPECT_EQ(PyRepr(3072.0), "3072.0");
  EXPECT_EQ(PyRepr(1.0), "1.0");
  EXPECT_EQ(PyRepr(34.48876666666666), "34.48876666666666");
  EXPECT_EQ(PyRepr(1258291200.0), "1258291200.0");
  EXPECT_EQ(PyRepr(1e16), "1e+16");
  EXPECT_EQ(PyRepr(1.5e-5), "1.5e-05");
  EXPECT_EQ(PyRepr(0.0001), "0.0001");
  EXPECT_EQ(PyRepr(-2.5), "-2.5");
  EXPECT_EQ(PyRepr(123456789012345678.0), "1.2345678901234568e+17");
}

TEST(PyNum, RoundAndPandasJson) {
  EXPECT_EQ(PyRound(1.0005, 3), 1.0);    // 1.0005 is just below the tie in binary
  EXPECT_EQ(PyRound(2.0005, 3), 2.001);  // 2.0005 just above it
  EXPECT_EQ(PyRound(1.23456, 3), 1.235);
  EXPECT_EQ(PandasJsonDouble(34.48876666666666), "34.4887666667");
  EXPECT_EQ(PandasJsonDouble(164.36769166666667), "164.3676916667");
  EXPECT_EQ(PandasJsonDouble(3072.0), "3072.0");
  EXPECT_EQ(PandasJsonDouble(1.0033670033670032), "1.0033670034");
}

TEST(PyNum, NumpyPairwiseSumDiffersFromNaiveWhereNumpyDoes) {
  std::vector<double> v(20, 0.1);
  double naive = 0;
  for (double x : v) naive += x;
  const double pairwise = NumpySum(v.data(), 20);
  // numpy: eight accumulators, then the tail; the two orders differ in the last bit here.
  double r[8] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
  for (int j = 0; j < 8; ++j) r[j] += 0.1;
  double expect = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (int i = 0; i < 4; ++i) expect += 0.1;
  EXPECT_EQ(pairwise, expect);
  (void)naive;
}

TEST(PyNum, StudentT) {
  EXPECT_NEAR(StudentTCdf(2.228138851986273, 10), 0.975, 1e-12);
  EXPECT_NEAR(StudentTCdf(-1.7108820799094282, 24), 0.05, 1e-12);
  EXPECT_NEAR(StudentTCdf(12.706204736174707, 1), 0.975, 1e-12);
  EXPECT_DOUBLE_EQ(StudentTCdf(0, 7), 0.5);
  EXPECT_TRUE(std::isnan(StudentTCdf(1, 0)));
}

RunConvergence MakeRun(double bs, const std::string& bench, double epochs, bool converged = true) {
  RunConvergence r;
  r.bs = bs;
  r.benchmark = bench;
  r.converged = converged;
  r.epochs = converged ? epochs : 1e9;
  return r;
}

RcpLoader TableOf(const std::string& json) {
  return [json](const std::string& b) { return ParseRcpTable(json, "test.json", "training", "4.0.0", b); };
}

const char* kTwoPoints = R"({
  "resnet_ref_1000": {"Benchmark": "resnet", "BS": 1000, "Hyperparams": {}, "Epochs to converge": [30,31,32,33,34,35,36,37,38,39]},
  "resnet_ref_3000": {"Benchmark": "resnet", "BS": 3000, "Hyperparams": {}, "Epochs to converge": [40,41,42,43,44,45,46,47,48,49]}
})";

TEST(Rcp, VerdictsOfTheOfficialCases) {
  RcpOptions o;
  o.ruleset = "4.0.0";
  std::vector<RunConvergence> runs;
  for (double e : {44., 44., 45., 45., 46.}) runs.push_back(MakeRun(3000, "resnet", e));
  auto v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_TRUE(v.pass) << v.message;
  EXPECT_EQ(v.message, "RCP found");
  EXPECT_DOUBLE_EQ(*v.submission_mean, (44.0 + 45.0 + 45.0) / 3);  // olympic: 44 and 46 dropped

  for (auto& r : runs) r.bs = 2000;
  v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_EQ(v.message, "RCP Interpolation");
  EXPECT_TRUE(v.pass);

  for (auto& r : runs) r.bs = 4000;
  v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.message, "Missing RCP, please submit RCP with BS = 4000");
  o.bypass = true;
  v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_TRUE(v.pass);
  EXPECT_EQ(v.message, "Missing RCP, please submit RCP with BS = 4000 passed using rcp_bypass");
  o.bypass = false;

  for (auto& r : runs) r.bs = 500;  // smaller than every RCP: must converge slower than the smallest
  v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_TRUE(v.pass);
  EXPECT_EQ(v.message, "RCP not found but slower convergence on smaller batch size");

  for (auto& r : runs) r.bs = 3000;
  runs[0] = MakeRun(3000, "resnet", 0, false);
  runs[1] = MakeRun(3000, "resnet", 0, false);
  v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.message, "Insufficient convergence");
}

TEST(Rcp, WhereTheOfficialCheckerCrashesAVerdict) {
  RcpOptions o;
  o.ruleset = "4.0.0";
  std::vector<RunConvergence> runs = {MakeRun(64, "not_a_benchmark", 3)};
  auto v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(v.official_crash);
  EXPECT_NE(v.message.find("run-count table"), std::string::npos) << v.message;

  // str() of the official KeyError, which its summarizer prints.
  EXPECT_EQ(v.official_exception, "'not_a_benchmark'");

  v = CheckRcp({}, o, TableOf(kTwoPoints));
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(v.official_crash);

  runs = {MakeRun(64, "resnet", 3), MakeRun(128, "resnet", 3)};
  v = CheckRcp(runs, o, TableOf(kTwoPoints));
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(v.official_crash);
  EXPECT_EQ(v.official_exception, "None");  // batch sizes differ: no benchmark, a KeyError on None

  runs = {MakeRun(64, "resnet", 3)};
  v = CheckRcp(runs, o, [](const std::string&) -> Result<RcpTable> { return Status::NotFound("rcps_resnet.json: no RCP file"); });
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.message.find("rcps_resnet.json"), std::string::npos);
}

// Too few runs for the olympic mean (two, one dropped each side): the mean of
// nothing is NaN, which the official log prints as Python's "%.4f" does,
// "nan" (C's printf says "-nan" for the NaN 0.0 / 0.0 gives on x86).
TEST(Rcp, AMeanOfNoRunsIsLoggedAsPythonsNan) {
  RcpOptions o;
  o.ruleset = "4.0.0";
  auto v = CheckRcp({MakeRun(3000, "resnet", 44), MakeRun(3000, "resnet", 45)}, o, TableOf(kTwoPoints));
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.message, "RCP found");
  EXPECT_NE(std::find(v.log.begin(), v.log.end(), "INFO -  Submission mean epochs: nan"), v.log.end())
      << ::testing::PrintToString(v.log);
}

TEST(Rcp, BadRcpFilesAreErrorsNamingTheFile) {
  for (const char* bad : {"", "[1,2]", "{\"a\": 1}", "{\"a\": {\"Benchmark\": \"resnet\"}}",
                          "{\"a\": {\"Benchmark\": \"resnet\", \"BS\": 1, \"Hyperparams\": {}, \"Epochs to converge\": [\"x\"]}}"}) {
    auto t = ParseRcpTable(bad, "rcps_resnet.json", "training", "4.0.0", "resnet");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.status().message().find("rcps_resnet.json"), std::string::npos);
  }
}

TEST(Rcp, ReadsConvergenceAsTheOfficialReader) {
  const std::string log =
      ":::MLLOG {\"key\": \"submission_benchmark\", \"value\": \"resnet\", \"metadata\": {}}\n"
      "junk :::MLLOG {\"key\": \"global_batch_size\", \"value\": 3264, \"metadata\": {}}\n"
      ":::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.7, \"metadata\": {\"epoch_num\": 33.12345}}\n"
      ":::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.76, \"metadata\": {\"epoch_num\": 37.00049}}\n"
      ":::MLLOG {\"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n";
  auto r = ReadRunConvergence(log, "4.0.0", false);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.epochs, 37.0);
  EXPECT_EQ(*r.bs, 3264);
  EXPECT_EQ(*r.benchmark, "resnet");
  EXPECT_TRUE(r.problem.empty());
  auto aborted = ReadRunConvergence(log.substr(0, log.rfind(":::MLLOG")) +
                                        ":::MLLOG {\"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"aborted\"}}\n",
                                    "4.0.0", false);
  EXPECT_FALSE(aborted.converged);
  EXPECT_EQ(aborted.epochs, 1e9);
}

TEST(RcpParity, EveryOfficialRcpCheckerCase) {
  PODBENCH_REQUIRE_SHARED(shared);
  const fs::path parity = shared / "fixtures/parity";
  const fs::path data = shared / "fixtures/mlperf-logging-data";
  int cases = 0;
  for (const auto& c : testing::ReadJsonLines(parity / "expected/rcp_checker.jsonl")) {
    const std::string tree = c["tree"], target = c["target"], verdict = c["verdict"];
    std::vector<std::string> argv = c["argv"];
    std::string ruleset = "6.0.0";
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == "--rcp_version") ruleset = argv[i + 1];
    }
    SCOPED_TRACE(tree + "/" + target);
    auto runs = testing::ReadFolderRuns(parity / "trees" / tree / target, ruleset);
    RcpOptions o;
    o.ruleset = ruleset;
    auto v = CheckRcp(runs, o, FileRcpLoader(data, "training", ruleset));
    EXPECT_EQ(v.pass ? "PASS" : "FAIL", verdict) << v.message;
    testing::ExpectRcpMatchesOfficialLog(v, c["stderr"]);
    ++cases;
  }
  EXPECT_EQ(cases, 10);
}

}  // namespace
}  // namespace podbench::submission
