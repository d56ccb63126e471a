#include <ostream>
#include <string>

#include "base/version.h"
#include "harness/cli/command.h"

namespace podbench::cli {

void AddFormatOption(CLI::App* sub, OutputFormat* format, bool allow_csv) {
  std::vector<std::string> names{"text", "json"};
  if (allow_csv) names.emplace_back("csv");
  sub->add_option_function<std::string>(
         "--format",
         [format](const std::string& name) {
           *format = name == "json"  ? OutputFormat::kJson
                     : name == "csv" ? OutputFormat::kCsv
                                     : OutputFormat::kText;
         },
         allow_csv ? "Output format: text, json or csv (default: text)"
                   : "Output format: text or json (default: text)")
      ->check(CLI::IsMember(names));
}

void MarkUnavailable(CLI::App* sub, CliContext& ctx, const std::string& issue) {
  sub->callback([sub, &ctx, issue] {
    ctx.err << "podbench " << sub->get_name() << ": not available in this build yet (" << issue
            << ")\n";
    ctx.exit_code = kExitUnavailable;
  });
}

void BuildApp(CLI::App& app, CliContext& ctx) {
  app.description(
      "podbench: MLPerf Training v0.6 on an emulated TPU-v3 pod, and MLPerf log compliance.");
  app.set_version_flag("--version",
                       std::string("podbench ") + Version() + " (git " + GitHash() + ")");
  app.require_subcommand(1);
  app.fallthrough(false);
  AddReproduceCommand(app, ctx);
  AddRunCommand(app, ctx);
  AddScalingCommand(app, ctx);
  AddCheckCommand(app, ctx);
  AddScoreCommand(app, ctx);
  AddRunsCommand(app, ctx);
  AddShowCommand(app, ctx);
  AddCompareCommand(app, ctx);
  AddBenchCommand(app, ctx);
  AddTopologyCommand(app, ctx);
  AddReportCommand(app, ctx);
  AddCalibrateCommand(app, ctx);
  AddModelCommand(app, ctx);
}

}  // namespace podbench::cli
