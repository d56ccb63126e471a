#include "results/report.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/stats.h"
#include "results/compare.h"
#include "results/run_variant.h"
#include "results/scaling.h"

namespace podbench::results {

std::vector<ReportGroup> BuildReport(const std::vector<RunRecord>& runs) {
  std::vector<ReportGroup> groups;
  std::vector<std::vector<const RunRecord*>> members;
  for (const RunRecord& r : runs) {
    const std::string variant = VariantOf(r).Describe();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const ReportGroup& g) {
      return g.workload == r.run.workload && g.slice == r.run.slice && g.mode == r.run.mode &&
             g.label == r.run.label && g.preset == r.run.preset && g.variant == variant;
    });
    if (it == groups.end()) {
      ReportGroup g;
      g.workload = r.run.workload;
      g.slice = r.run.slice;
      g.mode = r.run.mode;
      g.label = r.run.label;
      g.preset = r.run.preset;
      g.variant = variant;
      g.chips = r.run.chips;
      groups.push_back(g);
      members.emplace_back();
      it = groups.end() - 1;
    }
    members[static_cast<size_t>(it - groups.begin())].push_back(&r);
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    ReportGroup& g = groups[i];
    std::vector<std::optional<double>> ttt;
    std::vector<double> step;
    for (const RunRecord* r : members[i]) {
      ++g.runs;
      g.run_ids.push_back(r->id);
      if (!r->complete) {
        ++g.unfinished;
      } else if (r->status == "success") {
        ++g.success;
        ttt.push_back(r->outcome.ttt_emulated_s);
      } else if (r->status == "noncompliant") {
        ++g.noncompliant;
      } else {
        ++g.aborted;
        ttt.push_back(std::nullopt);
      }
      if (r->complete && r->outcome.step_time_s) step.push_back(*r->outcome.step_time_s);
      if (std::find(g.git_hashes.begin(), g.git_hashes.end(), r->run.git_hash) ==
          g.git_hashes.end()) {
        g.git_hashes.push_back(r->run.git_hash);
      }
    }
    g.score_min = OlympicMeanMinutes(ttt);
    if (!step.empty()) g.median_step_time_s = Median(step);
  }
  return groups;
}

nlohmann::json ReportToJson(const std::vector<ReportGroup>& groups) {
  nlohmann::json a = nlohmann::json::array();
  for (const ReportGroup& g : groups) {
    a.push_back({{"workload", g.workload},
                 {"slice", g.slice},
                 {"chips", g.chips},
                 {"mode", g.mode},
                 {"label", g.label},
                 {"preset", g.preset},
                 {"variant", g.variant},
                 {"run_ids", g.run_ids},
                 {"runs", g.runs},
                 {"success", g.success},
                 {"aborted", g.aborted},
                 {"noncompliant", g.noncompliant},
                 {"unfinished", g.unfinished},
                 {"score_min", g.score_min ? nlohmann::json(*g.score_min) : nullptr},
                 {"median_step_time_s",
                  g.median_step_time_s ? nlohmann::json(*g.median_step_time_s) : nullptr},
                 {"git_hashes", g.git_hashes}});
  }
  return a;
}

void WriteReportText(std::ostream& out, const std::vector<ReportGroup>& groups) {
  out << "one row per workload, slice, mode, preset, variant (--set overrides, system file) and label; "
         "a variant's runs never share a row with the plain ones\n";
  out << fmt::format("{:<12} {:<12} {:<10} {:<12} {:<10} {:>5} {:>5} {:>5} {:>5} {:>10} {:>12}  {:<10}  {:<16}  {}\n",
                     "workload", "slice", "mode", "preset", "label", "runs", "ok", "abort", "unfin", "score_min",
                     "step_s", "run ids", "git", "variant");
  for (const ReportGroup& g : groups) {
    std::string git;
    for (const auto& h : g.git_hashes) git += (git.empty() ? "" : ",") + ShortBuild(h);
    std::vector<int64_t> ids = g.run_ids;
    std::sort(ids.begin(), ids.end());
    out << fmt::format("{:<12} {:<12} {:<10} {:<12} {:<10} {:>5} {:>5} {:>5} {:>5} {:>10} {:>12}  {:<10}  {:<16}  {}\n",
                       g.workload, g.slice, g.mode, g.preset.empty() ? "-" : g.preset,
                       g.label.empty() ? "-" : g.label, g.runs, g.success, g.aborted, g.unfinished,
                       g.score_min ? fmt::format("{:.3f}", *g.score_min) : "-",
                       g.median_step_time_s ? fmt::format("{:.4g}", *g.median_step_time_s) : "-",
                       IdRanges(ids), git, g.variant.empty() ? "-" : g.variant);
  }
  if (groups.empty()) out << "(no runs)\n";
}

}  // namespace podbench::results
