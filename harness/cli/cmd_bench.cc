// podbench bench: kernel benchmarks beside oneDNN and OpenBLAS.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddBenchCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("bench", "Benchmark the kernels at workload shapes, beside oneDNN and OpenBLAS");
  static std::string filter;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("--filter", filter, "Only benchmarks matching this regex");
  AddFormatOption(sub, &format);
  MarkUnavailable(sub, ctx, "issue #5, kernels");
}

}  // namespace podbench::cli
