// podbench compare: compare two sets of runs, a CI regression gate.
#include "harness/cli/command.h"

namespace podbench::cli {

void AddCompareCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("compare", "Compare two run sets (Mann-Whitney U); exit 1 on a significant regression");
  static std::string db = "podbench.db", base, cand;
  static double max_regression = 5.0;
  static OutputFormat format = OutputFormat::kText;
  sub->add_option("base", base, "Baseline run id or run set")->required();
  sub->add_option("cand", cand, "Candidate run id or run set")->required();
  sub->add_option("--max-regression", max_regression, "Allowed regression in percent");
  sub->add_option("--db", db, "Results database (SQLite)");
  AddFormatOption(sub, &format);
  MarkUnavailable(sub, ctx, "issue #6, results store");
}

}  // namespace podbench::cli
