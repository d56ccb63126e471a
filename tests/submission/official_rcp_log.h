// Comparing podbench's RCP verdict with what the official rcp_checker logged
// on the same folder (recorded in ../shared/fixtures/parity/expected and in
// tests/submission/data): shared by rcp_test.cc and trees_test.cc.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "submission/pynum.h"
#include "submission/rcp.h"

namespace podbench::testing {

// The runs of a benchmark folder as the official rcp_checker reads them: its
// result_*.txt files in name order.
inline std::vector<submission::RunConvergence> ReadFolderRuns(const std::filesystem::path& dir, const std::string& ruleset) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("result_", 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == ".txt") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<submission::RunConvergence> runs;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    runs.push_back(submission::ReadRunConvergence(ss.str(), ruleset, false));
  }
  return runs;
}

// The official log's "'Name': number" field of the RCP record line.
// (A scan, not <regex>: GCC 12's <regex> trips -Wmaybe-uninitialized in the
// sanitizer build.)
inline std::optional<std::string> RcpLogField(const std::string& log, const std::string& name) {
  const std::string key = "'" + name + "': ";
  for (size_t at = log.find(key); at != std::string::npos; at = log.find(key, at + 1)) {
    const size_t begin = at + key.size();
    const size_t end = log.find_first_not_of("-0123456789.e+", begin);
    if (end != begin) return log.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }
  return std::nullopt;
}

// Expects the verdict's message, submission mean, RCP record statistics and
// normalization factor to be the ones the official log (its stderr) prints.
// For a verdict compared against an RCP record only.
inline void ExpectRcpMatchesOfficialLog(const submission::RcpVerdict& v, const std::string& log) {
  EXPECT_NE(log.find(v.message + ", RCP test"), std::string::npos) << v.message;
  ASSERT_TRUE(v.record.has_value());
  ASSERT_TRUE(v.submission_mean.has_value());
  // podbench's own log line, as the official one (Python's "%.4f").
  const std::string mean_tag = "INFO -  Submission mean epochs: ";
  bool mean_logged = false;
  for (const auto& l : v.log) {
    if (l.rfind(mean_tag, 0) != 0) continue;
    mean_logged = true;
    EXPECT_NE(log.find(l + "\n"), std::string::npos) << l;
  }
  EXPECT_TRUE(mean_logged);
  EXPECT_EQ(RcpLogField(log, "RCP Mean").value_or("?"), submission::PyRepr(v.record->mean));
  EXPECT_EQ(RcpLogField(log, "RCP Stdev").value_or("?"), submission::PyRepr(v.record->stdev));
  EXPECT_EQ(RcpLogField(log, "Min Epochs").value_or("?"), submission::PyRepr(v.record->min_epochs));
  EXPECT_EQ(RcpLogField(log, "Max Speedup").value_or("?"), submission::PyRepr(v.record->max_speedup));
  const size_t norm = log.find("Score should be normalized by factor of ");
  if (norm != std::string::npos) {
    const size_t eq = log.find(" = ", norm);
    EXPECT_EQ(log.substr(eq + 3, log.find('\n', eq) - eq - 3), submission::PyRepr(v.norm_factor));
  } else if (v.pass) {
    EXPECT_EQ(v.norm_factor, 1.0);
  }
}

}  // namespace podbench::testing
