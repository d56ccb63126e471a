// podbench score: the v0.6 result summarizer (olympic mean time-to-train).
#include "harness/cli/command.h"

namespace podbench::cli {

void AddScoreCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("score", "Score result folders: olympic mean time-to-train per (org, platform, benchmark)");
  static std::vector<std::string> dirs;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("dirs", dirs, "Result folders")->required();
  AddFormatOption(sub, &format, true);
  MarkUnavailable(sub, ctx, "issue #3, checker");
}

}  // namespace podbench::cli
