// podbench topology: describe a slice and price its collectives.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddTopologyCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("topology", "Describe a pod slice and tabulate collective times per algorithm");
  static std::string slice = "tpu-v3-2048", system;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("--slice", slice, "Pod slice, e.g. tpu-v3-2048");
  sub->add_option("--system", system, "System description YAML (default: TPU-v3)");
  AddFormatOption(sub, &format);
  MarkUnavailable(sub, ctx, "issue #4, pod");
}

}  // namespace podbench::cli
