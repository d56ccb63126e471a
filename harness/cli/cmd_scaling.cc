// podbench scaling: per-slice scaling table against published v0.6 results.
#include <memory>
#include <ostream>

#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "results/scaling.h"
#include "workloads/registry.h"

namespace podbench::cli {

namespace {
struct ScalingCliOptions {
  std::string workload, db = "podbench.db";
  results::ScalingOptions scaling;
  OutputFormat format = OutputFormat::kText;
};
}  // namespace

void AddScalingCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand(
      "scaling", "Scaling table of a workload per slice, against the published v0.6 results");
  auto opt = std::make_shared<ScalingCliOptions>();
  sub.Add("workload", opt->workload, "Workload name").Required();
  sub.Add("--preset", opt->scaling.preset,
          "Only runs made with this preset (e.g. google-v0.6); lists every published slice. "
          "Rows hold plain runs (no --set, the built-in system) of one build; other runs get their "
          "own labelled rows");
  sub.Add("--db", opt->db, "Results database (SQLite; default podbench.db)");
  AddFormatOption(sub, &opt->format, true);
  sub.Callback([opt, &ctx] {
    // A misspelt name would otherwise print a table with no runs.
    auto model = workloads::WorkloadNamed(opt->workload);
    if (!model.ok()) return Fail(ctx, "scaling", model.status());
    if (!opt->scaling.preset.empty()) {
      if (Status st = workloads::CheckPreset(**model, opt->scaling.preset); !st.ok()) {
        return Fail(ctx, "scaling", st.WithContext("--preset " + opt->scaling.preset));
      }
    }
    auto store = OpenExistingStore(opt->db, ctx, "scaling");
    if (!store) return;
    auto table = results::ScalingFromStore(*store, opt->workload, opt->scaling);
    if (!table.ok()) return Fail(ctx, "scaling", table.status());
    switch (opt->format) {
      case OutputFormat::kText: results::WriteScalingText(ctx.out, *table); break;
      case OutputFormat::kCsv: results::WriteScalingCsv(ctx.out, *table); break;
      case OutputFormat::kJson: ctx.out << results::ScalingToJson(*table).dump(2) << "\n"; break;
    }
  });
}

}  // namespace podbench::cli
