// podbench scaling: per-slice scaling table against published v0.6 results.
#include <map>
#include <memory>
#include <ostream>

#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "results/scaling.h"

namespace podbench::cli {

namespace {
struct ScalingCliOptions {
  std::string workload, db = "podbench.db";
  results::ScalingOptions scaling;
  OutputFormat format = OutputFormat::kText;
};
}  // namespace

void AddScalingCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand(
      "scaling", "Scaling table of a workload per slice, against the published v0.6 results");
  auto opt = std::make_shared<ScalingCliOptions>();
  sub->add_option("workload", opt->workload, "Workload name")->required();
  sub->add_option("--preset", opt->scaling.preset,
                  "Only runs made with this preset (e.g. google-v0.6); lists every published slice");
  sub->add_option("--db", opt->db, "Results database (SQLite; default podbench.db)");
  AddFormatOption(sub, &opt->format, true);
  sub->callback([opt, &ctx] {
    auto store = OpenExistingStore(opt->db, ctx, "scaling");
    if (!store) return;
    results::RunFilter f;
    f.workload = opt->workload;
    f.mode = "projected";
    auto runs = store->ListRuns(f);
    if (!runs.ok()) return Fail(ctx, "scaling", runs.status());
    std::map<int64_t, std::vector<results::EvalRecord>> evals;
    std::map<int64_t, results::StepBreakdown> breakdowns;
    for (const auto& r : *runs) {
      auto e = store->Evals(r.id);
      if (!e.ok()) return Fail(ctx, "scaling", e.status());
      evals[r.id] = std::move(e).value();
      auto b = store->Breakdown(r.id);
      if (!b.ok()) return Fail(ctx, "scaling", b.status());
      if (b->has_value()) breakdowns[r.id] = **b;
    }
    auto rows = results::BuildScalingTable(opt->workload, *runs, evals, opt->scaling, breakdowns);
    switch (opt->format) {
      case OutputFormat::kText: results::WriteScalingText(ctx.out, opt->workload, rows); break;
      case OutputFormat::kCsv: results::WriteScalingCsv(ctx.out, rows); break;
      case OutputFormat::kJson: ctx.out << results::ScalingToJson(rows).dump(2) << "\n"; break;
    }
  });
}

}  // namespace podbench::cli
