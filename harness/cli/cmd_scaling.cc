// podbench scaling: per-slice scaling table against published v0.6 results.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddScalingCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("scaling", "Scaling table of a workload per slice, against the published v0.6 results");
  static std::string workload, preset, db = "podbench.db";
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("workload", workload, "Workload name")->required();
  sub->add_option("--preset", preset, "Hyperparameter preset, e.g. google-v0.6");
  sub->add_option("--db", db, "Results database (SQLite)");
  AddFormatOption(sub, &format, true);
  MarkUnavailable(sub, ctx, "issue #6, harness");
}

}  // namespace podbench::cli
