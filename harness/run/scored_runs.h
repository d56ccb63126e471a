// A scored set of runs: what `podbench run` makes, and `podbench reproduce`
// per workload and slice. Run i uses seed base_seed + i, is recorded in the
// results store (with its quality targets), writes its MLPerf log when the
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

struct CompletedRun {
  int index = 0;  // 0-based within the set
  int64_t id = 0; // in the results store
  uint64_t seed = 0;
  std::string log_path;  // empty when the log was kept in memory only
  RunSummary summary;
  // Checked, then counted (harness/run/log_check.h RunVerdict): "success",
  // "aborted" or "noncompliant", as stored.
  std::string status;
  // What the rule check found: "passes the v0.6 rules", "FAILS the v0.6
  // rules: ...", "not checked".
  std::string log_check;
  // Non-empty when no rules cover the workload's log (the toy): why.
  std::string not_checked_note;
};

struct ScoredSet {
  std::vector<CompletedRun> runs;
  // The v0.6 score (results::OlympicMeanMinutes) of the runs that are not
  // non-compliant; aborted runs count as the slowest.
  std::optional<double> score_min;
  int aborted = 0;       // runs that did not reach the target
  int noncompliant = 0;  // runs whose log fails the rules
  // A negative verdict: `podbench run` and `reproduce` exit 1.
  bool any_failed() const { return aborted + noncompliant > 0; }
};

struct ScoredSetOptions {
  // Where a progress bar is drawn (a terminal), or null for none.
  std::ostream* progress = nullptr;
  std::string progress_prefix;  // e.g. "[2/6] resnet tpu-v3-128 "
  // Called after each run, once its log is checked.
  std::function<void(const CompletedRun&)> on_run;
};

// Makes settings.runs runs into `store`. Every run's log (settings.log_format;
// in memory when settings name no file) is checked with podbench's v0.6
// rules before the run's outcome is stored: checked, then counted. Errors of
// the store, the log file or the workload stop the set (the error names the
// run; the runs before it are complete in the store, the failing one stays
// incomplete with what it logged); an aborted or non-compliant run does not.
Result<ScoredSet> RunScoredSet(const EffectiveRunSettings& settings, results::ResultsStore& store,
                               const ScoredSetOptions& options);

}  // namespace podbench::harness
