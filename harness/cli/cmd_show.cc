// podbench show: show one saved run.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddShowCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("show", "Show one run: settings, evals, time breakdown, log");
  static std::string db = "podbench.db", run;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("run", run, "Run id")->required();
  sub->add_option("--db", db, "Results database (SQLite)");
  AddFormatOption(sub, &format);
  MarkUnavailable(sub, ctx, "issue #6, results store");
}

}  // namespace podbench::cli
