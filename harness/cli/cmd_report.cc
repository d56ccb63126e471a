// podbench report: a report of saved runs, as text, JSON, or an HTML page
// with plots.
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>

#include "harness/cli/command.h"
#include "harness/cli/html_report.h"
#include "harness/cli/store_util.h"
#include "results/report.h"

namespace podbench::cli {

namespace {
struct ReportOptions {
  std::string db = "podbench.db", output, workload, html;
  OutputFormat format = OutputFormat::kText;
};

void WriteHtml(const ReportOptions& opt, results::ResultsStore& store, CliContext& ctx) {
  HtmlReportRequest request;
  request.path = opt.html;
  request.workload = opt.workload;
  Status st = WriteHtmlReport(store, request);
  if (!st.ok()) return Fail(ctx, "report", st);
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(opt.html, ec);
  ctx.out << "HTML report: " << opt.html << " (open file://" << (ec ? opt.html : abs.string())
          << ")\n";
}
}  // namespace

void AddReportCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand(
      "report", "Summarise saved runs per workload, slice, mode and label; --html: plots");
  auto opt = std::make_shared<ReportOptions>();
  sub.Add("--db", opt->db, "Results database (SQLite; default podbench.db)");
  sub.Add("--workload", opt->workload, "Only runs of this workload");
  Option output = sub.Add("-o,--output", opt->output,
                          "Write the summary here (default: standard output)");
  sub.Add("--html", opt->html,
          "Write the HTML report (scaling curves, step breakdown, ablations, accuracy, "
          "labelled sets; one self-contained file) here instead of the summary")
      .Excludes(output);
  Option format = AddFormatOption(sub, &opt->format);
  sub.Callback([opt, format, &ctx] {
    if (!opt->html.empty() && format.Count() > 0) {
      return Fail(ctx, "report",
                  Status::InvalidArgument("--format sets the summary's format; --html writes HTML"));
    }
    auto store = OpenExistingStore(opt->db, ctx, "report");
    if (!store) return;
    if (!opt->html.empty()) return WriteHtml(*opt, *store, ctx);
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
    if (!opt->output.empty() && !file.flush()) {
      return Fail(ctx, "report", Status::IOError(opt->output + ": writing the report failed"));
    }
  });
}

}  // namespace podbench::cli
