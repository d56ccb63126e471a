// Text, JSON and CSV renderings of stored runs and comparisons, used by
// `podbench runs`, `show` and `compare`. JSON is built with nlohmann::json;
// CSV follows RFC 4180 (fields with commas, quotes or newlines are quoted).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/compare.h"
#include "results/store.h"

namespace podbench::results {

// One run as a JSON object: id, label, workload, slice, cores, chips, mode,
// preset, seed, global_batch, git_hash, host, state (RunState), started_at,
// finished_at, ttt_emulated_s, ttt_emulated_min, ttt_host_s, step_time_s,
// throughput, epochs, log_path, hyperparameters (object), flags (object),
// model {name, parameters, train_flops_per_example}, data {name,
// train_examples, eval_examples}, parallel_layout {replicas,
// cores_per_replica, split, weight_update_sharding, bn_group, gradient_dtype,
// allreduce}. Absent measurements, and the last three for runs stored before
// schema version 2, are null.
nlohmann::json RunToJson(const RunRecord& r);

void WriteRunsText(std::ostream& out, const std::vector<RunRecord>& runs);
void WriteRunsCsv(std::ostream& out, const std::vector<RunRecord>& runs);

struct RunDetail {
  RunRecord run;
  std::vector<EvalRecord> evals;
  std::optional<StepBreakdown> breakdown;
  int64_t events = 0;
  // Non-empty when the eval values are modelled, not computed (projected
  // mode): how they are made, as the log's eval_accuracy metadata says.
  std::string evals_modelled;
};
nlohmann::json RunDetailToJson(const RunDetail& d);
void WriteRunDetailText(std::ostream& out, const RunDetail& d);

// One JSON document: {"max_regression_pct", "alpha", "untested" ("fail" or
// "pass": CompareOptions::untested), "min_runs_per_side" (MinimumRunsPerSide
// at alpha; 0: none), "verdict" (GateVerdictText), "pass" (bool: the gate's
// outcome), "regression" (bool: some row is a REGRESSION), "untested_over_threshold"
// (count of rows), "summary" (GateSummary, the text's last line), "metrics": [...],
// "benchmarks": [...]}; every row: metric (the benchmark's name for
// benchmarks), unit, lower_is_better, base, cand, base_median, cand_median,
// worse_pct, tested (bool), p_value (null when not tested), exact (null when
// not tested), significant, verdict (RowVerdictText), regression (verdict is
// REGRESSION), fails_gate, note.
nlohmann::json ComparisonToJson(const Comparison& c, const CompareOptions& o);
// One row per metric or benchmark (n_b, n_c, medians, worse%, p or "-" when
// not tested, verdict and note), then GateSummary.
void WriteComparisonText(std::ostream& out, const Comparison& c, const CompareOptions& o);
// CSV rows of both kinds; the first column says which: run or benchmark.
// Columns: kind, metric, n_base, n_cand, base_median, cand_median, worse_pct,
// p_value (empty when not tested), significant, regression, tested, verdict,
// fails_gate, note.
void WriteComparisonCsv(std::ostream& out, const Comparison& c);

// Quotes `field` for CSV when needed.
std::string CsvField(const std::string& field);

}  // namespace podbench::results
