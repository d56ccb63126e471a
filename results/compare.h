// Comparing two run sets or two benchmark sets: the CI regression gate behind
// `podbench compare`.
//
// For every metric (or benchmark), the values of the runs in each set
// (repetitions; a benchmark's repetitions, real time) are compared by their
// medians and by a two-sided Mann-Whitney U test (utest.h). A row is
// TESTED when the sets are large enough for the test to reach alpha at all
// (MinimumPValue(n1, n2) < alpha: 4 runs a side at 0.05, or 3 against 5, 2
// against 8). Its verdict:
//   REGRESSION                    tested, worse than the baseline by more than
//                                 max_regression_pct (median to median) and
//                                 significant (p < alpha);
//   over threshold, not tested    worse by more than the threshold, but too
//                                 few runs for the test: nothing says whether
//                                 the difference is noise;
//   improved                      tested, better, significant;
//   ok                            tested otherwise;
//   within threshold, not tested  untested, within the threshold;
//   no data                       a side has no value.
// The gate fails on any REGRESSION, and on any "over threshold, not tested"
// row unless CompareOptions::untested is kPass. Values are compared at 12
// significant digits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/bench_samples.h"
#include "results/store.h"
#include "results/utest.h"

namespace podbench::results {

// A metric a run carries. Names: time_to_train (emulated clock, s),
// step_time (emulated s), throughput (examples per emulated s, higher is
// better), host_time (time to train on the host clock, s).
struct MetricDef {
  std::string name;
  std::string unit;
  bool lower_is_better = true;
  bool success_only = false;  // only runs that reached the target carry it
  std::optional<double> (*get)(const RunRecord&) = nullptr;
};

// The known metrics, by name; NotFound (listing the names) for others.
Result<MetricDef> FindMetric(const std::string& name);
std::vector<std::string> MetricNames();

// What the gate does with a row over the threshold that could not be tested.
enum class UntestedPolicy {
  kFail,  // the gate fails (the default: too little evidence is not a pass)
  kPass,  // the gate passes, and its verdict line counts such rows
};

struct CompareOptions {
  double max_regression_pct = 5.0;
  double alpha = 0.05;  // REQUIRES: 0 < alpha < 1
  UntestedPolicy untested = UntestedPolicy::kFail;
  std::vector<std::string> metrics = {"time_to_train", "step_time", "throughput"};
};

// A row's verdict (see the top of this file).
enum class RowVerdict { kNoData, kOk, kImproved, kRegression, kOverThresholdUntested, kWithinThresholdUntested };

// "no data", "ok", "improved", "REGRESSION", "over threshold, not tested",
// "within threshold, not tested".
const char* RowVerdictText(RowVerdict v);

struct MetricComparison {
  MetricDef metric;
  std::vector<double> base, cand;
  // For run sets, the run each value of `base` / `cand` came from (parallel
  // to them); empty for benchmark sets.
  std::vector<int64_t> base_run_ids, cand_run_ids;
  double base_median = 0, cand_median = 0;
  // Positive = the candidate is worse, in percent of the baseline median.
  double worse_pct = 0;
  std::optional<UTestResult> utest;  // present exactly when the row is tested
  bool significant = false;          // tested and p < alpha
  RowVerdict verdict = RowVerdict::kNoData;
  bool fails_gate = false;  // REGRESSION, or over threshold, not tested under UntestedPolicy::kFail
  std::string note;         // why the row is not tested, runs excluded, ...

  bool tested() const { return utest.has_value(); }
};

// The gate's verdict over all rows.
enum class GateVerdict {
  kPass,
  kFailSignificant,  // some row is a REGRESSION
  kFailUntested,     // no REGRESSION, but a row over the threshold was not tested (UntestedPolicy::kFail)
};

struct Comparison {
  std::vector<MetricComparison> metrics;     // of run sets
  std::vector<MetricComparison> benchmarks;  // of benchmark sets, one per benchmark
  // Any row that is a REGRESSION (tested).
  bool regression() const;
  // Rows over the threshold that were not tested, failing the gate or not.
  int untested_over_threshold() const;
  GateVerdict verdict() const;  // from the rows' fails_gate and verdicts
  bool pass() const { return verdict() == GateVerdict::kPass; }
};

// "PASS", "FAIL: significant regression", "FAIL: over threshold, not tested".
const char* GateVerdictText(GateVerdict v);

// Why a row of n1 against n2 runs (a benchmark's repetitions are its runs) is
// not tested at `alpha`, e.g. "3 runs a side; the U test needs 4 a side at
// alpha 0.05" or "3 against 2 runs; the U test needs 4 a side at alpha 0.05,
// or 8 against 2".
std::string UntestedReason(int n1, int n2, double alpha);

// The gate's last line: GateVerdictText, the threshold and alpha, and, when
// rows over the threshold were not tested, how many and why, e.g.
//   PASS (threshold 5% worse, alpha 0.05)
//   FAIL: significant regression (threshold 5% worse, alpha 0.05)
//   FAIL: over threshold, not tested (3 runs a side; the U test needs 4 a side at alpha 0.05; threshold 5% worse)
// and, after the first two, "; also 2 rows over threshold, not tested (...)"
// or "; 2 rows over threshold, not tested, pass under --untested pass (...)".
std::string GateSummary(const Comparison& c, const CompareOptions& options);

// The gate's rule applied to one metric's values in each set: medians,
// worse_pct, the U test when the sizes allow it, the verdict and whether it
// fails the gate. Empty sides give a row with a note. REQUIRES: 0 < alpha < 1.
MetricComparison CompareSamples(const MetricDef& metric, std::vector<double> base,
                                std::vector<double> cand, const CompareOptions& options);

// Compares complete runs of `base` with complete runs of `cand` (unfinished
// runs are ignored; aborted runs count for per-step metrics only).
// InvalidArgument when a metric is unknown, max_regression_pct is negative,
// alpha is not in (0, 1), a set mixes workloads, slices or modes, or the two
// sets are of different workloads or modes (their slices may differ).
Result<Comparison> Compare(const std::vector<RunRecord>& base, const std::vector<RunRecord>& cand,
                           const CompareOptions& options);

// Compares benchmark sets benchmark by benchmark (real time, lower is
// better), filling Comparison::benchmarks in the baseline's order; a
// benchmark in one set only gets a row with a note and is not gated.
// InvalidArgument when the sets have no benchmark in common,
// max_regression_pct is negative or alpha is not in (0, 1).
Result<Comparison> CompareBenchmarks(const std::vector<BenchSamples>& base,
                                     const std::vector<BenchSamples>& cand,
                                     const CompareOptions& options);

}  // namespace podbench::results
