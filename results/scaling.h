// The scaling table of one workload: per slice, from the stored projected
// runs, what podbench predicts, next to Google's published v0.6 score.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "results/store.h"

namespace podbench::results {

struct ScalingRow {
  std::string slice;
  int64_t chips = 0;
  int64_t runs = 0;                   // complete projected runs used
  std::optional<int64_t> global_batch;  // of the latest run
  std::optional<double> step_time_s;    // median over runs
  std::optional<double> throughput;     // median, examples per emulated second
  std::optional<double> predicted_min;  // v0.6 score of the runs (olympic mean; aborted = slowest)
  // Throughput per chip relative to the smallest slice in the table.
  std::optional<double> parallel_efficiency;
  std::optional<double> published_min;  // Google's v0.6 score
  std::optional<double> error_pct;      // (predicted - published) / published * 100
};

struct ScalingOptions {
  std::string preset;  // non-empty: only runs of this preset, and list every published slice
};

// Rows ordered by chips. `runs` are the workload's runs (any mode; only
// complete projected ones are used).
std::vector<ScalingRow> BuildScalingTable(const std::string& workload,
                                          const std::vector<RunRecord>& runs,
                                          const ScalingOptions& options);

// The v0.6 score in minutes: drop the fastest and the slowest when there are
// at least 3 runs, mean of the rest; aborted runs (nullopt) count as the
// slowest. nullopt when no score can be formed.
std::optional<double> OlympicMeanMinutes(const std::vector<std::optional<double>>& ttt_s);

nlohmann::json ScalingToJson(const std::vector<ScalingRow>& rows);
void WriteScalingText(std::ostream& out, const std::string& workload,
                      const std::vector<ScalingRow>& rows);
void WriteScalingCsv(std::ostream& out, const std::vector<ScalingRow>& rows);

}  // namespace podbench::results
