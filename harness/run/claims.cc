#include "harness/run/claims.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "base/stats.h"
#include "harness/run/settings.h"
#include "workloads/projection/categories.h"

namespace podbench::harness {

namespace {

using workloads::ClaimComparison;
using workloads::ClaimMeasure;

Result<ClaimArm> MakeArm(const workloads::ClaimSpec& claim, const workloads::ClaimRun& run, const char* which,
                         results::ResultsStore& store, const ClaimRunOptions& options) {
  RunRequest req;
  req.workload = claim.workload;
  req.slice = run.slice;
  req.mode = run.mode;
  req.preset = run.preset;
  req.sets = run.sets;
  req.runs = run.runs;
  req.seed = options.seed;
  req.db = options.db;
  req.system = options.system;
  req.label = "claim:" + claim.id + ":" + which;
  if (!options.log_dir.empty()) req.log = (options.log_dir / (claim.id + "-" + which + ".log")).string();
  const std::string where = "claim " + claim.id + ", " + which + " arm";
  auto settings = Normalize(req);
  if (!settings.ok()) return settings.status().WithContext(where);
  auto set = RunScoredSet(*settings, store, {});
  if (!set.ok()) return set.status().WithContext(where);
  ClaimArm arm;
  arm.label = run.label;
  arm.global_batch = settings->description.global_batch;
  arm.score_min = set->score_min;
  arm.metric = settings->description.targets.empty() ? "" : settings->description.targets.front().metric;
  std::vector<double> device;
  std::map<std::string, std::vector<double>> categories;
  for (const CompletedRun& r : set->runs) {
    arm.run_ids.push_back(r.id);
    arm.statuses.push_back(r.status);
    const projection::CategoryTimes step =
        r.summary.train.PerStep(static_cast<double>(std::max<int64_t>(1, r.summary.steps)));
    device.push_back(step.device_s());
    for (projection::Category c : projection::AllCategories()) {
      categories[projection::CategoryName(c)].push_back(step[c]);
    }
    PODBENCH_ASSIGN_OR_RETURN(std::vector<results::EvalRecord> evals, store.Evals(r.id));
    std::optional<results::EvalRecord> last;
    for (const results::EvalRecord& e : evals) {
      if (e.metric == arm.metric && (!last || e.epoch >= last->epoch)) last = e;
    }
    if (last) arm.final_metric.push_back(last->value);
  }
  arm.device_step_s = Median(device);
  for (const auto& [name, v] : categories) arm.category_step_s[name] = Median(v);
  if (!arm.final_metric.empty()) {
    double sum = 0, sq = 0;
    for (double v : arm.final_metric) sum += v;
    arm.final_metric_mean = sum / static_cast<double>(arm.final_metric.size());
    for (double v : arm.final_metric) sq += (v - arm.final_metric_mean) * (v - arm.final_metric_mean);
    arm.final_metric_sd =
        arm.final_metric.size() > 1 ? std::sqrt(sq / static_cast<double>(arm.final_metric.size() - 1)) : 0;
  }
  return arm;
}

double Category(const ClaimArm& arm, const std::string& name) {
  auto it = arm.category_step_s.find(name);
  return it == arm.category_step_s.end() ? 0 : it->second;
}

}  // namespace

void JudgeClaim(const workloads::ClaimSpec& c, const ClaimArm& base, const ClaimArm& variant,
                results::ClaimRow* row) {
  row->id = c.id;
  row->paper = c.paper;
  row->section = c.section;
  row->words = c.words;
  row->base_label = base.label;
  row->variant_label = variant.label;
  row->figure_unit = c.unit;
  row->paper_figure = c.comparison == ClaimComparison::kNoNumber ? std::nullopt : c.paper_figure;
  row->note = c.note;
  auto ratio_of = [](double a, double b) -> std::optional<double> {
    return b > 0 ? std::optional<double>(a / b) : std::nullopt;
  };
  // The paper's figure as the variant's level, for a figure that is base /
  // variant: the variant at base / paper.
  auto level_of_ratio = [&](double base_value) -> std::optional<double> {
    return row->paper_figure && *row->paper_figure > 0 ? std::optional<double>(base_value / *row->paper_figure)
                                                       : std::nullopt;
  };
  switch (c.measure) {
    case ClaimMeasure::kCategoryRatio: {
      const double b = Category(base, c.category), v = Category(variant, c.category);
      row->quantity = c.category + " per step (ms)";
      row->base_value = b * 1e3;
      row->variant_value = v * 1e3;
      row->podbench_figure = ratio_of(b, v);
      if (auto l = level_of_ratio(b * 1e3)) row->reference = l;
      break;
    }
    case ClaimMeasure::kDeviceStepRatio:
      row->quantity = "device step (ms)";
      row->base_value = base.device_step_s * 1e3;
      row->variant_value = variant.device_step_s * 1e3;
      row->podbench_figure = ratio_of(base.device_step_s, variant.device_step_s);
      if (auto l = level_of_ratio(base.device_step_s * 1e3)) row->reference = l;
      break;
    case ClaimMeasure::kScoreRatio:
      row->quantity = "time to train (min)";
      row->base_value = base.score_min;
      row->variant_value = variant.score_min;
      if (base.score_min && variant.score_min) row->podbench_figure = ratio_of(*base.score_min, *variant.score_min);
      if (base.score_min) {
        if (auto l = level_of_ratio(*base.score_min)) row->reference = l;
      }
      break;
    case ClaimMeasure::kDeviceThroughput:
      row->quantity = "examples per second of device steps";
      if (variant.device_step_s > 0) {
        row->variant_value = static_cast<double>(variant.global_batch) / variant.device_step_s;
        row->podbench_figure = row->variant_value;
      }
      row->reference = row->paper_figure;
      break;
    case ClaimMeasure::kScoreMinutes:
      row->quantity = "time to train (min)";
      row->variant_value = variant.score_min;
      row->podbench_figure = variant.score_min;
      row->reference = row->paper_figure;
      break;
    case ClaimMeasure::kCategorySharePct: {
      row->quantity = "device step (ms)";
      row->base_value = base.device_step_s * 1e3;
      row->variant_value = variant.device_step_s * 1e3;
      if (variant.device_step_s > 0) {
        row->podbench_figure = 100 * Category(variant, c.category) / variant.device_step_s;
      }
      break;
    }
    case ClaimMeasure::kFinalMetricGain:
      row->quantity = "final " + variant.metric + " (mean over seeds)";
      row->base_value = base.final_metric_mean;
      row->variant_value = variant.final_metric_mean;
      if (!base.final_metric.empty() && !variant.final_metric.empty()) {
        row->podbench_figure = variant.final_metric_mean - base.final_metric_mean;
      }
      if (row->paper_figure) row->reference = base.final_metric_mean + *row->paper_figure;
      break;
  }
  const bool functional = c.variant.mode == "functional";
  if (!row->podbench_figure) {
    row->verdict = "no figure: an arm measured nothing";
    return;
  }
  const double f = *row->podbench_figure;
  switch (c.comparison) {
    case ClaimComparison::kNoNumber:
      row->verdict = "no number to compare";
      row->reference_label.clear();
      return;
    case ClaimComparison::kAtLeast:
      row->verdict = f >= *c.paper_figure ? "agrees" : "disagrees";
      row->reference_label = fmt::format("paper: >= {:.4g} {}", *c.paper_figure, c.unit);
      return;
    case ClaimComparison::kAtMost:
      row->verdict = f <= *c.paper_figure ? "agrees" : "disagrees";
      row->reference_label = fmt::format("paper: <= {:.4g} {}", *c.paper_figure, c.unit);
      return;
    case ClaimComparison::kAbout:
      row->verdict = std::abs(f / *c.paper_figure - 1) <= c.tolerance ? "agrees" : "disagrees";
      row->reference_label = fmt::format("paper: {:.4g} {} (within {:.0f}%)", *c.paper_figure, c.unit,
                                         100 * c.tolerance);
      return;
    case ClaimComparison::kPositive: {
      // An effect in the claimed direction, beyond the threshold and the
      // seeds' spread (two standard deviations of the noisier arm).
      const double spread = 2 * std::max(base.final_metric_sd, variant.final_metric_sd);
      const bool shows = f > c.threshold && (c.measure != ClaimMeasure::kFinalMetricGain || f > spread);
      row->verdict = shows ? "agrees" : functional ? "not reproduced at this scale" : "disagrees";
      row->reference_label = fmt::format("an effect above {:.4g} {}", c.threshold, c.unit);
      if (row->paper_figure) row->reference_label = fmt::format("paper: {:.4g} {}", *row->paper_figure, c.unit);
      return;
    }
  }
}

Result<ClaimOutcome> RunClaim(const workloads::ClaimSpec& claim, results::ResultsStore& store,
                              const ClaimRunOptions& options) {
  if ((claim.comparison == ClaimComparison::kAtLeast || claim.comparison == ClaimComparison::kAtMost ||
       claim.comparison == ClaimComparison::kAbout) &&
      !claim.paper_figure) {
    return Status::Internal("claim " + claim.id + ": a comparison with the paper needs the paper's figure");
  }
  const auto start = std::chrono::steady_clock::now();
  ClaimOutcome out;
  out.spec = &claim;
  const bool needs_base =
      claim.measure != ClaimMeasure::kDeviceThroughput && claim.measure != ClaimMeasure::kScoreMinutes;
  if (needs_base) {
    PODBENCH_ASSIGN_OR_RETURN(out.base, MakeArm(claim, claim.base, "base", store, options));
  } else {
    out.base.label = claim.base.label;
  }
  PODBENCH_ASSIGN_OR_RETURN(out.variant, MakeArm(claim, claim.variant, "variant", store, options));
  JudgeClaim(claim, out.base, out.variant, &out.row);
  out.host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.on_claim) options.on_claim(out);
  return out;
}

}  // namespace podbench::harness
