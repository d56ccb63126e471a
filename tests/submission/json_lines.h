// Reading the JSON-lines records the official tools' outputs are kept in
// (tests/submission/data/*.jsonl, ../shared/fixtures/parity/expected/*.jsonl),
// and splitting captured text into lines, for the submission tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace podbench::testing {

// Every non-empty line of `path` parsed as JSON, in file order. A missing
// file is a test failure naming it (and an empty result); a line that is not
// JSON throws nlohmann::json::parse_error, which gtest reports.
inline std::vector<nlohmann::json> ReadJsonLines(const std::filesystem::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

// `text` split at '\n' (no trailing empty line).
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace podbench::testing
