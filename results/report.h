// A summary of saved runs, grouped by workload, slice, mode, preset, variant
// (run_variant.h: --set overrides, system file) and label: what `podbench
// report` prints. A preset's plain runs never share a row with its ablations.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/store.h"

namespace podbench::results {

struct ReportGroup {
  std::string workload, slice, mode, label;
  std::string preset;   // "" = none
  std::string variant;  // RunVariant::Describe(); "" for plain runs
  std::vector<int64_t> run_ids;  // in run order
  int64_t chips = 0;
  int64_t runs = 0, success = 0, aborted = 0, unfinished = 0;
  int64_t noncompliant = 0;  // their logs fail the MLPerf rules: not scored
  std::optional<double> score_min;         // v0.6 score of the complete runs
  std::optional<double> median_step_time_s;
  std::vector<std::string> git_hashes;     // distinct, in run order
};

// Groups in order of first appearance of (workload, slice, mode, preset, variant, label).
std::vector<ReportGroup> BuildReport(const std::vector<RunRecord>& runs);
nlohmann::json ReportToJson(const std::vector<ReportGroup>& groups);
void WriteReportText(std::ostream& out, const std::vector<ReportGroup>& groups);

}  // namespace podbench::results
