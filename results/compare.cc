#include "results/compare.h"

#include <algorithm>
#include <cmath>

#include "base/stats.h"

namespace podbench::results {
namespace {

const std::vector<MetricDef>& Metrics() {
  static const std::vector<MetricDef> kMetrics = {
      {"time_to_train", "s", true, true,
       [](const RunRecord& r) { return r.outcome.ttt_emulated_s; }},
      {"step_time", "s", true, false, [](const RunRecord& r) { return r.outcome.step_time_s; }},
      {"throughput", "ex/s", false, false,
       [](const RunRecord& r) { return r.outcome.throughput; }},
      {"host_time", "s", true, true, [](const RunRecord& r) { return r.outcome.ttt_host_s; }},
  };
  return kMetrics;
}

// Rounds to 12 significant digits, so last-bit differences of arithmetic
// (a mean over 384 steps vs over 768) are ties, not evidence.
double Significant(double v) {
  if (v == 0) return 0;
  double scale = std::pow(10.0, 11 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

std::vector<double> Values(const std::vector<RunRecord>& runs, const MetricDef& m) {
  std::vector<double> out;
  for (const RunRecord& r : runs) {
    if (!r.complete || r.status == "noncompliant") continue;  // recorded, never scored
    if (m.success_only && r.status != "success") continue;
    if (auto v = m.get(r); v && std::isfinite(*v)) out.push_back(Significant(*v));
  }
  return out;
}

}  // namespace

std::vector<std::string> MetricNames() {
  std::vector<std::string> names;
  for (const MetricDef& m : Metrics()) names.push_back(m.name);
  return names;
}

Result<MetricDef> FindMetric(const std::string& name) {
  for (const MetricDef& m : Metrics()) {
    if (m.name == name) return m;
  }
  std::string known;
  for (const auto& n : MetricNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("unknown metric '" + name + "' (known: " + known + ")");
}

bool Comparison::regression() const {
  auto regressed = [](const MetricComparison& m) { return m.regression; };
  return std::any_of(metrics.begin(), metrics.end(), regressed) ||
         std::any_of(benchmarks.begin(), benchmarks.end(), regressed);
}

MetricComparison CompareSamples(const MetricDef& metric, std::vector<double> base,
                                std::vector<double> cand, const CompareOptions& options) {
  MetricComparison mc;
  mc.metric = metric;
  mc.base = std::move(base);
  mc.cand = std::move(cand);
  if (mc.base.empty() || mc.cand.empty()) {
    mc.note = std::string("no ") + (mc.base.empty() ? "baseline" : "candidate") +
              " run or repetition carries this metric";
    return mc;
  }
  mc.base_median = Median(mc.base);
  mc.cand_median = Median(mc.cand);
  double delta = mc.base_median != 0 ? (mc.cand_median - mc.base_median) / mc.base_median * 100
                                     : 0;
  mc.worse_pct = metric.lower_is_better ? delta : -delta;
  const bool beyond = mc.worse_pct > options.max_regression_pct;
  const int n1 = static_cast<int>(mc.base.size()), n2 = static_cast<int>(mc.cand.size());
  if (MinimumExactPValue(n1, n2) >= options.alpha) {
    mc.note = "too few repetitions for a significance test (" + std::to_string(n1) + " vs " +
              std::to_string(n2) + "); the threshold alone decides";
    mc.regression = beyond;
  } else {
    mc.utest = MannWhitneyU(mc.base, mc.cand);
    mc.significant = mc.utest->p_value < options.alpha;
    mc.regression = beyond && mc.significant;
  }
  return mc;
}

Result<Comparison> Compare(const std::vector<RunRecord>& base, const std::vector<RunRecord>& cand,
                           const CompareOptions& options) {
  if (!(options.max_regression_pct >= 0)) {
    return Status::InvalidArgument("--max-regression must be a percentage >= 0");
  }
  Comparison out;
  for (const std::string& name : options.metrics) {
    PODBENCH_ASSIGN_OR_RETURN(MetricDef def, FindMetric(name));
    out.metrics.push_back(CompareSamples(def, Values(base, def), Values(cand, def), options));
  }
  return out;
}

Result<Comparison> CompareBenchmarks(const std::vector<BenchSamples>& base,
                                     const std::vector<BenchSamples>& cand,
                                     const CompareOptions& options) {
  if (!(options.max_regression_pct >= 0)) {
    return Status::InvalidArgument("--max-regression must be a percentage >= 0");
  }
  auto real_times = [](const BenchSamples& b) {
    std::vector<double> v;
    for (const BenchRepetition& r : b.repetitions) v.push_back(Significant(r.real_time_ns));
    return v;
  };
  auto find = [](const std::vector<BenchSamples>& set, const std::string& name) {
    auto it = std::find_if(set.begin(), set.end(),
                           [&](const BenchSamples& b) { return b.name == name; });
    return it == set.end() ? nullptr : &*it;
  };
  Comparison out;
  bool common = false;
  for (const BenchSamples& b : base) {
    MetricDef def{b.name, "ns", true, false, nullptr};
    const BenchSamples* c = find(cand, b.name);
    MetricComparison mc = CompareSamples(def, real_times(b), c ? real_times(*c) : std::vector<double>{},
                                         options);
    if (c == nullptr) {
      mc.note = "only in the baseline; not gated";
    } else {
      common = true;
      if (b.median_only || c->median_only) {
        mc.note += std::string(mc.note.empty() ? "" : "; ") +
                   "a side has only a median (run with repetitions for a test)";
      }
    }
    out.benchmarks.push_back(std::move(mc));
  }
  for (const BenchSamples& c : cand) {
    if (find(base, c.name) != nullptr) continue;
    MetricDef def{c.name, "ns", true, false, nullptr};
    MetricComparison mc = CompareSamples(def, {}, real_times(c), options);
    mc.note = "only in the candidate; not gated";
    out.benchmarks.push_back(std::move(mc));
  }
  if (!common) {
    return Status::InvalidArgument("the two benchmark sets have no benchmark in common");
  }
  return out;
}

}  // namespace podbench::results
