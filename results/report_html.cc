#include "results/report_html.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "base/text.h"
#include "results/export.h"
#include "results/report_svg.h"

namespace podbench::results {
namespace {

using svg::Escape;

constexpr const char* kCss = R"css(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111;
       background: #fff; margin: 0 auto; padding: 1rem 1.5rem; max-width: 1400px; line-height: 1.4; }
h1 { font-size: 1.6rem; margin: .2rem 0; }
h2 { font-size: 1.35rem; border-bottom: 2px solid #0072B2; padding-bottom: .2rem; margin-top: 2rem; }
h3 { font-size: 1.1rem; margin: 1.4rem 0 .4rem; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; }
p.note, p.empty { color: #333; max-width: 60rem; }
p.empty { font-style: italic; }
figure { display: flex; flex-wrap: wrap; gap: 1rem 1.5rem; align-items: flex-start; margin: .8rem 0 1.6rem; }
figure > svg { flex: 1 1 360px; min-width: 0; max-width: 560px; width: 100%; height: auto;
               border: 1px solid #e3e3e3; }
.table-wrap { max-width: 100%; overflow-x: auto; }
figure > .table-wrap { flex: 1 1 320px; min-width: 0; }
figcaption { flex-basis: 100%; font-size: .9rem; color: #333; }
table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: .2rem .45rem; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; }
td.text, th.text { text-align: left; }
td.bad { color: #B00020; font-weight: bold; }
td.wrap { white-space: normal; min-width: 14rem; max-width: 28rem; }
td.good { color: #00703C; }
@media (max-width: 640px) {
  body { padding: .5rem; }
  h1 { font-size: 1.3rem; }
  table { font-size: .75rem; }
  figure > svg { flex-basis: 100%; }
}
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  nav { display: none; }
  h2 { break-before: page; border-bottom-color: #000; }
  section:first-of-type h2 { break-before: auto; }
  figure { break-inside: avoid; }
  figure > svg { max-width: 13cm; border: none; }
  .table-wrap { overflow: visible; }
  th { background: none; }
}
)css";

std::string Num(const std::optional<double>& v, const char* spec = "{:.4g}") {
  return v && std::isfinite(*v) ? fmt::format(fmt::runtime(spec), *v) : "&ndash;";
}

std::string Td(const std::string& html, const char* cls = nullptr) {
  return cls ? fmt::format("<td class=\"{}\">{}</td>", cls, html) : "<td>" + html + "</td>";
}
std::string TdText(const std::string& text) {
  return Td(text.empty() ? "&ndash;" : Escape(text), "text");
}

std::string Head(std::initializer_list<const char*> names, size_t text_columns = 1) {
  std::string s = "<thead><tr>";
  size_t i = 0;
  for (const char* n : names) {
    s += i++ < text_columns ? fmt::format("<th class=\"text\">{}</th>", n) : fmt::format("<th>{}</th>", n);
  }
  return s + "</tr></thead>";
}

// A figure: the plot, then its table (id and id the same), and a caption.
std::string Figure(const std::string& id, const std::string& plot, const std::string& table,
                   const std::string& caption) {
  return fmt::format(
      "<figure data-figure=\"{0}\">\n{1}<div class=\"table-wrap\"><table data-table=\"{0}\">{2}"
      "</table></div>\n<figcaption>{3}</figcaption></figure>\n",
      Escape(id), plot, table, caption);
}

std::string Empty(const std::string& id, const std::string& text) {
  return fmt::format("<p class=\"empty\" data-empty=\"{}\">{}</p>\n", Escape(id), Escape(text));
}

std::string Pct(const std::optional<double>& v) { return Num(v, "{:+.1f}"); }

std::string ErrorSummaryText(const char* what, const ErrorSummary& e) {
  if (e.n == 0) return fmt::format("{}: no slice with both a prediction and a published value", what);
  return fmt::format("{}: median |error| {:.1f}%, worst {:+.1f}% over {}", what, *e.median_abs_pct,
                     *e.worst_pct, Plural(e.n, "slice"));
}

// ------------------------------------------------------------- scaling

std::string ScalingSection(const WorkloadReportData& w) {
  std::string s = "<h3>Scaling: predicted against published</h3>\n";
  std::vector<const ScalingRow*> rows;
  for (const ScalingRow& r : w.scaling) {
    if (r.runs > 0 || r.published_min) rows.push_back(&r);
  }
  if (std::none_of(rows.begin(), rows.end(), [](const ScalingRow* r) { return r->runs > 0; })) {
    return s + Empty(w.workload + "-scaling", "No complete projected baseline runs of " + w.workload +
                                                  " are stored.");
  }
  s += fmt::format(
      "<p class=\"note\">Projected runs{}, each row the plain runs (no <code>--set</code>, the built-in "
      "system) of one build, the newest; {}. Against Google's published MLPerf v0.6 results (compiled into podbench from Google's result logs, "
      "<code>results/published_v06.cc</code>). Error = (predicted &minus; published) / "
      "published. {}. {}.</p>\n",
      w.scaling_preset.empty() ? "" : " with preset " + Escape(w.scaling_preset),
      w.scaling_others.empty() ? "there are no other runs"
                               : "the other runs are listed by their variant below the plots, not compared",
      Escape(ErrorSummaryText("Time to train", w.fidelity.score)),
      Escape(ErrorSummaryText("Block time", w.fidelity.block)));
  std::vector<double> chips;
  for (const ScalingRow* r : rows) chips.push_back(static_cast<double>(r->chips));

  struct Curve {
    const char* id;
    const char* title;
    const char* axis;
    std::optional<double> ScalingRow::*predicted;
    std::optional<double> ScalingRow::*published;
    std::optional<double> ScalingRow::*error;
    const char* caption;
  };
  const Curve curves[] = {
      {"score", "time to train", "time to train (min, log)", &ScalingRow::predicted_min,
       &ScalingRow::published_min, &ScalingRow::error_pct,
       "Time to train: the v0.6 score (olympic mean over the runs, minutes) against chips."},
      {"block", "block time", "block time (s, log)", &ScalingRow::block_s, &ScalingRow::published_block_s,
       &ScalingRow::block_error_pct,
       "Block time: median emulated seconds between consecutive evaluations (training block plus "
       "its evaluation), against chips."},
  };
  for (const Curve& c : curves) {
    svg::LinePlot plot;
    plot.id = w.workload + "-scaling-" + c.id;
    plot.title = w.workload + ": " + c.title + " against chips";
    plot.x = {"chips (log)", true, chips, std::nullopt, std::nullopt};
    plot.y = {c.axis, true, {}, std::nullopt, std::nullopt};
    svg::Series predicted{"predicted (podbench)", {}, svg::PaletteColor(0), svg::Marker::kCircle, true, false};
    svg::Series published{"published (Google v0.6)", {}, svg::PaletteColor(1), svg::Marker::kSquare, true, true};
    std::string table = Head({"slice", "chips", "runs", "predicted", "published", "error %", "run ids"});
    table += "<tbody>";
    for (const ScalingRow* r : rows) {
      const double x = static_cast<double>(r->chips);
      if ((*r).*(c.predicted)) predicted.points.emplace_back(x, *((*r).*(c.predicted)));
      if ((*r).*(c.published)) published.points.emplace_back(x, *((*r).*(c.published)));
      table += "<tr>" + TdText(r->slice) + Td(std::to_string(r->chips)) + Td(std::to_string(r->runs)) +
               Td(Num((*r).*(c.predicted))) + Td(Num((*r).*(c.published))) + Td(Pct((*r).*(c.error))) +
               TdText(r->run_ids.empty() ? "-" : IdRanges(r->run_ids)) + "</tr>";
    }
    table += "</tbody>";
    plot.series = {predicted, published};
    s += Figure(plot.id, svg::RenderLinePlot(plot), table, c.caption);
  }
  if (!w.scaling_others.empty()) {
    std::string table =
        Head({"variant", "slice", "preset", "runs", "time to train (min)", "block (s)", "run ids"}, 3);
    table += "<tbody>";
    for (const ScalingRow& r : w.scaling_others) {
      table += "<tr>" + TdText(r.variant) + TdText(r.slice) + TdText(r.preset.empty() ? "-" : r.preset) +
               Td(std::to_string(r.runs)) + Td(Num(r.predicted_min)) + Td(Num(r.block_s)) +
               TdText(IdRanges(r.run_ids)) + "</tr>";
    }
    table += "</tbody>";
    s += "<p class=\"note\">Other projected runs of " + Escape(w.workload) +
         ", not in the rows above: each set of runs that differs in a <code>--set</code>, the system or the "
         "build, in its own row.</p>\n<div class=\"table-wrap\"><table data-table=\"" + Escape(w.workload) +
         "-scaling-other\">" + table + "</table></div>\n";
  }
  return s;
}

// ------------------------------------------------------------- breakdown

std::string BreakdownSection(const WorkloadReportData& w) {
  std::string s = "<h3>Where the step time goes</h3>\n";
  const BreakdownChart& b = w.breakdown;
  if (b.bars.empty()) {
    return s + Empty(w.workload + "-breakdown", "No step breakdown of " + w.workload + " is stored.");
  }
  svg::StackedBars plot;
  plot.id = w.workload + "-breakdown";
  plot.title = w.workload + ": emulated time per training step (" + b.mode + ")";
  plot.y_label = "ms per training step";
  plot.categories = b.categories;
  // One column per slice, one row per category: narrow enough to sit beside the plot.
  std::string table = "<thead><tr><th class=\"text\">ms per step</th>";
  for (const BreakdownBar& bar : b.bars) table += "<th>" + Escape(bar.slice) + "</th>";
  table += "</tr></thead><tbody><tr>" + TdText("chips");
  for (const BreakdownBar& bar : b.bars) table += Td(std::to_string(bar.chips));
  table += "</tr><tr>" + TdText("runs");
  for (const BreakdownBar& bar : b.bars) table += Td(std::to_string(bar.runs));
  table += "</tr>";
  for (size_t c = 0; c < b.categories.size(); ++c) {
    table += "<tr>" + TdText(b.categories[c]);
    for (const BreakdownBar& bar : b.bars) table += Td(Num(bar.ms_per_step[c]));
    table += "</tr>";
  }
  table += "<tr>" + TdText("total");
  for (const BreakdownBar& bar : b.bars) {
    plot.bars.push_back(bar.slice);
    plot.values.push_back(bar.ms_per_step);
    double total = 0;
    for (double v : bar.ms_per_step) total += v;
    table += Td(Num(total));
  }
  table += "</tr></tbody>";
  return s + Figure(plot.id, svg::RenderStackedBars(plot), table,
                    "Each category's emulated seconds over the run divided by its training steps, "
                    "mean over the baseline " + b.mode +
                        " runs of the slice; categories as the results store records them "
                        "(evaluation is amortized over the steps).");
}

// ------------------------------------------------------------- ablations

std::string AblationSection(const WorkloadReportData& w) {
  std::string s = "<h3>Ablations</h3>\n";
  if (w.ablations.empty()) {
    return s + Empty(w.workload + "-ablations",
                     "No ablation runs of " + w.workload +
                         " are stored (runs whose hyperparameters differ from their preset's, "
                         "e.g. --set allreduce=ring).");
  }
  s += "<p class=\"note\">Runs whose stored hyperparameters differ from what their preset sets on "
       "their slice, paired with the preset's own runs of the same slice and mode.</p>\n";
  struct Metric {
    const char* id;
    const char* title;
    const char* unit;
    double scale;
    std::optional<double> AblationRow::*base;
    std::optional<double> AblationRow::*abl;
    const char* caption;
  };
  const Metric metrics[] = {
      {"step", "step time", "ms", 1000, &AblationRow::baseline_step_s, &AblationRow::ablation_step_s,
       "Step time (ms): the median emulated seconds per training step of each set's runs"},
      {"score", "time to train", "min", 1, &AblationRow::baseline_score_min,
       &AblationRow::ablation_score_min,
       "Time to train (min): the v0.6 score of each set (olympic mean of its runs)"},
  };
  // One slice: its name goes in the title, not under every pair of bars.
  const bool one_slice = std::all_of(w.ablations.begin(), w.ablations.end(), [&](const AblationRow& a) {
    return a.slice == w.ablations[0].slice;
  });
  for (const Metric& m : metrics) {
    svg::GroupedBars plot;
    plot.id = w.workload + "-ablation-" + m.id;
    plot.title = w.workload + ": " + m.title + (one_slice ? " on " + w.ablations[0].slice : "") +
                 ", preset vs ablation";
    plot.y_label = std::string(m.title) + " (" + m.unit + ")";
    plot.series = {"preset", "ablation"};
    std::string table = Head({"slice", "change", "preset runs", "preset", "ablation runs", "ablation",
                              "change %"},
                             2);
    table += "<tbody>";
    for (const AblationRow& a : w.ablations) {
      auto scaled = [&](const std::optional<double>& v) {
        return v ? std::optional<double>(*v * m.scale) : std::nullopt;
      };
      const auto base = scaled(a.*(m.base)), abl = scaled(a.*(m.abl));
      plot.groups.push_back(one_slice ? a.name : a.slice + " " + a.name);
      plot.values.push_back({base, abl});
      std::optional<double> change;
      if (base && abl && *base != 0) change = (*abl - *base) / *base * 100;
      std::string preset = a.preset.empty() ? "defaults" : a.preset;
      table += "<tr>" + TdText(a.slice + " (" + a.mode + ", " + preset + ")") + TdText(a.name) +
               Td(std::to_string(a.baseline_runs)) + Td(Num(base)) + Td(std::to_string(a.ablation_runs)) +
               Td(Num(abl)) + Td(Pct(change)) + "</tr>";
    }
    table += "</tbody>";
    s += Figure(plot.id, svg::RenderGroupedBars(plot), table,
                std::string(m.caption) + "; change = (ablation &minus; preset) / preset.");
  }
  return s;
}

// ------------------------------------------------------------- claims

// The seed papers' claims: per claim the two arms of its pair as bars, the
// level the paper's figure puts the variant at as a line, and a table of
// every claim with podbench's figure beside the paper's and the verdict.
// Only a report with claims has the section (podbench reproduce's).
std::string ClaimsSection(const ReportData& data) {
  std::string s = "<section id=\"claims\" data-section=\"claims\">\n<h2>Claims of the seed papers</h2>\n";
  s += "<p class=\"note\">Each claim of Kumar et al. 2019 and Ying et al. 2018 tested by paired runs that "
       "differ in one switch (or in the slice, for a scaling claim): the bars are what each arm measured, "
       "the line is where the paper's figure puts the variant. Projected figures are modelled; functional "
       "ones are trained on this machine.</p>\n";
  std::string table =
      Head({"claim", "paper", "the paper says", "base", "variant", "podbench", "paper", "verdict"}, 3);
  table += "<tbody>";
  for (const ClaimRow& c : data.claims) {
    const char* cls = c.verdict == "agrees" ? "good" : c.verdict == "disagrees" ? "bad" : nullptr;
    table += "<tr>" + TdText(c.id) + "<td class=\"text wrap\">" + Escape(c.paper + ", " + c.section) + "</td>" +
             "<td class=\"text wrap\">" + Escape(c.words) + "</td>" +
             Td(Num(c.base_value)) + Td(Num(c.variant_value)) + Td(Num(c.podbench_figure) + " " + Escape(c.figure_unit)) +
             Td(Num(c.paper_figure) + (c.paper_figure ? " " + Escape(c.figure_unit) : "")) +
             (cls ? Td(Escape(c.verdict), cls) : TdText(c.verdict)) + "</tr>";
  }
  table += "</tbody>";
  for (const ClaimRow& c : data.claims) {
    svg::GroupedBars plot;
    plot.id = "claim-" + c.id;
    plot.title = c.id + ": " + c.quantity;
    plot.y_label = c.quantity;
    plot.groups = {c.id};
    // A claim about one run (a throughput, a time) has no base arm to draw.
    const std::string base = c.base_label.empty() ? "base" : c.base_label;
    const std::string variant = c.variant_label.empty() ? "variant" : c.variant_label;
    std::string one = Head({"arm", "value"}, 1) + "<tbody>";
    if (c.base_value) {
      plot.series = {base, variant};
      plot.values = {{c.base_value, c.variant_value}};
      one += "<tr>" + TdText(base) + Td(Num(c.base_value)) + "</tr>";
    } else {
      plot.series = {variant};
      plot.values = {{c.variant_value}};
    }
    one += "<tr>" + TdText(variant) + Td(Num(c.variant_value)) + "</tr>";
    if (c.reference) {
      plot.references.push_back({*c.reference, c.reference_label, "#D55E00"});
      one += "<tr>" + TdText(c.reference_label) + Td(Num(c.reference)) + "</tr>";
    }
    one += "</tbody>";
    s += Figure(plot.id, svg::RenderGroupedBars(plot), one,
                Escape(c.paper + " (" + c.section + "): " + c.words) + " &mdash; podbench: " +
                    Num(c.podbench_figure) + " " + Escape(c.figure_unit) + ", " + Escape(c.verdict) +
                    (c.note.empty() ? "" : ". " + Escape(c.note)));
  }
  s += "<div class=\"table-wrap\"><table data-table=\"claims\">" + table + "</table></div>\n";
  return s + "</section>\n";
}

// ------------------------------------------------------------- accuracy

std::string AccuracySection(const WorkloadReportData& w) {
  std::string s = "<h3>Accuracy of functional runs</h3>\n";
  if (w.accuracy.empty()) {
    return s + Empty(w.workload + "-accuracy",
                     "No evaluations of functional " + w.workload + " runs are stored.");
  }
  std::vector<std::string> metrics;
  for (const AccuracyCurve& c : w.accuracy) {
    if (std::find(metrics.begin(), metrics.end(), c.metric) == metrics.end()) metrics.push_back(c.metric);
  }
  for (const std::string& metric : metrics) {
    svg::LinePlot plot;
    plot.id = w.workload + "-accuracy-" + metric;
    plot.title = w.workload + ": " + metric + " against epochs (functional runs)";
    plot.x = {"epoch", false, {}, 0.0, std::nullopt};
    plot.y = {metric + " (evaluation metric)", false, {}, std::nullopt, std::nullopt};
    std::set<std::pair<double, bool>> targets;
    std::string table = Head({"run", "slice", "label", "state", "evals", "last epoch", "final", "target"}, 4);
    table += "<tbody>";
    const svg::Marker markers[] = {svg::Marker::kCircle, svg::Marker::kSquare, svg::Marker::kTriangle,
                                   svg::Marker::kDiamond};
    size_t k = 0;
    for (const AccuracyCurve& c : w.accuracy) {
      if (c.metric != metric) continue;
      svg::Series series;
      series.name = "run " + std::to_string(c.run_id) + (c.label.empty() ? "" : " (" + c.label + ")");
      series.points = c.points;
      series.color = svg::PaletteColor(k);
      series.marker = markers[(k / 7) % 4];
      series.dashed = (k / 7) % 2 == 1;
      plot.series.push_back(series);
      ++k;
      std::string target = "&ndash;";
      if (c.target) {
        targets.insert({c.target->target, c.target->higher_is_better});
        target = (c.target->higher_is_better ? "&ge; " : "&le; ") + Num(c.target->target);
      }
      const bool reached = c.target && !c.points.empty() &&
                           (c.target->higher_is_better ? c.points.back().second >= c.target->target
                                                       : c.points.back().second <= c.target->target);
      table += "<tr>" + TdText(std::to_string(c.run_id)) + TdText(c.slice) + TdText(c.label) +
               TdText(c.state) + Td(std::to_string(c.points.size())) +
               Td(c.points.empty() ? "&ndash;" : Num(c.points.back().first)) +
               Td(c.points.empty() ? "&ndash;" : Num(c.points.back().second), reached ? "good" : nullptr) +
               Td(target) + "</tr>";
    }
    table += "</tbody>";
    for (const auto& [value, higher] : targets) {
      plot.references.push_back({value, std::string("target ") + (higher ? ">= " : "<= ") +
                                            fmt::format("{:.4g}", value),
                                 "#000000"});
    }
    std::string caption = fmt::format(
        "{} of each functional run at each evaluation, with the quality target stored with the run "
        "(dashed black). {} of {} functional runs shown (the most recent).",
        Escape(metric), k, w.functional_runs);
    s += Figure(plot.id, svg::RenderLinePlot(plot), table, caption);
  }
  return s;
}

// ------------------------------------------------------------- comparisons

std::string ComparisonSection(const WorkloadReportData& w, const CompareOptions& o) {
  std::string s = "<h3>Labelled run sets</h3>\n";
  if (w.comparisons.empty()) {
    return s + Empty(w.workload + "-compare",
                     "No slice has two labelled run sets of " + w.workload +
                         " (podbench run --label NAME) to compare.");
  }
  svg::GroupedBars plot;
  plot.id = w.workload + "-compare";
  plot.title = w.workload + ": candidate against baseline, per metric";
  plot.y_label = "worse than baseline (%)";
  plot.references.push_back({o.max_regression_pct,
                             fmt::format("threshold +{:g}%", o.max_regression_pct), "#B00020"});
  std::vector<std::string> metrics;
  for (const LabelComparison& lc : w.comparisons) {
    for (const MetricComparison& m : lc.comparison.metrics) {
      if (std::find(metrics.begin(), metrics.end(), m.metric.name) == metrics.end()) {
        metrics.push_back(m.metric.name);
      }
    }
  }
  plot.series = metrics;
  std::string table = Head({"slice", "baseline", "candidate", "metric", "base median", "cand median",
                            "worse %", "p", "verdict"},
                           4);
  table += "<tbody>";
  for (const LabelComparison& lc : w.comparisons) {
    plot.groups.push_back(lc.slice + ": " + lc.cand_label + " vs " + lc.base_label);
    std::vector<std::optional<double>> values(metrics.size());
    for (const MetricComparison& m : lc.comparison.metrics) {
      const size_t i = static_cast<size_t>(
          std::find(metrics.begin(), metrics.end(), m.metric.name) - metrics.begin());
      const bool data = !m.base.empty() && !m.cand.empty();
      if (data) values[i] = m.worse_pct;
      const std::string verdict = RowVerdictText(m.verdict);
      table += "<tr>" + TdText(lc.slice + " (" + lc.mode + ")") +
               TdText(lc.base_label + " (" + std::to_string(m.base.size()) + ")") +
               TdText(lc.cand_label + " (" + std::to_string(m.cand.size()) + ")") +
               TdText(m.metric.name + " (" + m.metric.unit + ")") +
               Td(data ? Num(m.base_median) : "&ndash;") + Td(data ? Num(m.cand_median) : "&ndash;") +
               Td(data ? Pct(m.worse_pct) : "&ndash;") +
               Td(m.utest ? Num(m.utest->p_value, "{:.3g}") : "&ndash;") +
               Td(Escape(verdict), m.fails_gate                               ? "bad"
                                  : m.verdict == RowVerdict::kImproved ? "good"
                                                                       : nullptr) +
               "</tr>";
    }
    plot.values.push_back(std::move(values));
  }
  table += "</tbody>";
  return s + Figure(plot.id, svg::RenderGroupedBars(plot), table,
                    fmt::format("Each labelled set against the first label recorded on its slice, "
                                "as <code>podbench compare</code> gates them: a metric regresses "
                                "when it is more than {:g}% worse and the Mann-Whitney U test gives "
                                "p &lt; {:g}; with fewer than {} runs a side the test cannot reach "
                                "that, and a metric more than {:g}% worse is over threshold, not "
                                "tested ({}).",
                                o.max_regression_pct, o.alpha, MinimumRunsPerSide(o.alpha),
                                o.max_regression_pct,
                                o.untested == UntestedPolicy::kFail ? "it fails the gate"
                                                                    : "passed, as --untested pass asks"));
}

}  // namespace

std::string RenderHtmlReport(const ReportData& data, const HtmlReportOptions& options) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  s += "<title>" + Escape(options.title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n";
  s += "<header>\n<h1>" + Escape(options.title) + "</h1>\n";
  if (!options.preamble.empty()) s += "<p class=\"note\">" + Escape(options.preamble) + "</p>\n";
  s += fmt::format(
      "<p class=\"note\">Database <code>{}</code>: {}. Written by {}. Every plotted number "
      "comes from the database; the published values are Google's MLPerf v0.6 results. Emulated "
      "times are modelled (projected mode prices the full-size model with podbench's TPU-v3 cost "
      "model).</p>\n",
      Escape(data.db_path), Plural(data.runs, "run"),
      Escape(options.generator.empty() ? "podbench" : options.generator));
  s += "<nav><ul>";
  if (!data.claims.empty()) s += "<li><a href=\"#claims\">claims</a></li>";
  for (const WorkloadReportData& w : data.workloads) {
    s += fmt::format("<li><a href=\"#w-{0}\">{0}</a></li>", Escape(w.workload));
  }
  s += "</ul></nav>\n</header>\n<main>\n";
  if (!data.claims.empty()) s += ClaimsSection(data);
  if (data.workloads.empty()) s += Empty("runs", "The database holds no runs.");
  for (const WorkloadReportData& w : data.workloads) {
    s += fmt::format("<section id=\"w-{0}\" data-workload=\"{0}\">\n<h2>{0}</h2>\n", Escape(w.workload));
    s += ScalingSection(w);
    s += BreakdownSection(w);
    s += AblationSection(w);
    s += AccuracySection(w);
    s += ComparisonSection(w, data.compare_options);
    s += "</section>\n";
  }
  s += "</main>\n</body>\n</html>\n";
  return s;
}

}  // namespace podbench::results
