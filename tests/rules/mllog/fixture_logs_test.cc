// Reads every real MLPerf log in ../shared/fixtures/logs, and writes each
// back and reads it again.
#include <filesystem>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "rules/mllog/reader.h"
#include "rules/mllog/writer.h"
#include "tests/testing/shared_dir.h"

namespace podbench::mllog {
namespace {

namespace fs = std::filesystem;

// The format a log is read in: the parser of its round's ruleset.
Format FormatOfRound(const fs::path& rel) {
  return rel.begin()->string() == "v0.6" ? Format::kMll : Format::kMllog;
}

std::vector<fs::path> FixtureLogs(const fs::path& root) {
  std::vector<fs::path> logs;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) logs.push_back(fs::relative(e.path(), root));
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

TEST(FixtureLogsTest, EveryLogReadsWithOnlyKnownErrors) {
  PODBENCH_REQUIRE_SHARED(shared);
  fs::path root = shared / "fixtures" / "logs";
  auto logs = FixtureLogs(root);
  ASSERT_EQ(logs.size(), 287u);
  int64_t records = 0, token_lines = 0;
  int with_no_records = 0, python_dicts = 0, interleaved = 0;
  for (const fs::path& rel : logs) {
    auto reader = LogReader::Open(root / rel, FormatOfRound(rel));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    Record r;
    int64_t n = 0;
    while ((*reader)->Next(&r)) ++n;
    ASSERT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
    records += n;
    token_lines += (*reader)->token_lines();
    std::string org = std::next(rel.begin())->string();
    std::string benchmark = rel.parent_path().filename().string();
    if (n == 0) {
      // Alibaba's v0.6 logs use their own "MLPerf: resnet [date], key: value"
      // lines: no MLPerf line at all, and nothing to misread.
      EXPECT_EQ(org, "Alibaba") << rel;
      ++with_no_records;
    }
    for (const LineError& e : (*reader)->errors()) {
      // Only Intel's v0.6 MiniGo logs have unparsable MLPerf lines: metadata
      // written as Python dicts (single-quoted or bare keys), and a few lines
      // where other output was interleaved into an MLPerf line.
      ASSERT_TRUE(org == "Intel" && benchmark == "minigo")
          << rel << ":" << e.file_line << ": " << e.message << "\n  " << e.text;
      if (e.message.find("JSON") != std::string::npos) {
        ++python_dicts;
      } else {
        EXPECT_NE(e.text.find("iteration time"), std::string::npos) << rel << ":" << e.file_line;
        ++interleaved;
      }
    }
  }
  EXPECT_EQ(with_no_records, 5);
  EXPECT_EQ(interleaved, 2);
  // Every line holding a token is either a record or a reported error.
  EXPECT_EQ(token_lines, 49174);
  EXPECT_EQ(records + python_dicts + interleaved, token_lines);
  EXPECT_EQ(records, 44907);
}

void ExpectSameRecords(const std::vector<Record>& a, const std::vector<Record>& b, const fs::path& rel) {
  ASSERT_EQ(a.size(), b.size()) << rel;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].key, b[i].key) << rel << " record " << i;
    ASSERT_EQ(a[i].timestamp, b[i].timestamp) << rel << " record " << i;
    ASSERT_EQ(a[i].index, b[i].index) << rel << " record " << i;
    ASSERT_TRUE(a[i].value == b[i].value) << rel << " record " << i << ": " << a[i].value.ToJson()
                                          << " vs " << b[i].value.ToJson();
    ASSERT_EQ(a[i].value.ToJson(), b[i].value.ToJson()) << rel << " record " << i;
    ASSERT_EQ(a[i].event_type, b[i].event_type) << rel;
    ASSERT_EQ(a[i].ns, b[i].ns) << rel;
  }
}

TEST(FixtureLogsTest, WritingRecordsBackReadsTheSameRecords) {
  PODBENCH_REQUIRE_SHARED(shared);
  fs::path root = shared / "fixtures" / "logs";
  for (const fs::path& rel : FixtureLogs(root)) {
    Format f = FormatOfRound(rel);
    std::vector<LineError> errors;
    auto recs = ReadLog(root / rel, f, &errors);
    ASSERT_TRUE(recs.ok());
    std::ostringstream out;
    LogWriter w(out, f);
    for (const Record& r : *recs) ASSERT_TRUE(w.WriteRecord(r).ok()) << rel;
    auto back = LogReader::FromString(out.str(), f, rel.string());
    std::vector<Record> again;
    Record r;
    while (back->Next(&r)) again.push_back(r);
    EXPECT_TRUE(back->errors().empty()) << rel << ": " << back->errors().front().message;
    // Indices are renumbered by the rewrite when unparsable lines were dropped.
    if (errors.empty()) {
      ExpectSameRecords(*recs, again, rel);
    } else {
      ASSERT_EQ(again.size(), recs->size()) << rel;
      for (size_t i = 0; i < again.size(); ++i) again[i].index = (*recs)[i].index;
      ExpectSameRecords(*recs, again, rel);
    }
  }
}

}  // namespace
}  // namespace podbench::mllog
