// podbench report: a report of saved runs.
#include <fstream>
#include <memory>
#include <ostream>

#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "results/report.h"

namespace podbench::cli {

namespace {
struct ReportOptions {
  std::string db = "podbench.db", output, workload;
  OutputFormat format = OutputFormat::kText;
};
}  // namespace

void AddReportCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand(
      "report", "Summarise saved runs per workload, slice, mode and label (score, step time)");
  auto opt = std::make_shared<ReportOptions>();
  sub->add_option("--db", opt->db, "Results database (SQLite; default podbench.db)");
  sub->add_option("--workload", opt->workload, "Only runs of this workload");
  sub->add_option("-o,--output", opt->output, "Write the report here (default: standard output)");
  AddFormatOption(sub, &opt->format);
  sub->callback([opt, &ctx] {
    auto store = OpenExistingStore(opt->db, ctx, "report");
    if (!store) return;
    results::RunFilter f;
    f.workload = opt->workload;
    auto runs = store->ListRuns(f);
    if (!runs.ok()) return Fail(ctx, "report", runs.status());
    auto groups = results::BuildReport(*runs);
    std::ofstream file;
    if (!opt->output.empty()) {
      file.open(opt->output, std::ios::out | std::ios::trunc);
      if (!file) {
        return Fail(ctx, "report", Status::IOError(opt->output + ": cannot create the report"));
      }
    }
    std::ostream& out = opt->output.empty() ? ctx.out : file;
    if (opt->format == OutputFormat::kJson) {
      out << results::ReportToJson(groups).dump(2) << "\n";
    } else {
      results::WriteReportText(out, groups);
    }
    if (!out) return Fail(ctx, "report", Status::IOError(opt->output + ": write failed"));
  });
}

}  // namespace podbench::cli
