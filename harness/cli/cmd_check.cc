// podbench check: MLPerf compliance checking of logs.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddCheckCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("check", "Check MLPerf logs against MLPerf compliance rule files");
  static std::string usage = "training", ruleset, rules_dir, config;
  static bool werror = false, quiet = false;
  static std::vector<std::string> paths;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("--usage", usage, "training or hpc");
  sub->add_option("--ruleset", ruleset, "Rule set version, e.g. 0.6.0, 0.7.0, 1.0.0");
  sub->add_option("--rules-dir", rules_dir, "Folder laid out like mlperf_logging/compliance_checker (default: podbench v0.6 rules)");
  sub->add_option("--config", config, "Entry rule file (default: {usage}_{ruleset}/common.yaml)");
  sub->add_flag("--werror", werror, "Treat warnings as errors");
  sub->add_flag("--quiet", quiet, "Print only the verdicts");
  sub->add_option("logs", paths, "Log files or folders (searched recursively)")->required();
  AddFormatOption(sub, &format);
  MarkUnavailable(sub, ctx, "issue #3, checker");
}

}  // namespace podbench::cli
