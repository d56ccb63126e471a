// podbench run: run a workload on the emulated pod and write its MLPerf log.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddRunCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("run", "Run a workload (functional or projected) and write its MLPerf log");
  static std::string workload, slice = "tpu-v3-8", mode = "projected", preset, log, db = "podbench.db";
  static int runs = 0;
  static unsigned long seed = 0;
  static std::vector<std::string> sets;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("workload", workload, "Workload: resnet, ssd, maskrcnn, transformer, gnmt, minigo")->required();
  sub->add_option("--slice", slice, "Pod slice, e.g. tpu-v3-32 ... tpu-v3-2048");
  sub->add_option("--mode", mode, "functional (real training) or projected (cost model)");
  sub->add_option("--runs", runs, "Number of runs (default: what a scored result needs, 5 or 10)");
  sub->add_option("--seed", seed, "Base seed");
  sub->add_option("--preset", preset, "Hyperparameter preset, e.g. google-v0.6");
  sub->add_option("--set", sets, "Override a hyperparameter: key=value (repeatable)");
  sub->add_option("--log", log, "Write the MLPerf log here");
  sub->add_option("--db", db, "Results database (SQLite)");
  AddFormatOption(sub, &format);
  MarkUnavailable(sub, ctx, "issue #6, harness");
}

}  // namespace podbench::cli
