#include "results/scaling.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "base/stats.h"
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
  if (gaps.size() >= 2) gaps.pop_back();  // the last gap holds the final scoring (see scaling.h)
  return Median(gaps);
}

std::vector<ScalingRow> BuildScalingTable(const std::string& workload,
                                          const std::vector<RunRecord>& runs,
                                          const std::map<int64_t, std::vector<EvalRecord>>& evals,
                                          const ScalingOptions& options,
                                          const std::map<int64_t, StepBreakdown>& breakdowns) {
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
    StepBreakdown sum;
    for (const RunRecord* r : rs) {
      if (auto b = breakdowns.find(r->id); b != breakdowns.end()) sum += b->second;
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
    if (sum.steps > 0) {
      StepBreakdown per = sum.Scaled(1.0 / static_cast<double>(sum.steps));
      per.steps = 1;
      per.evaluation_s = 0;
      row.per_step = per;
    }
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

Result<std::vector<ScalingRow>> ScalingFromStore(ResultsStore& store, const std::string& workload,
                                                 const ScalingOptions& options,
                                                 const std::vector<int64_t>& only_ids) {
  RunFilter f;
  f.workload = workload;
  f.mode = "projected";
  f.ids = only_ids;  // empty: any run
  PODBENCH_ASSIGN_OR_RETURN(std::vector<RunRecord> runs, store.ListRuns(f));
  std::map<int64_t, std::vector<EvalRecord>> evals;
  std::map<int64_t, StepBreakdown> breakdowns;
  for (const RunRecord& r : runs) {
    PODBENCH_ASSIGN_OR_RETURN(evals[r.id], store.Evals(r.id));
    PODBENCH_ASSIGN_OR_RETURN(std::optional<StepBreakdown> b, store.Breakdown(r.id));
    if (b) breakdowns[r.id] = *b;
  }
  return BuildScalingTable(workload, runs, evals, options, breakdowns);
}

namespace {
ErrorSummary Summarize(const std::vector<double>& errors) {
  ErrorSummary s;
  s.n = static_cast<int64_t>(errors.size());
  if (errors.empty()) return s;
  std::vector<double> abs;
  double worst = 0;
  for (double e : errors) {
    abs.push_back(std::fabs(e));
    if (std::fabs(e) >= std::fabs(worst)) worst = e;
  }
  s.median_abs_pct = Median(abs);
  s.worst_pct = worst;
  return s;
}
}  // namespace

Fidelity SummarizeFidelity(const std::vector<ScalingRow>& rows) {
  std::vector<double> score, block;
  for (const ScalingRow& r : rows) {
    if (r.error_pct) score.push_back(*r.error_pct);
    if (r.block_error_pct) block.push_back(*r.block_error_pct);
  }
  return {Summarize(score), Summarize(block)};
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

namespace {
// The per-step categories of `b` as (name, seconds), in the projection
// layer's order; with `unsplit`, also the unsplit compute of runs stored
// before schema version 3.
std::vector<std::pair<const char*, double>> StepCategories(const StepBreakdown& b, bool unsplit) {
  std::vector<std::pair<const char*, double>> c;
  c.reserve(10);
  c.emplace_back("mxu", b.mxu_s);
  c.emplace_back("vector", b.vector_s);
  c.emplace_back("hbm", b.hbm_s);
  if (unsplit) c.emplace_back("compute", b.unsplit_compute_s);
  c.emplace_back("gradients", b.collectives_s);
  c.emplace_back("halo", b.halo_s);
  c.emplace_back("bn_sync", b.bn_sync_s);
  c.emplace_back("optimizer", b.optimizer_s);
  c.emplace_back("input", b.input_s);
  c.emplace_back("idle", b.idle_s);
  return c;
}
}  // namespace

nlohmann::json FidelityToJson(const Fidelity& f) {
  auto one = [](const ErrorSummary& e) {
    return nlohmann::json{{"n", e.n}, {"median_abs_error_pct", J(e.median_abs_pct)},
                          {"worst_error_pct", J(e.worst_pct)}};
  };
  return {{"score", one(f.score)}, {"block", one(f.block)}};
}

nlohmann::json ScalingToJson(const std::vector<ScalingRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const ScalingRow& r : rows) {
    nlohmann::json step_ms = nullptr;
    if (r.per_step) {
      step_ms = nlohmann::json::object();
      for (auto [name, v] : StepCategories(*r.per_step, r.per_step->unsplit_compute_s > 0)) {
        step_ms[name] = v * 1000;
      }
    }
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
                 {"block_error_pct", J(r.block_error_pct)},
                 {"step_ms", step_ms}});
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
  bool any = false, unsplit = false;
  for (const ScalingRow& r : rows) {
    any = any || r.per_step.has_value();
    unsplit = unsplit || (r.per_step && r.per_step->unsplit_compute_s > 0);
  }
  if (!any) return;
  out << "\nstep by category (ms per training step, the runs' breakdowns)\n";
  std::string head = fmt::format("{:<12}", "slice");
  for (auto [name, v] : StepCategories(StepBreakdown{}, unsplit)) head += fmt::format(" {:>9}", name);
  out << head << "\n";
  for (const ScalingRow& r : rows) {
    if (!r.per_step) continue;
    std::string line = fmt::format("{:<12}", r.slice);
    for (auto [name, v] : StepCategories(*r.per_step, unsplit)) line += fmt::format(" {:>9.4g}", v * 1000);
    out << line << "\n";
  }
}

void WriteScalingCsv(std::ostream& out, const std::vector<ScalingRow>& rows) {
  out << "slice,chips,runs,global_batch,step_time_s,throughput,predicted_min,parallel_efficiency,"
         "published_min,error_pct,block_s,published_block_s,block_error_pct,"
         "mxu_ms,vector_ms,hbm_ms,unsplit_compute_ms,gradients_ms,halo_ms,bn_sync_ms,optimizer_ms,input_ms,"
         "idle_ms\n";
  for (const ScalingRow& r : rows) {
    out << CsvField(r.slice) << ',' << r.chips << ',' << r.runs << ','
        << (r.global_batch ? std::to_string(*r.global_batch) : "") << ',' << C(r.step_time_s)
        << ',' << C(r.throughput) << ',' << C(r.predicted_min) << ','
        << C(r.parallel_efficiency) << ',' << C(r.published_min) << ',' << C(r.error_pct) << ','
        << C(r.block_s) << ',' << C(r.published_block_s) << ',' << C(r.block_error_pct);
    const std::optional<StepBreakdown>& b = r.per_step;
    auto ms = [&](double StepBreakdown::*f) { return b ? fmt::format("{}", (*b).*f * 1000) : std::string(); };
    for (double StepBreakdown::*f :
         {&StepBreakdown::mxu_s, &StepBreakdown::vector_s, &StepBreakdown::hbm_s, &StepBreakdown::unsplit_compute_s,
          &StepBreakdown::collectives_s, &StepBreakdown::halo_s, &StepBreakdown::bn_sync_s,
          &StepBreakdown::optimizer_s, &StepBreakdown::input_s, &StepBreakdown::idle_s}) {
      out << ',' << ms(f);
    }
    out << '\n';
  }
}

}  // namespace podbench::results
