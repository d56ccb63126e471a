// The scaling table of one workload: per slice, from the stored projected
// runs, what podbench predicts, next to Google's published v0.6 score.
#pragma once

#include <map>
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
  std::string preset;                 // the runs' preset ("" = none)
  // "" for a row of the table proper (plain runs, run_variant.h); else what
  // sets the row's runs apart, e.g. "set allreduce=ring" or "build 0123abcd45".
  std::string variant;
  std::string build;                  // ShortBuild() of the runs' git hash
  std::vector<int64_t> run_ids;       // the runs behind the row, ascending
  int64_t runs = 0;                   // complete projected runs used
  std::optional<int64_t> global_batch;  // of the latest run
  std::optional<double> step_time_s;    // median over runs
  std::optional<double> throughput;     // median, examples per emulated second
  std::optional<double> predicted_min;  // v0.6 score of the runs (olympic mean; aborted = slowest)
  // Throughput per chip relative to the smallest slice in the table.
  std::optional<double> parallel_efficiency;
  std::optional<double> published_min;  // Google's v0.6 score
  std::optional<double> error_pct;      // (predicted - published) / published * 100
  // Median over runs of each run's median emulated seconds between
  // consecutive evaluations (a training block plus its evaluation), next to
  // the same figure from Google's logs.
  std::optional<double> block_s;
  std::optional<double> published_block_s;
  std::optional<double> block_error_pct;
  // Seconds per training step by category (steps = 1; evaluation_s 0): the
  // runs' stored breakdowns summed and divided by their steps.
  std::optional<StepBreakdown> per_step;
};

struct ScalingOptions {
  std::string preset;  // non-empty: only runs of this preset, and list every published slice
};

// A workload's scaling table and the runs kept out of it.
struct ScalingTable {
  std::string workload;
  std::string preset;  // ScalingOptions::preset
  // One row per slice (and preset, without one): the slice's PLAIN runs
  // (run_variant.h: no --set, the built-in system) of one build, the build
  // of the newest of them; with a preset, also every slice Google published
  // without runs. Ordered by chips. Only these carry the published figures
  // and the parallel efficiency.
  std::vector<ScalingRow> rows;
  // Every other group of the selected runs, one row per (slice, preset,
  // variant), `variant` naming what differs: overrides, another system, an
  // older build. Ordered by variant, then chips.
  std::vector<ScalingRow> others;
  // What the rows are made of, in one sentence, for the text output.
  std::string RowsAre() const;
};

// `runs` are the workload's runs (any mode; only complete, compliant
// projected ones are used); `evals` holds their evaluations by run id (a run
// without an entry gives no block time); `breakdowns` their step breakdowns
// (a row without any gives no per_step).
ScalingTable BuildScalingTable(const std::string& workload, const std::vector<RunRecord>& runs,
                               const std::map<int64_t, std::vector<EvalRecord>>& evals,
                               const ScalingOptions& options,
                               const std::map<int64_t, StepBreakdown>& breakdowns = {});

// BuildScalingTable over the store: the workload's runs (only those in
// `only_ids` when it is non-empty), their evaluations and step breakdowns.
Result<ScalingTable> ScalingFromStore(ResultsStore& store, const std::string& workload,
                                      const ScalingOptions& options,
                                      const std::vector<int64_t>& only_ids = {});

// "1-5,7,9-10": ascending ids with runs of consecutive ones collapsed.
std::string IdRanges(const std::vector<int64_t>& ids);

// How far predictions are from the published values, over rows that have both.
struct ErrorSummary {
  int64_t n = 0;                         // rows with a prediction and a published value
  std::optional<double> median_abs_pct;  // median of |error_pct|
  std::optional<double> worst_pct;       // the error_pct of largest magnitude, signed
};
struct Fidelity {
  ErrorSummary score;  // of error_pct (time to train)
  ErrorSummary block;  // of block_error_pct
};
Fidelity SummarizeFidelity(const std::vector<ScalingRow>& rows);
nlohmann::json FidelityToJson(const Fidelity& f);

// Median emulated seconds between consecutive evaluations (an evaluation is
// one epoch's records, at its earliest timestamp), the gap to the run's last
// evaluation left out when there are at least two: that result ends the run
// after its host scoring in full, while the others are logged when the
// device is done (their scoring overlaps the next block). Google's logs,
// whose every result waits for its scoring, carry the same lag in every
// gap, so their median is a block and its exposed evaluation; so is this.
// nullopt with fewer than 2 evaluations.
std::optional<double> MedianEvalGapS(const std::vector<EvalRecord>& evals);

// The v0.6 score in minutes: drop the fastest and the slowest when there are
// at least 3 runs, mean of the rest; aborted runs (nullopt) count as the
// slowest. nullopt when no score can be formed.
std::optional<double> OlympicMeanMinutes(const std::vector<std::optional<double>>& ttt_s);

// One row as JSON (run_ids included); the table as one object:
// {workload, preset, rows_are, rows: [...], other_rows: [...]}.
nlohmann::json ScalingRowToJson(const ScalingRow& r);
nlohmann::json ScalingToJson(const ScalingTable& t);
// The table, what its rows are made of, the step by category, then the
// other rows under their own heading.
void WriteScalingText(std::ostream& out, const ScalingTable& t);
// One CSV table: the rows, then the other rows (a non-empty `variant`).
void WriteScalingCsv(std::ostream& out, const ScalingTable& t);

}  // namespace podbench::results
