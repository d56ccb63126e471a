#include "results/compare.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/text.h"
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

// The metric's values of `runs`, and in `ids` the run each came from.
std::vector<double> Values(const std::vector<RunRecord>& runs, const MetricDef& m, std::vector<int64_t>* ids) {
  std::vector<double> out;
  for (const RunRecord& r : runs) {
    if (!r.complete || r.status == "noncompliant") continue;  // recorded, never scored
    if (m.success_only && r.status != "success") continue;
    if (auto v = m.get(r); v && std::isfinite(*v)) {
      out.push_back(Significant(*v));
      ids->push_back(r.id);
    }
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
  return Status::NotFound("unknown metric '" + name + "' (known: " + JoinNames(MetricNames()) + ")");
}

const char* RowVerdictText(RowVerdict v) {
  switch (v) {
    case RowVerdict::kNoData: return "no data";
    case RowVerdict::kOk: return "ok";
    case RowVerdict::kImproved: return "improved";
    case RowVerdict::kRegression: return "REGRESSION";
    case RowVerdict::kOverThresholdUntested: return "over threshold, not tested";
    case RowVerdict::kWithinThresholdUntested: return "within threshold, not tested";
  }
  return "?";
}

const char* GateVerdictText(GateVerdict v) {
  switch (v) {
    case GateVerdict::kPass: return "PASS";
    case GateVerdict::kFailSignificant: return "FAIL: significant regression";
    case GateVerdict::kFailUntested: return "FAIL: over threshold, not tested";
  }
  return "?";
}

bool Comparison::regression() const {
  auto regressed = [](const MetricComparison& m) { return m.verdict == RowVerdict::kRegression; };
  return std::any_of(metrics.begin(), metrics.end(), regressed) ||
         std::any_of(benchmarks.begin(), benchmarks.end(), regressed);
}

int Comparison::untested_over_threshold() const {
  auto untested = [](const MetricComparison& m) { return m.verdict == RowVerdict::kOverThresholdUntested; };
  return static_cast<int>(std::count_if(metrics.begin(), metrics.end(), untested) +
                          std::count_if(benchmarks.begin(), benchmarks.end(), untested));
}

GateVerdict Comparison::verdict() const {
  if (regression()) return GateVerdict::kFailSignificant;
  auto fails = [](const MetricComparison& m) { return m.fails_gate; };
  return std::any_of(metrics.begin(), metrics.end(), fails) ||
                 std::any_of(benchmarks.begin(), benchmarks.end(), fails)
             ? GateVerdict::kFailUntested
             : GateVerdict::kPass;
}

namespace {

// "; the U test needs 4 a side at alpha 0.05" (and ", or 8 against 2" when
// `fewer`, the smaller side of a row, is below that).
std::string Needs(double alpha, int fewer = 0) {
  const int need = MinimumRunsPerSide(alpha);
  if (need == 0) return fmt::format("; the U test cannot reach alpha {:g} at any size", alpha);
  std::string out = fmt::format("; the U test needs {} a side at alpha {:g}", need, alpha);
  if (fewer > 0 && fewer < need) {
    if (const int other = MinimumOtherSide(fewer, alpha); other != 0) {
      out += fmt::format(", or {} against {}", other, fewer);
    }
  }
  return out;
}

}  // namespace

std::string UntestedReason(int n1, int n2, double alpha) {
  if (n1 == n2) return Plural(n1, "run") + " a side" + Needs(alpha);
  return fmt::format("{} against {}", n1, Plural(n2, "run")) + Needs(alpha, std::min(n1, n2));
}

std::string GateSummary(const Comparison& c, const CompareOptions& options) {
  const GateVerdict verdict = c.verdict();
  const int untested = c.untested_over_threshold();
  // Why the untested rows over the threshold were not tested: their sizes.
  std::string why;
  if (untested > 0) {
    std::vector<std::pair<int, int>> sizes;
    for (const auto* rows : {&c.metrics, &c.benchmarks}) {
      for (const MetricComparison& m : *rows) {
        if (m.verdict == RowVerdict::kOverThresholdUntested) {
          sizes.emplace_back(static_cast<int>(m.base.size()), static_cast<int>(m.cand.size()));
        }
      }
    }
    if (std::all_of(sizes.begin(), sizes.end(), [&](const auto& s) { return s == sizes.front(); })) {
      why = UntestedReason(sizes.front().first, sizes.front().second, options.alpha);
    } else {
      int lo = sizes.front().first, hi = lo;
      for (const auto& [a, b] : sizes) {
        lo = std::min({lo, a, b});
        hi = std::max({hi, a, b});
      }
      why = fmt::format("{} to {} runs a side", lo, hi) + Needs(options.alpha);
    }
  }
  const std::string settings =
      fmt::format("threshold {:g}% worse, alpha {:g}", options.max_regression_pct, options.alpha);
  if (verdict == GateVerdict::kFailUntested) {
    return fmt::format("{} ({}; threshold {:g}% worse)", GateVerdictText(verdict), why,
                       options.max_regression_pct);
  }
  std::string line = fmt::format("{} ({})", GateVerdictText(verdict), settings);
  if (untested == 0) return line;
  const std::string rows = Plural(untested, "row") + " over threshold, not tested";
  if (options.untested == UntestedPolicy::kPass) {
    return line + fmt::format("; {}, {} under --untested pass ({})", rows, untested == 1 ? "passes" : "pass", why);
  }
  return line + fmt::format("; also {} ({})", rows, why);
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
  if (MinimumPValue(n1, n2) >= options.alpha) {
    mc.note = UntestedReason(n1, n2, options.alpha);
    mc.verdict = beyond ? RowVerdict::kOverThresholdUntested : RowVerdict::kWithinThresholdUntested;
    mc.fails_gate = beyond && options.untested == UntestedPolicy::kFail;
    return mc;
  }
  mc.utest = MannWhitneyU(mc.base, mc.cand);
  mc.significant = mc.utest->p_value < options.alpha;
  mc.verdict = beyond && mc.significant                 ? RowVerdict::kRegression
               : mc.worse_pct < 0 && mc.significant     ? RowVerdict::kImproved
                                                        : RowVerdict::kOk;
  mc.fails_gate = mc.verdict == RowVerdict::kRegression;
  return mc;
}

namespace {

Status CheckOptions(const CompareOptions& options) {
  if (!(options.max_regression_pct >= 0)) {
    return Status::InvalidArgument("--max-regression must be a percentage >= 0");
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    return Status::InvalidArgument(fmt::format("--alpha {:g}: the significance level must be above 0 and below 1",
                                               options.alpha));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// "toy on tpu-v3-8, functional", what a set of runs must share.
std::string RunKind(const RunRecord& r) { return r.run.workload + " on " + r.run.slice + ", " + r.run.mode; }

// A median over runs of different workloads, slices or modes means nothing,
// and so does a verdict between two workloads or modes.
Status CheckComparable(const std::vector<RunRecord>& base, const std::vector<RunRecord>& cand) {
  for (const auto* set : {&base, &cand}) {
    for (const RunRecord& r : *set) {
      if (RunKind(r) != RunKind(set->front())) {
        return Status::InvalidArgument(std::string(set == &base ? "the baseline" : "the candidate") +
                                       " mixes runs of different kinds: run " + std::to_string(set->front().id) +
                                       " is " + RunKind(set->front()) + ", run " + std::to_string(r.id) + " is " +
                                       RunKind(r) + " (a set's runs must share workload, slice and mode)");
      }
    }
  }
  if (base.empty() || cand.empty()) return Status::Ok();
  const NewRun& b = base.front().run;
  const NewRun& c = cand.front().run;
  if (b.workload != c.workload || b.mode != c.mode) {
    return Status::InvalidArgument("the baseline's runs are " + RunKind(base.front()) + " and the candidate's " +
                                   RunKind(cand.front()) + ": compare runs of one workload and mode");
  }
  return Status::Ok();
}

}  // namespace

Result<Comparison> Compare(const std::vector<RunRecord>& base, const std::vector<RunRecord>& cand,
                           const CompareOptions& options) {
  PODBENCH_RETURN_IF_ERROR(CheckOptions(options));
  PODBENCH_RETURN_IF_ERROR(CheckComparable(base, cand));
  Comparison out;
  for (const std::string& name : options.metrics) {
    PODBENCH_ASSIGN_OR_RETURN(MetricDef def, FindMetric(name));
    std::vector<int64_t> base_ids, cand_ids;
    std::vector<double> b = Values(base, def, &base_ids), c = Values(cand, def, &cand_ids);
    out.metrics.push_back(CompareSamples(def, std::move(b), std::move(c), options));
    out.metrics.back().base_run_ids = std::move(base_ids);
    out.metrics.back().cand_run_ids = std::move(cand_ids);
  }
  return out;
}

Result<Comparison> CompareBenchmarks(const std::vector<BenchSamples>& base,
                                     const std::vector<BenchSamples>& cand,
                                     const CompareOptions& options) {
  PODBENCH_RETURN_IF_ERROR(CheckOptions(options));
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
