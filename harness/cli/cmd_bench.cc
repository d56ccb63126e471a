// podbench bench: kernel benchmarks beside oneDNN and OpenBLAS.
#include <memory>
#include <ostream>

#include "harness/cli/command.h"
#include "kernels/bench_hook.h"

namespace podbench::cli {

void AddBenchCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("bench", "Benchmark the kernels at workload shapes, beside oneDNN and OpenBLAS");
  struct Options {
    kernels::BenchRequest request;
    OutputFormat format = OutputFormat::kText;
  };
  auto opt = std::make_shared<Options>();
  sub->add_option("--filter", opt->request.filter, "Only benchmarks matching this regex (default: all)");
  sub->add_option("--repetitions", opt->request.repetitions,
                  "Repetitions of each benchmark; above 1 only median, mean and stddev are reported "
                  "(default: 1)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--min-time", opt->request.min_time_s,
                  "Minimum seconds measured per benchmark and repetition (default: 0.2)")
      ->check(CLI::Range(0.001, 100.0));
  AddFormatOption(sub, &opt->format);
  sub->callback([opt, &ctx] {
    kernels::BenchRunner runner = kernels::GetBenchRunner();
    if (runner == nullptr) {
      ctx.err << "podbench bench: this podbench was built without benchmarks "
                 "(configure with -DPODBENCH_BENCHMARKS=ON)\n";
      ctx.exit_code = kExitUnavailable;
      return;
    }
    opt->request.json = opt->format == OutputFormat::kJson;
    ctx.exit_code = runner(opt->request, ctx.out, ctx.err);
  });
}

}  // namespace podbench::cli
