// podbench score: the v0.6 result summarizer (olympic mean time-to-train) over
// log files and folders of any layout, grouped by the logs' own submission keys.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "harness/cli/command.h"
#include "results/published_v06.h"
#include "rules/score.h"

namespace podbench::cli {
namespace {

struct ScoreCmdOptions {
  std::vector<std::string> paths;
  OutputFormat format = OutputFormat::kText;
  std::string aborted = "slowest";
};

std::string Minutes(const std::optional<double>& m) {
  if (!m) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *m);
  return buf;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

int RunScore(const ScoreCmdOptions& opt, CliContext& ctx) {
  std::vector<std::filesystem::path> paths(opt.paths.begin(), opt.paths.end());
  auto report = rules::ScorePaths(paths, opt.aborted == "timed" ? rules::AbortPolicy::kTimed : rules::AbortPolicy::kSlowest);
  if (!report.ok()) {
    ctx.err << "podbench score: " << report.status().message() << "\n";
    return kExitUsage;
  }
  const std::vector<rules::BenchmarkScore>* scores = &report->scores;
  switch (opt.format) {
    case OutputFormat::kJson: {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& s : *scores) {
        nlohmann::json j;
        j["org"] = s.org;
        j["platform"] = s.platform;
        j["benchmark"] = s.benchmark;
        j["score_minutes"] = s.score_minutes ? nlohmann::json(*s.score_minutes) : nlohmann::json(nullptr);
        j["required_runs"] = s.required_runs;
        nlohmann::json runs = nlohmann::json::array();
        for (const auto& r : s.runs) {
          runs.push_back({{"file", r.file},
                          {"converged", r.converged},
                          {"minutes", r.converged ? nlohmann::json(r.minutes) : nlohmann::json(nullptr)},
                          {"note", r.note}});
        }
        j["runs"] = runs;
        j["note"] = s.note;
        if (!results::UnpublishedNote(s.benchmark).empty()) j["published_note"] = results::UnpublishedNote(s.benchmark);
        all.push_back(std::move(j));
      }
      nlohmann::json doc;
      doc["scores"] = std::move(all);
      doc["skipped_files"] = report->skipped_files;
      ctx.out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      break;
    }
    case OutputFormat::kCsv:
      ctx.out << "org,platform,benchmark,runs,converged_runs,score_minutes,min_minutes,max_minutes,note\n";
      [[fallthrough]];
    case OutputFormat::kText: {
      if (opt.format == OutputFormat::kText) {
        char head[160];
        std::snprintf(head, sizeof head, "%-12s %-30s %-12s %5s %10s %16s  %s\n", "org", "platform", "benchmark", "runs",
                      "score_min", "range_min", "note");
        ctx.out << head;
      }
      for (const auto& s : *scores) {
        std::optional<double> lo, hi;
        int converged = 0;
        for (const auto& r : s.runs) {
          if (!r.converged) continue;
          ++converged;
          lo = lo ? std::min(*lo, r.minutes) : r.minutes;
          hi = hi ? std::max(*hi, r.minutes) : r.minutes;
        }
        std::string note = s.note;
        for (const auto& r : s.runs) {
          if (!r.converged) note += std::string(note.empty() ? "" : "; ") + std::filesystem::path(r.file).filename().string() + ": " + r.note;
        }
        if (opt.format == OutputFormat::kCsv) {
          ctx.out << CsvField(s.org) << "," << CsvField(s.platform) << "," << CsvField(s.benchmark) << "," << s.runs.size()
                  << "," << converged << "," << Minutes(s.score_minutes) << "," << Minutes(lo) << "," << Minutes(hi) << ","
                  << CsvField(note) << "\n";
        } else {
          char line[512];
          std::string range = Minutes(lo) + ".." + Minutes(hi);
          std::snprintf(line, sizeof line, "%-12s %-30s %-12s %5zu %10s %16s  ", s.org.c_str(), s.platform.c_str(),
                        s.benchmark.c_str(), s.runs.size(), Minutes(s.score_minutes).c_str(), range.c_str());
          ctx.out << line << note << "\n";
        }
      }
      if (opt.format == OutputFormat::kText) {
        // A benchmark Google did not submit: no TPU-v3 score to match.
        std::vector<std::string> noted;
        for (const auto& s : *scores) {
          const std::string_view why = results::UnpublishedNote(s.benchmark);
          if (why.empty() || std::find(noted.begin(), noted.end(), s.benchmark) != noted.end()) continue;
          noted.push_back(s.benchmark);
          ctx.out << s.benchmark << ": " << why << "\n";
        }
      }
      if (opt.format == OutputFormat::kText && report->skipped_files > 0) {
        ctx.out << "(" << Plural(report->skipped_files, "file") << " without :::MLL or :::MLLOG lines skipped)\n";
      }
      break;
    }
  }
  return kExitOk;
}

}  // namespace

void AddScoreCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("score", "Score MLPerf logs: olympic mean time-to-train per (org, platform, benchmark)");
  auto opt = std::make_shared<ScoreCmdOptions>();
  sub.Add("paths", opt->paths,
          "Log files and folders (searched recursively, any layout); runs are grouped by each log's "
          "submission_org, submission_platform and submission_benchmark")
      .Required();
  sub.Add("--aborted", opt->aborted,
          "How a run_stop with status abort scores: slowest (v0.6 rule text, default) or timed "
          "(its own time, as the published v0.6 results did)")
      .Choices({"slowest", "timed"});
  AddFormatOption(sub, &opt->format, true);
  sub.Callback([opt, &ctx] { ctx.exit_code = RunScore(*opt, ctx); });
}

}  // namespace podbench::cli
