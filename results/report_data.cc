#include "results/report_data.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "base/stats.h"
#include "results/published_v06.h"
#include "results/run_variant.h"

namespace podbench::results {
namespace {

std::string ValueText(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The keys whose stored values differ from the baseline's. Keys the run does
// not have (hyperparameters added after it was recorded) are not changes.
std::vector<HyperparameterChange> Diff(const nlohmann::json& baseline, const nlohmann::json& run) {
  std::vector<HyperparameterChange> out;
  if (!run.is_object()) return out;
  for (const auto& [key, value] : run.items()) {
    auto it = baseline.find(key);
    if (it == baseline.end()) {
      out.push_back({key, "(not a hyperparameter of the preset)", ValueText(value)});
    } else if (*it != value) {
      out.push_back({key, ValueText(*it), ValueText(value)});
    }
  }
  return out;
}

std::string ChangeName(const std::vector<HyperparameterChange>& changes) {
  std::string name;
  for (const auto& c : changes) name += (name.empty() ? "" : ", ") + c.key + "=" + c.ablation;
  return name;
}

std::optional<double> MedianOf(const std::vector<const RunRecord*>& runs) {
  std::vector<double> v;
  for (const RunRecord* r : runs) {
    if (r->outcome.step_time_s) v.push_back(*r->outcome.step_time_s);
  }
  if (v.empty()) return std::nullopt;
  return Median(v);
}

std::optional<double> ScoreOf(const std::vector<const RunRecord*>& runs) {
  std::vector<std::optional<double>> ttt;
  for (const RunRecord* r : runs) {
    ttt.push_back(r->status == "success" ? r->outcome.ttt_emulated_s : std::nullopt);
  }
  return OlympicMeanMinutes(ttt);
}

Result<BreakdownChart> BuildBreakdown(ResultsStore& store, const std::vector<const RunRecord*>& runs,
                                      const std::string& mode) {
  BreakdownChart chart;
  chart.mode = mode;
  struct Acc {
    int64_t chips = 0, runs = 0;
    std::map<std::string, double> ms;  // summed over runs
  };
  std::map<std::string, Acc> by_slice;
  for (const RunRecord* r : runs) {
    PODBENCH_ASSIGN_OR_RETURN(std::optional<CategoryBreakdown> b, store.BreakdownCategories(r->id));
    if (!b || b->steps <= 0) continue;
    Acc& a = by_slice[r->run.slice];
    a.chips = r->run.chips;
    ++a.runs;
    for (const auto& [name, seconds] : b->seconds) {
      if (std::find(chart.categories.begin(), chart.categories.end(), name) == chart.categories.end()) {
        chart.categories.push_back(name);
      }
      a.ms[name] += seconds * 1000 / static_cast<double>(b->steps);
    }
  }
  for (const auto& [slice, a] : by_slice) {
    BreakdownBar bar;
    bar.slice = slice;
    bar.chips = a.chips;
    bar.runs = a.runs;
    for (const std::string& c : chart.categories) {
      auto it = a.ms.find(c);
      bar.ms_per_step.push_back(it == a.ms.end() ? 0 : it->second / static_cast<double>(a.runs));
    }
    chart.bars.push_back(std::move(bar));
  }
  std::sort(chart.bars.begin(), chart.bars.end(),
            [](const BreakdownBar& a, const BreakdownBar& b) { return a.chips < b.chips; });
  return chart;
}

Result<std::vector<AccuracyCurve>> BuildCurves(ResultsStore& store,
                                               const std::vector<const RunRecord*>& runs) {
  std::vector<AccuracyCurve> curves;
  const size_t first = runs.size() > kMaxCurves ? runs.size() - kMaxCurves : 0;
  for (size_t i = first; i < runs.size(); ++i) {
    const RunRecord& r = *runs[i];
    PODBENCH_ASSIGN_OR_RETURN(std::vector<EvalRecord> evals, store.Evals(r.id));
    PODBENCH_ASSIGN_OR_RETURN(std::vector<QualityTargetRecord> targets, store.Targets(r.id));
    std::vector<std::string> metrics;
    for (const EvalRecord& e : evals) {
      if (std::find(metrics.begin(), metrics.end(), e.metric) == metrics.end()) metrics.push_back(e.metric);
    }
    for (const std::string& m : metrics) {
      AccuracyCurve c;
      c.run_id = r.id;
      c.slice = r.run.slice;
      c.label = r.run.label;
      c.metric = m;
      c.state = RunState(r);
      for (const EvalRecord& e : evals) {
        if (e.metric == m) c.points.emplace_back(e.epoch, e.value);
      }
      for (const QualityTargetRecord& t : targets) {
        if (t.metric == m) c.target = t;
      }
      curves.push_back(std::move(c));
    }
  }
  return curves;
}

Result<std::vector<LabelComparison>> BuildComparisons(const std::vector<const RunRecord*>& runs,
                                                      const CompareOptions& options) {
  // (slice, mode) -> labels in order of first appearance -> runs.
  std::vector<std::pair<std::string, std::string>> places;
  std::map<std::pair<std::string, std::string>,
           std::vector<std::pair<std::string, std::vector<RunRecord>>>>
      sets;
  for (const RunRecord* r : runs) {
    if (r->run.label.empty() || !r->complete) continue;
    auto place = std::make_pair(r->run.slice, r->run.mode);
    if (sets.find(place) == sets.end()) places.push_back(place);
    auto& labels = sets[place];
    auto it = std::find_if(labels.begin(), labels.end(),
                           [&](const auto& l) { return l.first == r->run.label; });
    if (it == labels.end()) {
      labels.emplace_back(r->run.label, std::vector<RunRecord>{});
      it = labels.end() - 1;
    }
    it->second.push_back(*r);
  }
  std::vector<LabelComparison> out;
  for (const auto& place : places) {
    const auto& labels = sets[place];
    for (size_t i = 1; i < labels.size(); ++i) {
      LabelComparison lc;
      lc.slice = place.first;
      lc.mode = place.second;
      lc.base_label = labels[0].first;
      lc.cand_label = labels[i].first;
      lc.base_runs = static_cast<int64_t>(labels[0].second.size());
      lc.cand_runs = static_cast<int64_t>(labels[i].second.size());
      PODBENCH_ASSIGN_OR_RETURN(lc.comparison, Compare(labels[0].second, labels[i].second, options));
      out.push_back(std::move(lc));
    }
  }
  return out;
}

}  // namespace

Result<ReportData> BuildReportData(ResultsStore& store, const BaselineHyperparameters& baseline,
                                   const std::string& workload,
                                   const CompareOptions& compare_options) {
  RunFilter filter;
  filter.workload = workload;
  PODBENCH_ASSIGN_OR_RETURN(std::vector<RunRecord> runs, store.ListRuns(filter));
  ReportData data;
  data.db_path = store.path();
  data.runs = static_cast<int64_t>(runs.size());
  data.compare_options = compare_options;
  std::map<std::string, std::vector<const RunRecord*>> by_workload;
  for (const RunRecord& r : runs) by_workload[r.run.workload].push_back(&r);

  for (const auto& [name, rs] : by_workload) {
    WorkloadReportData w;
    w.workload = name;
    // A baseline run: its hyperparameters are its preset's, and it is plain
    // (run_variant.h: no --set, the built-in system). Others are ablations,
    // named by their changed hyperparameters, else by their variant (another
    // system file).
    std::map<int64_t, std::string> ablation_name;  // absent: a baseline run
    std::map<int64_t, std::vector<HyperparameterChange>> changes;
    for (const RunRecord* r : rs) {
      if (auto base = baseline ? baseline(*r) : std::nullopt) {
        changes[r->id] = Diff(*base, nlohmann::json::parse(r->run.hyperparameters_json, nullptr, false));
      }
      std::string change = ChangeName(changes[r->id]);
      if (change.empty()) change = VariantOf(*r).Describe();
      if (!change.empty()) ablation_name[r->id] = change;
    }
    auto is_baseline = [&](const RunRecord* r) { return ablation_name.count(r->id) == 0; };

    // Scaling: the table `scaling` prints (plain runs of one build per row;
    // the preset google-v0.6 when there are any of its runs).
    std::vector<RunRecord> projected_runs;
    std::vector<const RunRecord*> functional;
    std::map<int64_t, std::vector<EvalRecord>> evals;
    for (const RunRecord* r : rs) {
      if (!r->complete) continue;
      if (r->run.mode == "projected") {
        projected_runs.push_back(*r);
        if (r->run.preset == kPublishedPreset) w.scaling_preset = kPublishedPreset;
        PODBENCH_ASSIGN_OR_RETURN(evals[r->id], store.Evals(r->id));
      } else if (is_baseline(r)) {
        functional.push_back(r);
      }
    }
    ScalingOptions so;
    so.preset = w.scaling_preset;
    ScalingTable table = BuildScalingTable(name, projected_runs, evals, so);
    w.scaling = std::move(table.rows);
    w.scaling_others = std::move(table.others);
    w.fidelity = SummarizeFidelity(w.scaling);
    // The breakdown: the runs of the scaling rows, else the functional baseline runs.
    std::set<int64_t> in_rows;
    for (const ScalingRow& row : w.scaling) in_rows.insert(row.run_ids.begin(), row.run_ids.end());
    std::vector<const RunRecord*> projected;
    for (const RunRecord* r : rs) {
      if (in_rows.count(r->id)) projected.push_back(r);
    }
    PODBENCH_ASSIGN_OR_RETURN(w.breakdown,
                              BuildBreakdown(store, projected.empty() ? functional : projected,
                                             projected.empty() ? "functional" : "projected"));

    // Ablations: complete runs that differ from their preset, against the
    // baseline runs of the same slice, mode and preset.
    using Place = std::tuple<std::string, std::string, std::string>;  // mode, preset, slice
    std::map<Place, std::vector<const RunRecord*>> base_runs;
    std::map<std::pair<Place, std::string>, std::vector<const RunRecord*>> ablation_runs;
    std::vector<std::pair<Place, std::string>> order;
    for (const RunRecord* r : rs) {
      if (!r->complete) continue;
      Place place{r->run.mode, r->run.preset, r->run.slice};
      if (is_baseline(r)) {
        base_runs[place].push_back(r);
        continue;
      }
      auto key = std::make_pair(place, ablation_name[r->id]);
      if (ablation_runs.find(key) == ablation_runs.end()) order.push_back(key);
      ablation_runs[key].push_back(r);
    }
    for (const auto& key : order) {
      const auto& abl = ablation_runs[key];
      const auto& base = base_runs[key.first];
      AblationRow row;
      std::tie(row.mode, row.preset, row.slice) = key.first;
      row.chips = abl.front()->run.chips;
      row.changes = changes[abl.front()->id];
      row.name = key.second;
      row.baseline_runs = static_cast<int64_t>(base.size());
      row.ablation_runs = static_cast<int64_t>(abl.size());
      row.baseline_step_s = MedianOf(base);
      row.ablation_step_s = MedianOf(abl);
      row.baseline_score_min = ScoreOf(base);
      row.ablation_score_min = ScoreOf(abl);
      w.ablations.push_back(std::move(row));
    }
    std::stable_sort(w.ablations.begin(), w.ablations.end(),
                     [](const AblationRow& a, const AblationRow& b) {
                       return std::tie(a.mode, a.chips) < std::tie(b.mode, b.chips);
                     });

    std::vector<const RunRecord*> all_functional;
    for (const RunRecord* r : rs) {
      if (r->run.mode == "functional") all_functional.push_back(r);
    }
    w.functional_runs = static_cast<int64_t>(all_functional.size());
    PODBENCH_ASSIGN_OR_RETURN(w.accuracy, BuildCurves(store, all_functional));
    PODBENCH_ASSIGN_OR_RETURN(w.comparisons, BuildComparisons(rs, compare_options));
    data.workloads.push_back(std::move(w));
  }
  return data;
}

}  // namespace podbench::results
