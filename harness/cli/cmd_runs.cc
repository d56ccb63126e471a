// podbench runs: list runs saved in the results database.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddRunsCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("runs", "List runs saved in the results database");
  static std::string db = "podbench.db", workload;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("--db", db, "Results database (SQLite)");
  sub->add_option("--workload", workload, "Only runs of this workload");
  AddFormatOption(sub, &format, true);
  MarkUnavailable(sub, ctx, "issue #6, results store");
}

}  // namespace podbench::cli
