#include "results/export.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "base/text.h"

namespace podbench::results {
namespace {

nlohmann::json Opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json ParseOrString(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json(text) : j;
}

std::string Fmt(const std::optional<double>& v, const char* spec = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::string OptCsv(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }

// "8 replicas x 1 core, no split, bn_group 1, weight-update sharding off,
// fp32 gradients, torus2d all-reduce".
std::string LayoutText(const StoredLayout& l) {
  return fmt::format("{} replica{} x {} core{}, {}, bn_group {}, weight-update sharding {}, {} gradients, "
                     "{} all-reduce",
                     l.replicas, l.replicas == 1 ? "" : "s", l.cores_per_replica,
                     l.cores_per_replica == 1 ? "" : "s",
                     l.split == "none" ? std::string("no split") : "split along " + l.split, l.bn_group,
                     l.weight_update_sharding ? "on" : "off", l.gradient_dtype, l.allreduce);
}

}  // namespace

std::string CsvField(const std::string& f) {
  if (f.find_first_of(",\"\n\r") == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

nlohmann::json RunToJson(const RunRecord& r) {
  nlohmann::json j;
  j["id"] = r.id;
  j["label"] = r.run.label;
  j["workload"] = r.run.workload;
  j["slice"] = r.run.slice;
  j["cores"] = r.run.cores;
  j["chips"] = r.run.chips;
  j["mode"] = r.run.mode;
  j["preset"] = r.run.preset;
  j["seed"] = r.run.seed;
  j["global_batch"] = r.run.global_batch;
  j["git_hash"] = r.run.git_hash;
  j["host"] = r.run.host;
  j["state"] = RunState(r);
  j["started_at"] = r.started_at;
  j["finished_at"] = r.finished_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.finished_at);
  j["ttt_emulated_s"] = Opt(r.outcome.ttt_emulated_s);
  j["ttt_emulated_min"] = r.outcome.ttt_emulated_s ? nlohmann::json(*r.outcome.ttt_emulated_s / 60)
                                                   : nlohmann::json(nullptr);
  j["ttt_host_s"] = Opt(r.outcome.ttt_host_s);
  j["step_time_s"] = Opt(r.outcome.step_time_s);
  j["throughput"] = Opt(r.outcome.throughput);
  j["epochs"] = Opt(r.outcome.epochs);
  j["log_path"] = r.run.log_path;
  j["hyperparameters"] = ParseOrString(r.run.hyperparameters_json);
  j["flags"] = ParseOrString(r.run.flags_json);
  if (const auto& d = r.run.description) {
    j["model"] = {{"name", d->model},
                  {"parameters", d->parameters},
                  {"train_flops_per_example", d->train_flops_per_example}};
    j["data"] = {{"name", d->data}, {"train_examples", d->train_examples}, {"eval_examples", d->eval_examples}};
    const StoredLayout& l = d->layout;
    j["parallel_layout"] = {{"replicas", l.replicas},
                            {"cores_per_replica", l.cores_per_replica},
                            {"split", l.split},
                            {"weight_update_sharding", l.weight_update_sharding},
                            {"bn_group", l.bn_group},
                            {"gradient_dtype", l.gradient_dtype},
                            {"allreduce", l.allreduce}};
  } else {
    j["model"] = j["data"] = j["parallel_layout"] = nullptr;
  }
  return j;
}

void WriteRunsText(std::ostream& out, const std::vector<RunRecord>& runs) {
  out << fmt::format("{:>5}  {:<12} {:<10} {:<12} {:<10} {:<10} {:>12} {:>12} {:>10}  {}\n", "id",
                     "workload", "label", "slice", "mode", "state", "ttt_emul_s", "step_time_s",
                     "ttt_host_s", "git");
  for (const RunRecord& r : runs) {
    out << fmt::format("{:>5}  {:<12} {:<10} {:<12} {:<10} {:<10} {:>12} {:>12} {:>10}  {}\n", r.id,
                       r.run.workload, r.run.label.empty() ? "-" : r.run.label, r.run.slice,
                       r.run.mode, RunState(r), Fmt(r.outcome.ttt_emulated_s),
                       Fmt(r.outcome.step_time_s), Fmt(r.outcome.ttt_host_s), r.run.git_hash);
  }
  if (runs.empty()) out << "(no runs)\n";
}

void WriteRunsCsv(std::ostream& out, const std::vector<RunRecord>& runs) {
  out << "id,label,workload,slice,cores,chips,mode,preset,seed,global_batch,git_hash,host,state,"
         "started_at,finished_at,ttt_emulated_s,ttt_host_s,step_time_s,throughput,epochs\n";
  for (const RunRecord& r : runs) {
    out << r.id << ',' << CsvField(r.run.label) << ',' << CsvField(r.run.workload) << ','
        << CsvField(r.run.slice) << ',' << r.run.cores << ',' << r.run.chips << ','
        << r.run.mode << ',' << CsvField(r.run.preset) << ',' << r.run.seed << ','
        << r.run.global_batch << ',' << CsvField(r.run.git_hash) << ',' << CsvField(r.run.host)
        << ',' << RunState(r) << ',' << r.started_at << ',' << r.finished_at << ','
        << OptCsv(r.outcome.ttt_emulated_s) << ',' << OptCsv(r.outcome.ttt_host_s) << ','
        << OptCsv(r.outcome.step_time_s) << ',' << OptCsv(r.outcome.throughput) << ','
        << OptCsv(r.outcome.epochs) << '\n';
  }
}

nlohmann::json RunDetailToJson(const RunDetail& d) {
  nlohmann::json j = RunToJson(d.run);
  j["init_emulated_s"] = Opt(d.run.outcome.init_emulated_s);
  j["log_events"] = d.events;
  j["evals_modelled"] = d.evals_modelled.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.evals_modelled);
  j["evals"] = nlohmann::json::array();
  for (const EvalRecord& e : d.evals) {
    j["evals"].push_back({{"epoch", e.epoch}, {"metric", e.metric}, {"value", e.value},
                          {"ts_emulated_s", e.ts_emulated_s}, {"ts_host_s", e.ts_host_s}});
  }
  if (d.breakdown) {
    const StepBreakdown& b = *d.breakdown;
    j["step_breakdown"] = {{"steps", b.steps},
                           {"mxu_s", b.mxu_s},
                           {"vector_s", b.vector_s},
                           {"hbm_s", b.hbm_s},
                           {"compute_s", b.compute_s()},
                           {"unsplit_compute_s", b.unsplit_compute_s},
                           {"collectives_s", b.collectives_s},
                           {"halo_s", b.halo_s},
                           {"bn_sync_s", b.bn_sync_s},
                           {"optimizer_s", b.optimizer_s},
                           {"input_s", b.input_s},
                           {"evaluation_s", b.evaluation_s},
                           {"idle_s", b.idle_s}};
  } else {
    j["step_breakdown"] = nullptr;
  }
  return j;
}

void WriteRunDetailText(std::ostream& out, const RunDetail& d) {
  const RunRecord& r = d.run;
  out << fmt::format("run {}  {} on {} ({} chips, {} cores), {} mode\n", r.id, r.run.workload,
                     r.run.slice, r.run.chips, r.run.cores, r.run.mode);
  out << fmt::format("  state         {}\n", RunState(r));
  out << fmt::format("  label         {}\n", r.run.label.empty() ? "-" : r.run.label);
  out << fmt::format("  preset        {}\n", r.run.preset.empty() ? "-" : r.run.preset);
  out << fmt::format("  seed          {}\n", r.run.seed);
  out << fmt::format("  global batch  {}\n", r.run.global_batch);
  if (const auto& desc = r.run.description) {
    out << fmt::format("  model         {}: {} parameters, {:.4g} GFLOP per training example\n",
                       desc->model, desc->parameters, desc->train_flops_per_example / 1e9);
    out << fmt::format("  data          {}: {} training examples per epoch, {} per evaluation\n", desc->data,
                       desc->train_examples, desc->eval_examples);
    out << fmt::format("  layout        {}\n", LayoutText(desc->layout));
  } else {
    out << "  layout        - (not recorded: stored before schema version 2)\n";
  }
  out << fmt::format("  git, host     {} on {} (pid {})\n", r.run.git_hash, r.run.host, r.run.pid);
  out << fmt::format("  started       {}\n", r.started_at);
  out << fmt::format("  finished      {}\n", r.finished_at.empty() ? "-" : r.finished_at);
  out << fmt::format("  time to train {} s emulated ({} min), {} s host\n",
                     Fmt(r.outcome.ttt_emulated_s), Fmt(r.outcome.ttt_emulated_s
                                                            ? std::optional<double>(
                                                                  *r.outcome.ttt_emulated_s / 60)
                                                            : std::nullopt),
                     Fmt(r.outcome.ttt_host_s));
  out << fmt::format("  step time     {} s emulated; throughput {} examples/s; epochs {}\n",
                     Fmt(r.outcome.step_time_s), Fmt(r.outcome.throughput), Fmt(r.outcome.epochs));
  out << fmt::format("  hyperparams   {}\n", r.run.hyperparameters_json);
  out << fmt::format("  flags         {}\n", r.run.flags_json);
  out << fmt::format("  log           {} ({} events stored)\n",
                     r.run.log_path.empty() ? "-" : r.run.log_path, d.events);
  if (d.breakdown && d.breakdown->total_s() > 0) {
    const StepBreakdown& b = *d.breakdown;
    double t = b.total_s();
    out << fmt::format("  breakdown     {}, {:.4g} s emulated:\n", Plural(b.steps, "step"), t);
    auto row = [&](const char* name, double v) {
      out << fmt::format("    {:<12} {:>10.4g} s {:>6.1f}%\n", name, v, 100 * v / t);
    };
    row("mxu", b.mxu_s);
    row("vector", b.vector_s);
    row("hbm", b.hbm_s);
    if (b.unsplit_compute_s > 0) row("compute", b.unsplit_compute_s);  // runs stored before schema 2
    row("gradients", b.collectives_s);
    row("halo", b.halo_s);
    row("bn_sync", b.bn_sync_s);
    row("optimizer", b.optimizer_s);
    row("input", b.input_s);
    row("evaluation", b.evaluation_s);
    row("idle", b.idle_s);
  }
  if (!d.evals.empty()) {
    out << (d.evals_modelled.empty() ? std::string("  evals\n")
                                     : "  evals         modelled, not computed: " + d.evals_modelled + "\n");
    for (const EvalRecord& e : d.evals) {
      out << fmt::format("    epoch {:>6.4g}  {:<10} {:.5g}  at {:.3f} s emulated\n", e.epoch,
                         e.metric, e.value, e.ts_emulated_s);
    }
  }
}

namespace {

nlohmann::json RowToJson(const MetricComparison& m) {
  nlohmann::json e;
  e["metric"] = m.metric.name;
  e["unit"] = m.metric.unit;
  e["lower_is_better"] = m.metric.lower_is_better;
  e["base"] = m.base;
  e["cand"] = m.cand;
  if (!m.base_run_ids.empty() || !m.cand_run_ids.empty()) {
    e["base_run_ids"] = m.base_run_ids;
    e["cand_run_ids"] = m.cand_run_ids;
  }
  e["base_median"] = m.base.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.base_median);
  e["cand_median"] = m.cand.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.cand_median);
  e["worse_pct"] = m.base.empty() || m.cand.empty() ? nlohmann::json(nullptr)
                                                    : nlohmann::json(m.worse_pct);
  e["tested"] = m.tested();
  e["p_value"] = m.utest ? nlohmann::json(m.utest->p_value) : nlohmann::json(nullptr);
  e["exact"] = m.utest ? nlohmann::json(m.utest->exact) : nlohmann::json(nullptr);
  e["significant"] = m.significant;
  e["verdict"] = RowVerdictText(m.verdict);
  e["regression"] = m.verdict == RowVerdict::kRegression;
  e["fails_gate"] = m.fails_gate;
  e["note"] = m.note;
  return e;
}

void WriteRowsText(std::ostream& out, const char* title, const std::vector<MetricComparison>& rows) {
  size_t width = std::string_view(title).size();
  for (const MetricComparison& m : rows) width = std::max(width, m.metric.name.size());
  out << fmt::format("{:<{}} {:>5} {:>5} {:>12} {:>12} {:>9} {:>9}  {}\n", title, width, "n_b",
                     "n_c", "base_med", "cand_med", "worse%", "p", "verdict");
  for (const MetricComparison& m : rows) {
    out << fmt::format("{:<{}} {:>5} {:>5} {:>12.5g} {:>12.5g} {:>+9.2f} {:>9}  {}{}\n",
                       m.metric.name, width, m.base.size(), m.cand.size(), m.base_median,
                       m.cand_median, m.worse_pct,
                       m.utest ? fmt::format("{:.4f}", m.utest->p_value) : "-", RowVerdictText(m.verdict),
                       m.note.empty() ? "" : " (" + m.note + ")");
  }
}

void WriteRowsCsv(std::ostream& out, const char* kind, const std::vector<MetricComparison>& rows) {
  for (const MetricComparison& m : rows) {
    out << kind << ',' << CsvField(m.metric.name) << ',' << m.base.size() << ',' << m.cand.size()
        << ',' << m.base_median << ',' << m.cand_median << ',' << m.worse_pct << ','
        << (m.utest ? fmt::format("{}", m.utest->p_value) : "") << ',' << m.significant << ','
        << (m.verdict == RowVerdict::kRegression) << ',' << m.tested() << ','
        << CsvField(RowVerdictText(m.verdict)) << ',' << m.fails_gate << ',' << CsvField(m.note) << '\n';
  }
}

}  // namespace

nlohmann::json ComparisonToJson(const Comparison& c, const CompareOptions& o) {
  nlohmann::json j;
  j["max_regression_pct"] = o.max_regression_pct;
  j["alpha"] = o.alpha;
  j["untested"] = o.untested == UntestedPolicy::kFail ? "fail" : "pass";
  j["min_runs_per_side"] = MinimumRunsPerSide(o.alpha);
  j["verdict"] = GateVerdictText(c.verdict());
  j["pass"] = c.pass();
  j["regression"] = c.regression();
  j["untested_over_threshold"] = c.untested_over_threshold();
  j["summary"] = GateSummary(c, o);
  j["metrics"] = nlohmann::json::array();
  for (const MetricComparison& m : c.metrics) j["metrics"].push_back(RowToJson(m));
  j["benchmarks"] = nlohmann::json::array();
  for (const MetricComparison& m : c.benchmarks) j["benchmarks"].push_back(RowToJson(m));
  return j;
}

void WriteComparisonText(std::ostream& out, const Comparison& c, const CompareOptions& o) {
  if (!c.metrics.empty()) WriteRowsText(out, "metric", c.metrics);
  if (!c.benchmarks.empty()) {
    if (!c.metrics.empty()) out << "\n";
    WriteRowsText(out, "benchmark (real time, ns)", c.benchmarks);
  }
  out << GateSummary(c, o) << "\n";
}

void WriteComparisonCsv(std::ostream& out, const Comparison& c) {
  out << "kind,metric,n_base,n_cand,base_median,cand_median,worse_pct,p_value,significant,"
         "regression,tested,verdict,fails_gate,note\n";
  WriteRowsCsv(out, "run", c.metrics);
  WriteRowsCsv(out, "benchmark", c.benchmarks);
}

}  // namespace podbench::results
