// Benchmark sets: the repetitions of each benchmark, by name, as `podbench
// compare` gates them. They come from the results store (`podbench bench
// --label NAME --db FILE`) or from Google Benchmark JSON files
// (`--benchmark_format=json --benchmark_repetitions=N`, or `podbench bench
// --format json --repetitions N`), as Google Benchmark's compare.py reads them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "results/store.h"

namespace podbench::results {

struct BenchSamples {
  // Google Benchmark's run name without how it was measured (no
  // "min_time:", "min_warmup_time:" or "repeats:" components), e.g.
  // "BM_gemm/512/threads:1/real_time".
  std::string name;
  std::vector<BenchRepetition> repetitions;  // times in ns
  // True when the source had no single repetitions for this benchmark, only a
  // median aggregate (Google Benchmark's ReportAggregatesOnly): one value.
  bool median_only = false;
};

// The benchmarks of a Google Benchmark JSON report, in order of first
// appearance: every repetition (run_type "iteration", or no run_type as in
// old versions) of each run name, times converted from `time_unit` to ns.
// Aggregates are skipped unless a benchmark has only a median aggregate.
// Runs that report error_occurred are left out; when `errored` is given, it
// receives each such run name once (in the same form as BenchSamples::name)
// with its error_message, even when the result is an error. InvalidArgument
// naming `source` when the text is not JSON, not such a report, holds no
// result, or gives a repetition or median a real_time that is not a finite
// positive time (naming the benchmark).
Result<std::vector<BenchSamples>> ParseGoogleBenchmarkJson(
    std::string_view text, const std::string& source,
    std::vector<std::pair<std::string, std::string>>* errored = nullptr);

// Stored benchmarks grouped by KernelBenchRecord::Key(), in order of first
// appearance; repetitions of several invocations are pooled. A row without
// repetitions (saved before schema version 4) gives its median, marked
// median_only.
std::vector<BenchSamples> SamplesFromRecords(const std::vector<KernelBenchRecord>& records);

}  // namespace podbench::results
