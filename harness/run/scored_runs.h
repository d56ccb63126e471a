// A scored set of runs: what `podbench run` makes, and `podbench reproduce`
// per workload and slice. Run i uses seed base_seed + i, is recorded in the
// results store (with its quality targets), writes its :::MLL log when the
// settings name one, and that log is checked with podbench's v0.6 rules
// before the run counts.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "harness/run/lifecycle.h"
#include "harness/run/settings.h"
#include "results/store.h"

namespace podbench::harness {

enum class LogVerdict {
  kNotWritten,  // no --log
  kPass,        // passes podbench's v0.6 rules
  kFail,        // fails them (log_message lists the failures)
  kNotCovered,  // the workload is not an MLPerf benchmark (log_message says so)
};

struct CompletedRun {
  int index = 0;  // 0-based within the set
  int64_t id = 0; // in the results store
  uint64_t seed = 0;
  std::string log_path;  // empty when no log was written
  RunSummary summary;
  LogVerdict log_verdict = LogVerdict::kNotWritten;
  std::string log_message;
};

// "passes the v0.6 rules", "FAILS the v0.6 rules: ...", "not checked".
std::string LogVerdictText(const CompletedRun& run);

struct ScoredSet {
  std::vector<CompletedRun> runs;
  std::optional<double> score_min;  // the v0.6 score (results::OlympicMeanMinutes)
  bool any_log_failed = false;
};

struct ScoredSetOptions {
  // Where a progress bar is drawn (a terminal), or null for none.
  std::ostream* progress = nullptr;
  std::string progress_prefix;  // e.g. "[2/6] resnet tpu-v3-128 "
  // Called after each run, once its log is checked.
  std::function<void(const CompletedRun&)> on_run;
};

// Makes settings.runs runs into `store`. Errors of the store, the log file or
// the workload stop the set (the error names the run); a log that fails the
// rules does not (any_log_failed).
Result<ScoredSet> RunScoredSet(const EffectiveRunSettings& settings, results::ResultsStore& store,
                               const ScoredSetOptions& options);

}  // namespace podbench::harness
