// podbench summarize: the results summary of whole submissions, as
// mlperf_logging's result_summarizer writes it (submission/summary.h), and
// --benchmark-folder: the score compute_score meant to print.
#include <fstream>
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "harness/cli/command.h"
#include "submission/pynum.h"
#include "submission/summary.h"

namespace podbench::cli {
namespace {

namespace fs = std::filesystem;

struct SummarizeCmdOptions {
  std::vector<std::string> folders;
  std::string usage = "training";
  std::string ruleset;
  std::string mlperf_logging;
  std::string csv;
  bool detailed = false;
  std::string benchmark_folder;
  std::string system;
  OutputFormat format = OutputFormat::kText;
};

bool WriteFile(const std::string& path, const std::string& text, CliContext& ctx) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    ctx.err << "podbench summarize: cannot write " << path << "\n";
    return false;
  }
  return true;
}

std::string WithSuffix(const std::string& csv, const std::string& suffix_ext) {
  // "summary.csv" -> "summary" + suffix_ext, as the official tool names its files.
  return csv.substr(0, csv.size() - 4) + suffix_ext;
}

int RunBenchmarkFolder(const SummarizeCmdOptions& opt, const submission::SummaryOptions& so, CliContext& ctx) {
  auto r = submission::ScoreBenchmarkFolder(opt.benchmark_folder, opt.system, so);
  if (!r.ok()) {
    ctx.err << "podbench summarize: " << r.status().message() << "\n";
    return kExitUsage;
  }
  if (opt.format == OutputFormat::kJson) {
    nlohmann::json j;
    j["folder"] = opt.benchmark_folder;
    j["benchmark"] = r->benchmark;
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& [f, m] : r->run_minutes) runs.push_back({{"file", f}, {"minutes", m}});
    j["runs"] = runs;
    j["required_runs"] = r->required_runs;
    j["scaling_factor"] = r->scaling_factor;
    j["score_minutes"] = r->score ? nlohmann::json(*r->score) : nlohmann::json(nullptr);
    j["messages"] = r->messages;
    ctx.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    for (const auto& m : r->messages) ctx.out << m << "\n";
    ctx.out << "Benchmark: " << r->benchmark << "\n";
    for (const auto& [f, m] : r->run_minutes) {
      ctx.out << "Score - Time to Train (minutes) for " << f << ": " << submission::PyRepr(m) << "\n";
    }
    ctx.out << "Final score - Time to Train (minutes): " << (r->score ? submission::PyRepr(*r->score) : "None") << "\n";
  }
  return r->score ? kExitOk : kExitVerdict;
}

int RunSummarize(const SummarizeCmdOptions& opt, CliContext& ctx) {
  if (opt.mlperf_logging.empty()) {
    ctx.err << "podbench summarize: give --mlperf-logging DIR (the official mlperf_logging folder, which holds "
               "compliance_checker/ and rcp_checker/)\n";
    return kExitUsage;
  }
  submission::SummaryOptions so;
  so.usage = opt.usage;
  so.ruleset = opt.ruleset;
  so.mlperf_logging = opt.mlperf_logging;
  if (!opt.benchmark_folder.empty()) return RunBenchmarkFolder(opt, so, ctx);
  if (opt.folders.empty()) {
    ctx.err << "podbench summarize: give one or more submitter folders, or --benchmark-folder DIR\n";
    return kExitUsage;
  }
  if (!opt.csv.empty() && (opt.csv.size() < 4 || opt.csv.substr(opt.csv.size() - 4) != ".csv")) {
    ctx.err << "podbench summarize: --csv " << opt.csv << ": the name must end in .csv\n";
    return kExitUsage;
  }
  std::vector<fs::path> folders(opt.folders.begin(), opt.folders.end());
  auto s = submission::Summarize(folders, so);
  if (!s.ok()) {
    ctx.err << "podbench summarize: " << s.status().message() << "\n";
    return kExitUsage;
  }
  // The strong table, then (hpc) the weak-scaling table with its own header,
  // as the official tool writes summary.csv.
  const bool weak = !opt.detailed && !s->weak.rows.empty();
  const std::string strong_csv =
      submission::SummaryCsv(s->strong) + (weak ? submission::SummaryCsv(s->weak) : std::string());
  if (!opt.csv.empty()) {
    if (!WriteFile(opt.csv, strong_csv, ctx) ||
        !WriteFile(WithSuffix(opt.csv, ".json"), submission::SummaryJson(s->strong), ctx) ||
        !WriteFile(WithSuffix(opt.csv, "_detailed.csv"), submission::SummaryCsv(s->detailed), ctx) ||
        !WriteFile(WithSuffix(opt.csv, "_detailed.json"), submission::SummaryJson(s->detailed), ctx) ||
        (!s->weak.rows.empty() && !WriteFile(WithSuffix(opt.csv, "_weak.json"), submission::SummaryJson(s->weak), ctx))) {
      return kExitUsage;
    }
  }
  const auto& table = opt.detailed ? s->detailed : s->strong;
  const std::string table_csv = opt.detailed ? submission::SummaryCsv(table) : strong_csv;
  const size_t rows = table.rows.size() + (weak ? s->weak.rows.size() : 0);
  switch (opt.format) {
    case OutputFormat::kJson: {
      nlohmann::ordered_json j;
      j["verdict"] = s->failed ? "FAIL" : "PASS";
      j["messages"] = s->messages;
      j["summary"] = nlohmann::ordered_json::parse(submission::SummaryJson(table));
      if (weak) j["weak_scaling"] = nlohmann::ordered_json::parse(submission::SummaryJson(s->weak));
      ctx.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      break;
    }
    case OutputFormat::kCsv:
      for (const auto& m : s->messages) ctx.err << m << "\n";
      ctx.out << table_csv;
      break;
    case OutputFormat::kText:
      for (const auto& m : s->messages) ctx.out << m << "\n";
      ctx.out << table_csv;
      ctx.out << "summary: " << (s->failed ? "FAIL" : "PASS") << " (" << Plural(static_cast<int64_t>(rows), "row");
      if (weak) ctx.out << ", " << s->weak.rows.size() << " of them weak scaling";
      ctx.out << ")\n";
      break;
  }
  return s->failed ? kExitVerdict : kExitOk;
}

}  // namespace

void AddSummarizeCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand(
      "summarize", "Results summary of MLPerf submitter folders (mlperf_logging's result_summarizer; writes nothing "
                   "into the trees)");
  auto opt = std::make_shared<SummarizeCmdOptions>();
  sub.Add("folders", opt->folders, "Submitter folders (each with systems/ and results/)");
  sub.Add("--usage", opt->usage, "training or hpc").Choices({"training", "hpc"});
  sub.Add("--ruleset", opt->ruleset, "Rule-set version, e.g. 1.0.0").Required();
  sub.Add("--mlperf-logging", opt->mlperf_logging,
          "The official mlperf_logging folder (compliance_checker/, rcp_checker/)");
  sub.Add("--csv", opt->csv,
          "Also write NAME.csv (FILE, which must end in .csv), NAME.json, NAME_detailed.csv and "
          "NAME_detailed.json, as the official tool (hpc weak scaling: its table appended to NAME.csv, "
          "and NAME_weak.json)");
  sub.AddFlag("--detailed", opt->detailed,
              "Print the detailed table (time_to_train, Energy, GBS, samples_to_converge, RCP, rcp_scaling_factor)");
  sub.Add("--benchmark-folder", opt->benchmark_folder,
          "Score one results/<system>/<benchmark> folder (what compute_score meant to print)");
  sub.Add("--system", opt->system, "With --benchmark-folder: the system name for messages");
  AddFormatOption(sub, &opt->format, true);
  sub.Callback([opt, &ctx] { ctx.exit_code = RunSummarize(*opt, ctx); });
}

}  // namespace podbench::cli
