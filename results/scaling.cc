#include "results/scaling.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "base/stats.h"
#include "results/compare.h"
#include "results/export.h"
#include "results/published_v06.h"
#include "results/run_variant.h"

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

namespace {

// The row of `rs` (complete projected runs of one slice), without the
// published figures and the efficiency.
ScalingRow RowOf(const std::vector<const RunRecord*>& rs, const std::map<int64_t, std::vector<EvalRecord>>& evals,
                 const std::map<int64_t, StepBreakdown>& breakdowns) {
  ScalingRow row;
  row.slice = rs.front()->run.slice;
  row.chips = rs.front()->run.chips;
  row.preset = rs.front()->run.preset;
  row.build = ShortBuild(rs.front()->run.git_hash);
  row.runs = static_cast<int64_t>(rs.size());
  row.global_batch = rs.back()->run.global_batch;
  std::vector<double> step, tput, block;
  std::vector<std::optional<double>> ttt;
  StepBreakdown sum;
  for (const RunRecord* r : rs) {
    row.run_ids.push_back(r->id);
    if (auto b = breakdowns.find(r->id); b != breakdowns.end()) sum += b->second;
    if (auto e = evals.find(r->id); e != evals.end()) {
      if (auto gap = MedianEvalGapS(e->second)) block.push_back(*gap);
    }
    if (r->outcome.step_time_s) step.push_back(*r->outcome.step_time_s);
    if (r->outcome.throughput) tput.push_back(*r->outcome.throughput);
    ttt.push_back(r->status == "success" ? r->outcome.ttt_emulated_s : std::nullopt);
  }
  std::sort(row.run_ids.begin(), row.run_ids.end());
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
  return row;
}

}  // namespace

std::string IdRanges(const std::vector<int64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

std::string ScalingTable::RowsAre() const {
  if (preset.empty()) {
    return "rows: the complete projected runs, one row per slice, preset and variant (--set overrides, "
           "another system file, an older build); published figures only beside plain google-v0.6 rows";
  }
  return fmt::format(
      "rows: the complete projected runs of preset {} with no --set, on the built-in system, of one build per "
      "row (the newest); {}",
      preset, others.empty() ? "no other runs" : "every other run is in its own labelled row below");
}

ScalingTable BuildScalingTable(const std::string& workload, const std::vector<RunRecord>& runs,
                               const std::map<int64_t, std::vector<EvalRecord>>& evals,
                               const ScalingOptions& options,
                               const std::map<int64_t, StepBreakdown>& breakdowns) {
  ScalingTable table;
  table.workload = workload;
  table.preset = options.preset;
  using Place = std::pair<std::string, std::string>;  // slice, preset
  // Each selected run with what sets it apart (its stored flags, parsed once).
  std::vector<std::pair<const RunRecord*, std::string>> used;
  std::map<Place, const RunRecord*> newest_plain;
  for (const RunRecord& r : runs) {
    // A non-compliant run is recorded, never scored.
    if (!r.complete || r.status == "noncompliant" || r.run.mode != "projected" || r.run.workload != workload) continue;
    if (!options.preset.empty() && r.run.preset != options.preset) continue;
    const RunVariant v = VariantOf(r);
    used.emplace_back(&r, v.Describe());
    const RunRecord*& newest = newest_plain[{r.run.slice, r.run.preset}];
    if (v.plain() && (newest == nullptr || r.id > newest->id)) newest = &r;
  }
  std::map<Place, std::vector<const RunRecord*>> main;
  std::map<std::tuple<std::string, int64_t, Place>, std::vector<const RunRecord*>> other;  // variant, chips
  for (auto& [r, variant] : used) {
    const Place place{r->run.slice, r->run.preset};
    const RunRecord* newest = newest_plain[place];
    if (newest != nullptr && r->run.git_hash != newest->run.git_hash) {
      variant += (variant.empty() ? "" : ", ") + ("build " + ShortBuild(r->run.git_hash));
    }
    if (variant.empty()) {
      main[place].push_back(r);
    } else {
      other[{variant, r->run.chips, place}].push_back(r);
    }
  }
  for (const auto& [place, rs] : main) table.rows.push_back(RowOf(rs, evals, breakdowns));
  // Without a preset the table is every configuration's: the other groups
  // are rows too, each labelled.
  std::vector<ScalingRow>& labelled = options.preset.empty() ? table.rows : table.others;
  for (const auto& [key, rs] : other) {
    labelled.push_back(RowOf(rs, evals, breakdowns));
    labelled.back().variant = std::get<0>(key);
  }
  std::vector<ScalingRow>& rows = table.rows;
  if (!options.preset.empty()) {
    for (const PublishedResult& p : PublishedV06()) {
      if (p.benchmark != workload && !(workload == "mask" && p.benchmark == "maskrcnn")) continue;
      bool present = std::any_of(rows.begin(), rows.end(),
                                 [&](const ScalingRow& r) { return r.slice == p.slice; });
      if (!present) {
        ScalingRow row;
        row.slice = std::string(p.slice);
        row.chips = p.chips;
        row.preset = options.preset;
        rows.push_back(row);
      }
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ScalingRow& a, const ScalingRow& b) {
    return std::tie(a.chips, a.preset, a.variant) < std::tie(b.chips, b.preset, b.variant);
  });
  // Efficiency is relative to the smallest slice in the table.
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
    // Google's figures are for its own configuration: rows of other presets get none.
    if (auto p = FindPublishedV06(workload, r.slice); p && r.preset == kPublishedPreset && r.variant.empty()) {
      r.published_min = p->score_min;
      if (r.predicted_min) r.error_pct = (*r.predicted_min - p->score_min) / p->score_min * 100;
      if (p->block_s > 0) {
        r.published_block_s = p->block_s;
        if (r.block_s) r.block_error_pct = (*r.block_s - p->block_s) / p->block_s * 100;
      }
    }
  }
  return table;
}

Result<ScalingTable> ScalingFromStore(ResultsStore& store, const std::string& workload,
                                      const ScalingOptions& options, const std::vector<int64_t>& only_ids) {
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

namespace {
// The second table of the text output: each row's training step by category.
// With `labelled`, each line ends with the row's preset and variant.
void WriteStepByCategory(std::ostream& out, const std::vector<ScalingRow>& rows, bool labelled) {
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
    if (labelled) line += "  " + (r.preset.empty() ? "-" : r.preset) + (r.variant.empty() ? "" : ", " + r.variant);
    out << line << "\n";
  }
}

}  // namespace

nlohmann::json ScalingRowToJson(const ScalingRow& r) {
  nlohmann::json step_ms = nullptr;
  if (r.per_step) {
    step_ms = nlohmann::json::object();
    for (auto [name, v] : StepCategories(*r.per_step, r.per_step->unsplit_compute_s > 0)) {
      step_ms[name] = v * 1000;
    }
  }
  return {{"slice", r.slice},
          {"chips", r.chips},
          {"preset", r.preset},
          {"variant", r.variant},
          {"build", r.build},
          {"run_ids", r.run_ids},
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
          {"step_ms", step_ms}};
}

nlohmann::json ScalingToJson(const ScalingTable& t) {
  nlohmann::json rows = nlohmann::json::array(), others = nlohmann::json::array();
  for (const ScalingRow& r : t.rows) rows.push_back(ScalingRowToJson(r));
  for (const ScalingRow& r : t.others) others.push_back(ScalingRowToJson(r));
  nlohmann::json j = {{"workload", t.workload}, {"preset", t.preset}, {"rows_are", t.RowsAre()},
                      {"rows", std::move(rows)}, {"other_rows", std::move(others)}};
  if (!UnpublishedNote(t.workload).empty()) j["published_note"] = UnpublishedNote(t.workload);
  return j;
}

void WriteScalingText(std::ostream& out, const ScalingTable& t) {
  const std::vector<ScalingRow>& rows = t.rows;
  const bool preset_column = t.preset.empty();
  out << "scaling of " << t.workload << " (projected runs; published: Google MLPerf v0.6, beside "
      << kPublishedPreset << " rows)\n"
      << t.RowsAre() << "\n";
  if (!UnpublishedNote(t.workload).empty()) out << UnpublishedNote(t.workload) << "\n";
  std::string head = fmt::format("{:<12} ", "slice");
  if (preset_column) head += fmt::format("{:<12} ", "preset");
  out << head
      << fmt::format("{:>6} {:>5} {:>8} {:>9} {:>10} {:>6} {:>9} {:>8} {:>6} {:>9} {:>9} {:>6}  {}\n", "chips",
                     "runs", "batch", "step_ms", "ex/s", "eff", "pred_min", "pub_min", "err%", "block_s",
                     "pub_blk_s", "err%", preset_column ? "run ids  variant" : "run ids");
  for (const ScalingRow& r : rows) {
    std::string line = fmt::format("{:<12} ", r.slice);
    if (preset_column) line += fmt::format("{:<12} ", r.preset.empty() ? "-" : r.preset);
    out << line
        << fmt::format("{:>6} {:>5} {:>8} {:>9} {:>10} {:>6} {:>9} {:>8} {:>6} {:>9} {:>9} {:>6}  {}\n",
                       r.chips, r.runs, r.global_batch ? std::to_string(*r.global_batch) : "-",
                       T(r.step_time_s ? std::optional<double>(*r.step_time_s * 1000) : std::nullopt, "{:.4g}"),
                       T(r.throughput, "{:.4g}"), T(r.parallel_efficiency, "{:.3f}"), T(r.predicted_min, "{:.3f}"),
                       T(r.published_min, "{:.2f}"), T(r.error_pct, "{:+.1f}"), T(r.block_s, "{:.2f}"),
                       T(r.published_block_s, "{:.2f}"), T(r.block_error_pct, "{:+.1f}"),
                       (r.run_ids.empty() ? "-" : IdRanges(r.run_ids)) +
                           (preset_column ? "  " + (r.variant.empty() ? "-" : r.variant) : ""));
  }
  if (rows.empty()) out << "(no complete projected runs of " << t.workload << " in the rows)\n";
  WriteStepByCategory(out, rows, preset_column);
  if (t.others.empty()) return;
  out << "\nother runs of " << t.workload
      << ", each set in its own row (not in the rows above, not compared with the published figures)\n";
  size_t width = 7;
  for (const ScalingRow& r : t.others) width = std::max(width, r.variant.size());
  out << fmt::format("{:<{}} {:<12} {:<12} {:>6} {:>5} {:>8} {:>9} {:>10} {:>9} {:>9}  {}\n", "variant", width,
                     "slice", "preset", "chips", "runs", "batch", "step_ms", "ex/s", "pred_min", "block_s",
                     "run ids");
  for (const ScalingRow& r : t.others) {
    out << fmt::format("{:<{}} {:<12} {:<12} {:>6} {:>5} {:>8} {:>9} {:>10} {:>9} {:>9}  {}\n", r.variant, width,
                       r.slice, r.preset.empty() ? "-" : r.preset, r.chips, r.runs,
                       r.global_batch ? std::to_string(*r.global_batch) : "-",
                       T(r.step_time_s ? std::optional<double>(*r.step_time_s * 1000) : std::nullopt, "{:.4g}"),
                       T(r.throughput, "{:.4g}"), T(r.predicted_min, "{:.3f}"), T(r.block_s, "{:.2f}"),
                       IdRanges(r.run_ids));
  }
}

void WriteScalingCsv(std::ostream& out, const ScalingTable& t) {
  out << "variant,preset,build,run_ids,slice,chips,runs,global_batch,step_time_s,throughput,predicted_min,"
         "parallel_efficiency,published_min,error_pct,block_s,published_block_s,block_error_pct,"
         "mxu_ms,vector_ms,hbm_ms,unsplit_compute_ms,gradients_ms,halo_ms,bn_sync_ms,optimizer_ms,input_ms,"
         "idle_ms\n";
  for (const std::vector<ScalingRow>* part : {&t.rows, &t.others}) {
    for (const ScalingRow& r : *part) {
      std::string ids;
      for (int64_t id : r.run_ids) ids += (ids.empty() ? "" : " ") + std::to_string(id);
      out << CsvField(r.variant) << ',' << CsvField(r.preset) << ',' << CsvField(r.build) << ',' << ids << ','
          << CsvField(r.slice) << ',' << r.chips << ',' << r.runs << ','
          << (r.global_batch ? std::to_string(*r.global_batch) : "") << ',' << C(r.step_time_s) << ','
          << C(r.throughput) << ',' << C(r.predicted_min) << ',' << C(r.parallel_efficiency) << ','
          << C(r.published_min) << ',' << C(r.error_pct) << ',' << C(r.block_s) << ',' << C(r.published_block_s)
          << ',' << C(r.block_error_pct);
      const std::optional<StepBreakdown>& b = r.per_step;
      auto ms = [&](double StepBreakdown::*f) { return b ? fmt::format("{}", (*b).*f * 1000) : std::string(); };
      for (double StepBreakdown::*f :
           {&StepBreakdown::mxu_s, &StepBreakdown::vector_s, &StepBreakdown::hbm_s,
            &StepBreakdown::unsplit_compute_s, &StepBreakdown::collectives_s, &StepBreakdown::halo_s,
            &StepBreakdown::bn_sync_s, &StepBreakdown::optimizer_s, &StepBreakdown::input_s,
            &StepBreakdown::idle_s}) {
        out << ',' << ms(f);
      }
      out << '\n';
    }
  }
}

}  // namespace podbench::results
