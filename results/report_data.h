// What the HTML report shows, per workload, gathered from the results store
// only (the published v0.6 values come from results/published_v06, as in
// `scaling`). report_html.h draws it.
//
// Runs are told apart by their stored hyperparameters: a run whose effective
// hyperparameters equal what its preset (or the defaults, without one) sets
// on its slice and mode is a BASELINE run; one that differs is an ABLATION,
// named by the differing keys (e.g. "allreduce=ring"). What a preset sets is
// the workloads' knowledge, which results/ does not have: the caller supplies
// it (BaselineHyperparameters).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "results/compare.h"
#include "results/scaling.h"
#include "results/store.h"

namespace podbench::results {

// The effective hyperparameters (a JSON object, as stored in a run's
// hyperparameters) that `run`'s workload, preset, slice and mode give
// without any --set; nullopt when they cannot be known (a workload this
// build lacks): such runs count as baseline runs.
using BaselineHyperparameters = std::function<std::optional<nlohmann::json>(const RunRecord&)>;

// Mean emulated milliseconds per training step of each breakdown category
// (a category's run total / the run's steps; evaluation is amortized the
// same way), over the baseline runs of one slice.
struct BreakdownBar {
  std::string slice;
  int64_t chips = 0;
  int64_t runs = 0;
  std::vector<double> ms_per_step;  // parallel to BreakdownChart::categories
};
struct BreakdownChart {
  std::string mode;                     // the runs' mode: projected, else functional
  std::vector<std::string> categories;  // as the store names them, in its order
  std::vector<BreakdownBar> bars;       // by chips
};

// One hyperparameter an ablation changes.
struct HyperparameterChange {
  std::string key;
  std::string baseline, ablation;  // the values, as JSON text
};

struct AblationRow {
  std::string slice, mode, preset;
  int64_t chips = 0;
  std::vector<HyperparameterChange> changes;
  std::string name;  // "key=value, ..." of the changes
  int64_t baseline_runs = 0, ablation_runs = 0;
  std::optional<double> baseline_step_s, ablation_step_s;    // medians
  std::optional<double> baseline_score_min, ablation_score_min;  // v0.6 scores
};

struct AccuracyCurve {
  int64_t run_id = 0;
  std::string slice, label, metric, state;
  std::vector<std::pair<double, double>> points;  // (epoch, value)
  std::optional<QualityTargetRecord> target;      // as stored with the run
};

struct LabelComparison {
  std::string slice, mode, base_label, cand_label;
  int64_t base_runs = 0, cand_runs = 0;
  Comparison comparison;
};

struct WorkloadReportData {
  std::string workload;
  // The preset whose projected runs make the scaling table ("google-v0.6"
  // when there are any, else "" = every preset), and the table as `scaling`
  // builds it: its rows (plain runs of one build each) and the other runs'
  // labelled rows.
  std::string scaling_preset;
  std::vector<ScalingRow> scaling;  // rows with runs or a published value
  std::vector<ScalingRow> scaling_others;
  Fidelity fidelity;
  BreakdownChart breakdown;
  std::vector<AblationRow> ablations;
  std::vector<AccuracyCurve> accuracy;  // the functional runs, at most kMaxCurves
  int64_t functional_runs = 0;          // all of them
  std::vector<LabelComparison> comparisons;
};

// One of the seed papers' claims as `podbench reproduce` tested it: the
// quantity each arm of the pair measured (the base arm's may be absent), the
// level the paper's figure puts the variant at (when the paper gives one),
// podbench's figure beside the paper's, and the verdict.
struct ClaimRow {
  std::string id, paper, section, words;
  std::string quantity;  // what the bars are, with the unit, e.g. "gradient summation per step (ms)"
  std::string base_label, variant_label;
  std::optional<double> base_value, variant_value;
  std::optional<double> reference;  // the variant's level the paper's figure implies
  std::string reference_label;      // e.g. "paper: >= 1.5x faster"
  std::string figure_unit;          // of the figures, e.g. "x"
  std::optional<double> podbench_figure, paper_figure;
  std::string verdict;  // "agrees", "disagrees", "no number to compare", "not reproduced at this scale"
  std::string note;
};

struct ReportData {
  std::string db_path;
  // The seed papers' claims of the run that wrote the report (reproduce);
  // empty when none were tested.
  std::vector<ClaimRow> claims;
  int64_t runs = 0;  // runs in the store (of the selected workload)
  CompareOptions compare_options;  // how labelled sets were compared
  std::vector<WorkloadReportData> workloads;  // sorted by name
};

// The most recent functional runs drawn per workload.
inline constexpr size_t kMaxCurves = 12;

// Gathers the report of every workload in `store` (or only `workload` when
// non-empty). Labelled run sets are compared per slice and mode: each label
// against the first label recorded there, with `compare_options`.
Result<ReportData> BuildReportData(ResultsStore& store, const BaselineHyperparameters& baseline,
                                   const std::string& workload = "",
                                   const CompareOptions& compare_options = {});

}  // namespace podbench::results
