// podbench report: a report of saved runs.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddReportCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("report", "Write a report of saved runs");
  static std::string db = "podbench.db", out;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("--db", db, "Results database (SQLite)");
  sub->add_option("-o,--output", out, "Write the report here");
  AddFormatOption(sub, &format);
  MarkUnavailable(sub, ctx, "issue #6, results store");
}

}  // namespace podbench::cli
