#include "results/scaling.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "results/compare.h"
#include "results/export.h"
#include "results/published_v06.h"

namespace podbench::results {

std::optional<double> OlympicMeanMinutes(const std::vector<std::optional<double>>& ttt_s) {
  if (ttt_s.empty()) return std::nullopt;
  std::vector<double> t;
  for (const auto& v : ttt_s) t.push_back(v ? *v : INFINITY);
  std::sort(t.begin(), t.end());
  size_t lo = 0, hi = t.size();
  if (t.size() >= 3) {
    ++lo;
    --hi;
  }
  double sum = 0;
  for (size_t i = lo; i < hi; ++i) {
    if (!std::isfinite(t[i])) return std::nullopt;
    sum += t[i];
  }
  return sum / static_cast<double>(hi - lo) / 60.0;
}

std::optional<double> MedianEvalGapS(const std::vector<EvalRecord>& evals) {
  std::map<double, double> at;  // epoch -> earliest timestamp
  for (const EvalRecord& e : evals) {
    auto [it, fresh] = at.emplace(e.epoch, e.ts_emulated_s);
    if (!fresh) it->second = std::min(it->second, e.ts_emulated_s);
  }
  if (at.size() < 2) return std::nullopt;
  std::vector<double> gaps;
  for (auto a = at.begin(), b = std::next(at.begin()); b != at.end(); ++a, ++b) {
    gaps.push_back(b->second - a->second);
  }
  return Median(gaps);
}

std::vector<ScalingRow> BuildScalingTable(const std::string& workload,
                                          const std::vector<RunRecord>& runs,
                                          const std::map<int64_t, std::vector<EvalRecord>>& evals,
                                          const ScalingOptions& options) {
  std::map<std::string, std::vector<const RunRecord*>> by_slice;
  std::map<std::string, int64_t> chips;
  for (const RunRecord& r : runs) {
    // A non-compliant run is recorded, never scored.
    if (!r.complete || r.status == "noncompliant" || r.run.mode != "projected" || r.run.workload != workload) continue;
    if (!options.preset.empty() && r.run.preset != options.preset) continue;
    by_slice[r.run.slice].push_back(&r);
    chips[r.run.slice] = r.run.chips;
  }
  std::vector<ScalingRow> rows;
  for (const auto& [slice, rs] : by_slice) {
    ScalingRow row;
    row.slice = slice;
    row.chips = chips[slice];
    row.runs = static_cast<int64_t>(rs.size());
    row.global_batch = rs.back()->run.global_batch;
    std::vector<double> step, tput, block;
    std::vector<std::optional<double>> ttt;
    for (const RunRecord* r : rs) {
      if (auto e = evals.find(r->id); e != evals.end()) {
        if (auto gap = MedianEvalGapS(e->second)) block.push_back(*gap);
      }
      if (r->outcome.step_time_s) step.push_back(*r->outcome.step_time_s);
      if (r->outcome.throughput) tput.push_back(*r->outcome.throughput);
      ttt.push_back(r->status == "success" ? r->outcome.ttt_emulated_s : std::nullopt);
    }
    if (!step.empty()) row.step_time_s = Median(step);
    if (!tput.empty()) row.throughput = Median(tput);
    if (!block.empty()) row.block_s = Median(block);
    row.predicted_min = OlympicMeanMinutes(ttt);
    rows.push_back(row);
  }
  if (!options.preset.empty()) {
    for (const PublishedResult& p : PublishedV06()) {
      if (p.benchmark != workload && !(workload == "mask" && p.benchmark == "maskrcnn")) continue;
      bool present = std::any_of(rows.begin(), rows.end(),
                                 [&](const ScalingRow& r) { return r.slice == p.slice; });
      if (!present) {
        ScalingRow row;
        row.slice = std::string(p.slice);
        row.chips = p.chips;
        rows.push_back(row);
      }
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const ScalingRow& a, const ScalingRow& b) { return a.chips < b.chips; });
  const ScalingRow* ref = nullptr;
  for (const ScalingRow& r : rows) {
    if (r.throughput && r.chips > 0) {
      ref = &r;
      break;
    }
  }
  for (ScalingRow& r : rows) {
    if (ref && r.throughput && r.chips > 0) {
      r.parallel_efficiency = (*r.throughput / static_cast<double>(r.chips)) /
                              (*ref->throughput / static_cast<double>(ref->chips));
    }
    if (auto p = FindPublishedV06(workload, r.slice)) {
      r.published_min = p->score_min;
      if (r.predicted_min) r.error_pct = (*r.predicted_min - p->score_min) / p->score_min * 100;
      if (p->block_s > 0) {
        r.published_block_s = p->block_s;
        if (r.block_s) r.block_error_pct = (*r.block_s - p->block_s) / p->block_s * 100;
      }
    }
  }
  return rows;
}

namespace {
nlohmann::json J(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
std::string T(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}
std::string C(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }
}  // namespace

nlohmann::json ScalingToJson(const std::vector<ScalingRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const ScalingRow& r : rows) {
    a.push_back({{"slice", r.slice},
                 {"chips", r.chips},
                 {"runs", r.runs},
                 {"global_batch", r.global_batch ? nlohmann::json(*r.global_batch) : nullptr},
                 {"step_time_s", J(r.step_time_s)},
                 {"throughput", J(r.throughput)},
                 {"predicted_min", J(r.predicted_min)},
                 {"parallel_efficiency", J(r.parallel_efficiency)},
                 {"published_min", J(r.published_min)},
                 {"error_pct", J(r.error_pct)},
                 {"block_s", J(r.block_s)},
                 {"published_block_s", J(r.published_block_s)},
                 {"block_error_pct", J(r.block_error_pct)}});
  }
  return a;
}

void WriteScalingText(std::ostream& out, const std::string& workload,
                      const std::vector<ScalingRow>& rows) {
  out << "scaling of " << workload << " (projected runs; published: Google MLPerf v0.6)\n";
  out << fmt::format("{:<12} {:>6} {:>5} {:>8} {:>9} {:>10} {:>6} {:>9} {:>8} {:>6} {:>9} {:>9} {:>6}\n",
                     "slice", "chips", "runs", "batch", "step_ms", "ex/s", "eff", "pred_min", "pub_min",
                     "err%", "block_s", "pub_blk_s", "err%");
  for (const ScalingRow& r : rows) {
    out << fmt::format(
        "{:<12} {:>6} {:>5} {:>8} {:>9} {:>10} {:>6} {:>9} {:>8} {:>6} {:>9} {:>9} {:>6}\n", r.slice,
        r.chips, r.runs, r.global_batch ? std::to_string(*r.global_batch) : "-",
        T(r.step_time_s ? std::optional<double>(*r.step_time_s * 1000) : std::nullopt, "{:.4g}"),
        T(r.throughput, "{:.4g}"), T(r.parallel_efficiency, "{:.3f}"), T(r.predicted_min, "{:.3f}"),
        T(r.published_min, "{:.2f}"), T(r.error_pct, "{:+.1f}"), T(r.block_s, "{:.2f}"),
        T(r.published_block_s, "{:.2f}"), T(r.block_error_pct, "{:+.1f}"));
  }
  if (rows.empty()) out << "(no complete projected runs of " << workload << ")\n";
}

void WriteScalingCsv(std::ostream& out, const std::vector<ScalingRow>& rows) {
  out << "slice,chips,runs,global_batch,step_time_s,throughput,predicted_min,parallel_efficiency,"
         "published_min,error_pct,block_s,published_block_s,block_error_pct\n";
  for (const ScalingRow& r : rows) {
    out << CsvField(r.slice) << ',' << r.chips << ',' << r.runs << ','
        << (r.global_batch ? std::to_string(*r.global_batch) : "") << ',' << C(r.step_time_s)
        << ',' << C(r.throughput) << ',' << C(r.predicted_min) << ','
        << C(r.parallel_efficiency) << ',' << C(r.published_min) << ',' << C(r.error_pct) << ','
        << C(r.block_s) << ',' << C(r.published_block_s) << ',' << C(r.block_error_pct) << '\n';
  }
}

}  // namespace podbench::results
