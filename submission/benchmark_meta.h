// Facts about MLPerf rule sets the official package checker keeps in
// mlperf_logging/benchmark_meta.py (read at 4.1.59, restated here): which
// benchmarks each rule set allows and how many result files each needs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace podbench::submission {

// A rule set version "X.Y.Z" (all three numbers required).
struct RulesetVersion {
  int major = 0, minor = 0, patch = 0;
  bool AtLeast(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};
// InvalidArgument naming `ruleset` when it is not three dot-separated numbers.
Result<RulesetVersion> ParseRuleset(const std::string& ruleset);

// The benchmarks `usage` ("training" or "hpc") allows at `ruleset` (looked up as
// "X.Y"). NotFound naming the usage and rule set when neither is known.
Result<std::vector<std::string>> AllowedBenchmarks(const std::string& usage, const std::string& ruleset);

// How many result files a benchmark needs (for weak scaling: at least this
// many). nullopt when the table has no entry: the caller reports it.
std::optional<int> ResultFileCount(const std::string& usage, const std::string& benchmark);

// How many failing logs a benchmark folder may hold and still be accepted
// under olympic scoring: 4 for unet3d, else 1.
int AllowedFailingLogs(const std::string& benchmark);

// Whether the package checker runs the seed and RCP checks at `ruleset`
// (closed division only): 1.0.0 and later.
bool RunsSeedAndRcpChecks(const RulesetVersion& v);

}  // namespace podbench::submission
