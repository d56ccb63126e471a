// End-to-end: `podbench package`, `sysdesc` and `repo` as users run them, on
// the parity trees in ../shared (skipped without them).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "tests/submission/mlperf_logging_fixture.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench {
namespace {

using ::testing::HasSubstr;
using testing::Podbench;
using testing::PodbenchStdout;

TEST(PackageCli, TextListsEveryFailureAndExitsOne) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  const auto tree = shared / "fixtures/parity/trees/v4.0/Intel-HabanaLabs";
  int rc = 0;
  std::string out = Podbench("package " + tree.string() + " --ruleset 4.0.0 --mlperf-logging " + ml.path().string(), &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("  ERROR   systems/HLS-Gaudi2-PT.json: System description checker failed for HLS-Gaudi2-PT : "
                             "[\"Field status contains a non valid value: available"));
  EXPECT_THAT(out, HasSubstr("  WARNING results/HLS-Gaudi2-PT/llama2_70b_lora: Unknown files in result directory: scaling.json"));
  EXPECT_THAT(out, HasSubstr("FAIL  " + tree.string() + "  (training 4.0.0: 2 errors, 2 warnings)"));
  EXPECT_THAT(out, HasSubstr("RCP: 0 folders failing\n"));
}

TEST(PackageCli, JsonIsOneDocumentWithTheVerdict) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  const auto tree = shared / "fixtures/parity/trees/v1.0/Habana";
  int rc = 0;
  std::string out =
      PodbenchStdout("package " + tree.string() + " --ruleset 1.0.0 --format json --mlperf-logging " + ml.path().string(), &rc);
  EXPECT_EQ(rc, 1);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["summary"]["logs"], 15);
  EXPECT_EQ(j["errors"][0]["check"], "seeds");
  EXPECT_THAT(j["errors"][0]["message"].get<std::string>(), HasSubstr("logs no seed."));
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  EXPECT_EQ(j["benchmarks"][0]["rcp"], "pass");  // the seeds fail, not the convergence
}

TEST(PackageCli, TwoRunsPrintTheSameReport) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  const std::string args = "package " + (shared / "fixtures/parity/trees/v1.0/Graphcore").string() +
                           " --ruleset 1.0.0 --format json -j 2 --mlperf-logging " + ml.path().string();
  int rc1 = 0, rc2 = 0;
  std::string first = PodbenchStdout(args, &rc1);
  std::string second = PodbenchStdout(args, &rc2);
  EXPECT_EQ(rc1, rc2);
  EXPECT_EQ(first, second);
}

TEST(PackageCli, MissingRulesAreAUsageErrorNamingWhatIsMissing) {
  testing::TempDir dir;
  int rc = 0;
  std::string out = Podbench("package " + dir.path().string() + " --ruleset 1.0.0 --mlperf-logging " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("missing compliance_checker/"));
}

TEST(PackageCli, UnknownRulesetIsAUsageError) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  int rc = 0;
  std::string out = Podbench("package " + ml.path().string() + " --ruleset 9.9 --mlperf-logging " + ml.path().string(), &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("rule set '9.9' is not a version X.Y.Z"));
}

TEST(SysdescCli, MisspelledDivisionIsAVerdict) {
  testing::TempDir dir;
  std::ofstream(dir / "sys.json") << R"({"division": "Closed", "system_name": "s"})";
  int rc = 0;
  std::string out = Podbench("sysdesc " + (dir / "sys.json").string() + " --ruleset 4.0.0", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("Field division contains a non valid value: Closed, must be one of ['closed', 'open']"));
  EXPECT_THAT(out, HasSubstr("Missing field submitter"));
  EXPECT_THAT(out, HasSubstr("FAIL  " + (dir / "sys.json").string()));
}

TEST(SysdescCli, JsonSyntaxErrorNamesTheLine) {
  testing::TempDir dir;
  std::ofstream(dir / "sys.json") << "{\n  \"division\": \"closed\",\n  \"system_name\" \"s\"\n}\n";
  int rc = 0;
  const std::string file = (dir / "sys.json").string();
  std::string out = Podbench("sysdesc " + file + " --ruleset 4.0.0", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("  ERROR " + file + ":3: not valid JSON: expecting ':' delimiter at line 3, column 17"));
  std::string json = PodbenchStdout("sysdesc --format json " + file + " --ruleset 4.0.0", &rc);
  EXPECT_EQ(nlohmann::json::parse(json)["files"][0]["line"], 3) << json;
}

// Python's json, which the official checkers read with, stops at a byte
// that is not UTF-8 and at a byte-order mark; so does sysdesc, naming where.
TEST(SysdescCli, BytesThatAreNotUtf8AndAByteOrderMarkAreNotValidJson) {
  testing::TempDir dir;
  std::ofstream(dir / "utf.json") << "{\n  \"division\": \"clo\xff\xfe\"\n}\n";
  std::ofstream(dir / "bom.json") << "\xEF\xBB\xBF{\"division\": \"closed\"}\n";
  int rc = 0;
  std::string out = Podbench("sysdesc " + (dir / "utf.json").string() + " --ruleset 4.0.0", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("utf.json:2: not valid JSON: a byte that is not UTF-8 at line 2, column 19"));
  out = Podbench("sysdesc " + (dir / "bom.json").string() + " --ruleset 4.0.0", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("bom.json:1: not valid JSON: a UTF-8 byte-order mark at line 1, column 1"));
  // A folder or a missing file is bad input (exit 2), said plainly.
  out = Podbench("sysdesc " + dir.path().string() + " --ruleset 4.0.0", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr(": a folder; give system description files (systems/<system>.json)"));
  out = Podbench("sysdesc " + (dir / "none.json").string() + " --ruleset 4.0.0", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("none.json: no such file or folder"));
}

// A compliance failure in a log of a copied tree is listed at its path and line.
TEST(PackageCli, ComplianceFailureIsListedAtItsLogLine) {
  PODBENCH_REQUIRE_SHARED(shared);
  testing::MlperfLoggingFixture ml(shared);
  testing::TempDir dir;
  const auto tree = dir / "Intel-HabanaLabs";
  std::filesystem::copy(shared / "fixtures/parity/trees/v4.0/Intel-HabanaLabs", tree,
                        std::filesystem::copy_options::recursive);
  const auto log = tree / "results/HLS-Gaudi2-PT/llama2_70b_lora/result_0.txt";
  std::string text;
  {
    std::ifstream in(log);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string from = "\"key\": \"lora_rank\", \"value\": 16,";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"key\": \"lora_rank\", \"value\": 8,");  // line 20; must be 16
  std::ofstream(log, std::ios::trunc) << text;
  const std::string args = "package " + tree.string() + " --ruleset 4.0.0 --mlperf-logging " + ml.path().string();
  int rc = 0;
  std::string out = Podbench(args, &rc);
  // One failing log is accepted under olympic scoring: its message stays listed, as a warning.
  EXPECT_THAT(out, HasSubstr("  WARNING results/HLS-Gaudi2-PT/llama2_70b_lora/result_0.txt:20: [lora_rank] CHECK for "
                             "'lora_rank' failed in line 19:"));
  std::string json = PodbenchStdout(args + " --format json", &rc);
  bool seen = false;
  const auto doc = nlohmann::json::parse(json);
  for (const auto& e : doc["warnings"]) {
    if (e["check"] != "compliance" || e["path"] != "results/HLS-Gaudi2-PT/llama2_70b_lora/result_0.txt") continue;
    seen = true;
    EXPECT_EQ(e["line"], 20) << e.dump();
  }
  EXPECT_TRUE(seen) << json;
}

TEST(RepoCli, HiddenFilesFail) {
  testing::TempDir dir;
  std::ofstream(dir / ".swp") << "x";
  std::ofstream(dir / "ok.txt") << "x";
  int rc = 0;
  std::string out = Podbench("repo " + dir.path().string(), &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("  ERROR   .swp: git-unfriendly name"));
}

}  // namespace
}  // namespace podbench
