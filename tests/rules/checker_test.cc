// Checker semantics on small hand-written rule files and logs: message
// overwriting, warnings, --werror, enqueue chains and path confinement.
#include <gtest/gtest.h>

#include <fstream>

#include "rules/checker.h"
#include "rules/mllog/reader.h"
#include "tests/testing/temp_dir.h"

namespace podbench::rules {
namespace {

void Write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

class CheckerTest : public ::testing::Test {
 protected:
  CheckResult Check(const std::string& log, bool werror = false, std::string config = "t/common.yaml") {
    auto reader = mllog::LogReader::FromString(log, mllog::Format::kMll);
    std::vector<mllog::Record> records;
    mllog::Record r;
    while (reader->Next(&r)) records.push_back(r);
    CheckOptions opt;
    opt.config = std::move(config);
    opt.werror = werror;
    Checker checker(std::make_shared<RuleSet>(DirectorySource(dir_.path())), opt);
    const std::filesystem::path file = dir_ / "logs" / "test.log";
    CheckResult from_records = checker.CheckRecords(records, reader->errors(), file.string());
    // What `podbench check` runs (CheckFile keeps each line's JSON text and
    // builds values on demand) must give exactly what the records give.
    Write(file, log);
    auto from_file = checker.CheckFile(file);
    EXPECT_TRUE(from_file.ok()) << from_file.status().message();
    if (from_file.ok()) ExpectSameResult(from_records, *from_file);
    return from_records;
  }
  static void ExpectSameResult(const CheckResult& a, const CheckResult& b) {
    EXPECT_EQ(a.pass, b.pass);
    EXPECT_EQ(a.error_keys, b.error_keys);
    EXPECT_EQ(a.warning_keys, b.warning_keys);
    EXPECT_EQ(a.lines, b.lines);
    EXPECT_EQ(a.printed, b.printed);
    ASSERT_EQ(a.errors.size(), b.errors.size());
    for (size_t i = 0; i < a.errors.size(); ++i) {
      EXPECT_EQ(a.errors[i].key, b.errors[i].key);
      EXPECT_EQ(a.errors[i].text, b.errors[i].text);
      EXPECT_EQ(a.errors[i].line, b.errors[i].line);
    }
    ASSERT_EQ(a.warnings.size(), b.warnings.size());
    for (size_t i = 0; i < a.warnings.size(); ++i) EXPECT_EQ(a.warnings[i].text, b.warnings[i].text);
  }
  static std::string Line(double ts, const std::string& key, const std::string& value, const std::string& meta = "{}") {
    return ":::MLL " + std::to_string(ts) + " " + key + ": {\"value\": " + value + ", \"metadata\": " + meta + "}\n";
  }
  testing::TempDir dir_;
};

TEST_F(CheckerTest, OnlyTheLastFailurePerKeyIsKept) {
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: x\n    CHECK: \"v['value'] > 1\"\n");
  auto r = Check(Line(1, "x", "0") + Line(2, "x", "5") + Line(3, "x", "-1"));
  EXPECT_FALSE(r.pass);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].text.substr(0, 34), "CHECK for 'x' failed in line 2:\n  ");
  EXPECT_EQ(r.errors[0].line, 3);  // the 1-based file line of the kept failure (the official index is 0-based)
  EXPECT_EQ(r.error_keys, std::vector<std::string>{"x"});
}

TEST_F(CheckerTest, RaisingCheckIsAFailureAndPostStillRuns) {
  Write(dir_ / "t/common.yaml",
        "- BEGIN:\n    CODE: \"s['n'] = 0\"\n"
        "- KEY:\n    NAME: x\n    CHECK: \"v['metadata']['missing'] > 0\"\n    POST: \"s['n'] += 1\"\n"
        "- END:\n    CHECK: \"s['n'] == 2\"\n");
  auto r = Check(Line(1, "x", "0") + Line(2, "x", "1"));
  EXPECT_FALSE(r.pass);
  ASSERT_EQ(r.errors.size(), 1u);  // the END check passed: POST ran twice
  EXPECT_NE(r.errors[0].text.find("Failed executing CHECK code:"), std::string::npos);
  EXPECT_NE(r.errors[0].text.find("KeyError: 'missing'"), std::string::npos);
  EXPECT_EQ(r.errors[0].line, 2);
}

TEST_F(CheckerTest, ExactlyOneDuplicatesAreWarningsUnlessWerror) {
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: x\n    REQ: EXACTLY_ONE\n- KEY:\n    NAME: y\n    REQ: EXACTLY_ONE\n");
  std::string log = Line(1, "x", "3") + Line(2, "x", "3.0") + Line(3, "y", "1") + Line(4, "y", "2");
  auto r = Check(log);
  EXPECT_EQ(r.warning_keys, std::vector<std::string>{"x"});
  EXPECT_EQ(r.error_keys, std::vector<std::string>{"y"});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 4);  // the key's second occurrence
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].line, 2);
  auto w = Check(log, /*werror=*/true);
  EXPECT_EQ(w.error_keys, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(w.warning_keys.empty());
}

TEST_F(CheckerTest, SubmissionKeysAreCheckedAtFirstOccurrenceOnly) {
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: submission_org\n    CHECK: \"v['value'] == 'a'\"\n");
  EXPECT_TRUE(Check(Line(1, "submission_org", "\"a\"") + Line(2, "submission_org", "\"b\"")).pass);
  EXPECT_FALSE(Check(Line(1, "submission_org", "\"b\"") + Line(2, "submission_org", "\"a\"")).pass);
}

TEST_F(CheckerTest, EnqueuedFileRedefiningAKeyDropsItsMessages) {
  Write(dir_ / "t/common.yaml",
        "- KEY:\n    NAME: bench\n    CHECK: \"False\"\n    POST: \"enqueue_config('t/{}.yaml'.format(v['value']))\"\n");
  Write(dir_ / "t/resnet.yaml", "- KEY:\n    NAME: bench\n    CHECK: \"v['value'] == 'resnet'\"\n");
  auto r = Check(Line(1, "bench", "\"resnet\""));
  EXPECT_TRUE(r.pass) << (r.errors.empty() ? "" : r.errors[0].text);
}

TEST_F(CheckerTest, MissingEnqueuedFileFailsClearly) {
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: bench\n    POST: \"enqueue_config('t/{}.yaml'.format(v['value']))\"\n");
  auto r = Check(Line(1, "bench", "\"mask\""));
  EXPECT_FALSE(r.pass);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors.back().text.find("Could not find config file"), std::string::npos);
  EXPECT_NE(r.errors.back().text.find("t/mask.yaml"), std::string::npos);
}

TEST_F(CheckerTest, EnqueuedPathsCannotLeaveTheRulesFolder) {
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: bench\n    POST: \"enqueue_config('t/{}.yaml'.format(v['value']))\"\n");
  Write(dir_ / "secret.yaml", "- KEY:\n    NAME: bench\n    CHECK: \"True\"\n");
  for (const std::string name : {"../secret", "../../../../etc/passwd", "x/../../secret"}) {
    auto r = Check(Line(1, "bench", "\"" + name + "\""));
    EXPECT_FALSE(r.pass);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.back().text.find("leaves the rules folder"), std::string::npos) << r.errors.back().text;
  }
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: bench\n    POST: \"enqueue_config(v['value'])\"\n");
  auto abs = Check(Line(1, "bench", "\"/etc/passwd\""));
  EXPECT_NE(abs.errors.back().text.find("is absolute"), std::string::npos);
  // A symlink inside the folder that points outside it.
  std::filesystem::create_directories(dir_ / "outside");
  Write(dir_ / "outside/evil.yaml", "- KEY:\n    NAME: bench\n");
  testing::TempDir other;
  std::filesystem::create_symlink(dir_ / "outside/evil.yaml", other / "evil.yaml");
  Write(other / "t/common.yaml", "- KEY:\n    NAME: bench\n    POST: \"enqueue_config('evil.yaml')\"\n");
  CheckOptions opt;
  opt.config = "t/common.yaml";
  Checker checker(std::make_shared<RuleSet>(DirectorySource(other.path())), opt);
  auto reader = mllog::LogReader::FromString(Line(1, "bench", "1"), mllog::Format::kMll);
  std::vector<mllog::Record> records;
  mllog::Record rec;
  while (reader->Next(&rec)) records.push_back(rec);
  auto sym = checker.CheckRecords(records, {}, "x");
  EXPECT_FALSE(sym.pass);
  EXPECT_NE(sym.errors.back().text.find("outside the rules folder"), std::string::npos) << sym.errors.back().text;
}

TEST_F(CheckerTest, RuleErrorsNameFileAndLine) {
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: x\n    CHECK: \"v['value'] >\"\n");
  auto r = Check(Line(1, "x", "1"));
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.errors.back().text.find("common.yaml:3"), std::string::npos) << r.errors.back().text;
  Write(dir_ / "t/common.yaml", "- BEGIN:\n    CODE: |\n      import os\n      os.system('true')\n");
  auto imp = Check(Line(1, "x", "1"));
  EXPECT_FALSE(imp.pass);
  EXPECT_NE(imp.errors.back().text.find("ImportError: import of 'os' is not allowed"), std::string::npos)
      << imp.errors.back().text;
}

// A rule file with no records would pass every log; the official checker
// stops on one (it iterates None), and so does this one, naming the file.
TEST_F(CheckerTest, AnEmptyRuleFileFailsNamingIt) {
  for (const char* text : {"", "# only a comment\n"}) {
    Write(dir_ / "t/common.yaml", text);
    auto r = Check(Line(1, "x", "1"));
    EXPECT_FALSE(r.pass) << text;
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.back().text.find("common.yaml: an empty rule file (no records)"), std::string::npos)
        << r.errors.back().text;
  }
}

TEST_F(CheckerTest, ReqVariantsAndAtLeastOneCheck) {
  Write(dir_ / "t/common.yaml",
        "- KEY:\n    NAME: a\n    REQ: AT_LEAST(2)\n"
        "- KEY:\n    NAME: b\n    REQ: AT_LEAST_ONE_OR(c)\n- KEY:\n    NAME: c\n    REQ: AT_LEAST_ONE_OR(b)\n"
        "- KEY:\n    NAME: acc\n    ATLEAST_ONE_CHECK: \"v['value'] >= 0.75\"\n");
  auto r = Check(Line(1, "a", "1") + Line(2, "acc", "0.5"));
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.error_keys, std::vector<std::string>{"a"});
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[1].text.substr(0, 22), "Failed checks for acc ");
  EXPECT_EQ(r.errors[2].text, "Required AT_LEAST_ONE occurrence of ('b', 'c')");
  EXPECT_TRUE(Check(Line(1, "a", "1") + Line(2, "a", "1") + Line(3, "c", "1") + Line(4, "acc", "0.8")).pass);
}

TEST_F(CheckerTest, LogLinesCanBeExtendedByBeginCode) {
  // As the official stable-diffusion rules do: a virtual key built in BEGIN.
  Write(dir_ / "t/common.yaml",
        "- BEGIN:\n    CODE: |\n      from dataclasses import replace\n      extra = []\n"
        "      for line in loglines:\n          if line.key == 'x':\n              n = replace(line)\n"
        "              n.key = 'virtual'\n              n.value = {'value': line.value['value'] * 2, 'metadata': {}}\n"
        "              extra.append(n)\n      loglines.extend(extra)\n"
        "- KEY:\n    NAME: virtual\n    REQ: EXACTLY_ONE\n    CHECK: \"v['value'] == 6\"\n");
  EXPECT_TRUE(Check(Line(1, "x", "3")).pass);
  EXPECT_FALSE(Check(Line(1, "x", "4")).pass);
}

TEST_F(CheckerTest, ReferenceCyclesMadeByRuleCodeAreFreed) {
  // Under ASan (leak detection) this test fails if the cycles leak.
  Write(dir_ / "t/common.yaml",
        "- BEGIN:\n    CODE: \"s['me'] = s; s['l'] = [s]\"\n"
        "- KEY:\n    NAME: x\n    POST: \"v['self'] = v; s['last'] = ll; ll.value['line'] = ll\"\n"
        "    CHECK: \"v['value'] == 1\"\n");
  auto r = Check(Line(1, "x", "1") + Line(2, "x", "2"));
  EXPECT_EQ(r.error_keys, std::vector<std::string>{"x"});
  EXPECT_NE(r.errors[0].text.find("{...}"), std::string::npos) << r.errors[0].text;  // v printed with its cycle
}

TEST_F(CheckerTest, ValuesBuiltFromTheLogTextKeepPythonTypes) {
  // Escapes, latin-1 bytes, ints vs floats, NaN and repeated keys reach rule
  // code as json.loads makes them, on both the records and the file path.
  Write(dir_ / "t/common.yaml",
        "- KEY:\n    NAME: x\n"
        "    CHECK: \"type(v['value']) == int and v['metadata']['f'] == 2.0 and type(v['metadata']['f']) == float\"\n"
        "- KEY:\n    NAME: y\n"
        "    CHECK: \"len(v['value']) == 4 and v['value'][0] == 'a' and v['metadata']['k'] == 2 and v['metadata']['n'] != v['metadata']['n']\"\n"
        "- KEY:\n    NAME: z\n    CHECK: \"v['value'] == [1, {'a': None, 'b': True}]\"\n"
        "    POST: \"v['value'].append(3)\"\n"
        "- END:\n    CHECK: \"True\"\n");
  std::string log = Line(1, "x", "7", "{\"f\": 2.0}") +
                    Line(2, "y", "\"a\\u00e9\\\\\\n\"", "{\"k\": 1, \"n\": NaN, \"k\": 2}") +
                    Line(3, "z", "[1, {\"a\": null, \"b\": true}]") +
                    Line(4, "z", "[1, {\"a\": null, \"b\": true}]");  // fresh list: the append above does not leak here
  auto r = Check(log);
  EXPECT_TRUE(r.pass) << (r.errors.empty() ? "" : r.errors[0].text);
  // A raw latin-1 byte is one code point, as Python decodes the file.
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: x\n    CHECK: \"len(v['value']) == 2\"\n");
  EXPECT_TRUE(Check(Line(1, "x", "\"\xe9\xff\"")).pass);
}

TEST_F(CheckerTest, NoLinesAndParseErrorsFail) {
  Write(dir_ / "t/common.yaml", "- KEY:\n    NAME: x\n");
  auto r = Check("no mlperf lines here\n");
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.errors.back().text, "No log lines detected");
  EXPECT_EQ(r.errors.back().line, 0);
  auto p = Check(Line(1, "x", "1") + "other text\n" + ":::MLL 2.0 x: {'value': 1}\n");
  EXPECT_FALSE(p.pass);
  EXPECT_EQ(p.errors.front().text.substr(0, 29), "Log lines had parsing errors.");
  EXPECT_EQ(p.errors.front().line, 3);
}

}  // namespace
}  // namespace podbench::rules
