// Comparing two run sets or two benchmark sets: the CI regression gate behind
// `podbench compare`.
//
// For every metric (or benchmark), the values of the runs in each set
// (repetitions; a benchmark's repetitions, real time) are
// compared by their medians and by a two-sided Mann-Whitney U test (utest.h).
// A metric REGRESSES when the candidate is worse than the baseline by more
// than `max_regression_pct` (median to median) AND the U test finds the
// difference significant (p < alpha). When the sets are too small for the
// exact test ever to reach alpha (fewer than 4 runs on each side at 0.05),
// the threshold alone decides and the row says so. Values are compared at 12
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

struct CompareOptions {
  double max_regression_pct = 5.0;
  double alpha = 0.05;
  std::vector<std::string> metrics = {"time_to_train", "step_time", "throughput"};
};

struct MetricComparison {
  MetricDef metric;
  std::vector<double> base, cand;
  double base_median = 0, cand_median = 0;
  // Positive = the candidate is worse, in percent of the baseline median.
  double worse_pct = 0;
  std::optional<UTestResult> utest;  // absent when the test cannot reach alpha
  bool significant = false;
  bool regression = false;
  std::string note;  // why the test was skipped, runs excluded, ...
};

struct Comparison {
  std::vector<MetricComparison> metrics;     // of run sets
  std::vector<MetricComparison> benchmarks;  // of benchmark sets, one per benchmark
  bool regression() const;  // any metric or benchmark regresses
};

// The gate's rule applied to one metric's values in each set: medians,
// worse_pct, the U test (or the threshold alone, with a note, when the sets
// are too small) and the verdict. Empty sides give a row with a note.
MetricComparison CompareSamples(const MetricDef& metric, std::vector<double> base,
                                std::vector<double> cand, const CompareOptions& options);

// Compares complete runs of `base` with complete runs of `cand` (unfinished
// runs are ignored; aborted runs count for per-step metrics only).
// InvalidArgument when a set has no usable run or a metric is unknown.
Result<Comparison> Compare(const std::vector<RunRecord>& base, const std::vector<RunRecord>& cand,
                           const CompareOptions& options);

// Compares benchmark sets benchmark by benchmark (real time, lower is
// better), filling Comparison::benchmarks in the baseline's order; a
// benchmark in one set only gets a row with a note and is not gated.
// InvalidArgument when the sets have no benchmark in common or
// max_regression_pct is negative.
Result<Comparison> CompareBenchmarks(const std::vector<BenchSamples>& base,
                                     const std::vector<BenchSamples>& cand,
                                     const CompareOptions& options);

}  // namespace podbench::results
