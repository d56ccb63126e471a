// podbench runs: list runs saved in the results database.
#include <memory>
#include <ostream>

#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "results/export.h"
#include "results/run_set.h"

namespace podbench::cli {

namespace {
struct RunsOptions {
  std::string db = "podbench.db";
  std::string workload;
  std::string set;
  OutputFormat format = OutputFormat::kText;
};
}  // namespace

void AddRunsCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("runs", "List runs saved in the results database");
  auto opt = std::make_shared<RunsOptions>();
  sub.Add("--db", opt->db, "Results database (SQLite; default podbench.db)");
  sub.Add("--workload", opt->workload, "Only runs of this workload");
  sub.Add("--select", opt->set,
          "Only this run set: ids (3,4 or 3-7), label:NAME or git:PREFIX");
  AddFormatOption(sub, &opt->format, true);
  sub.Callback([opt, &ctx] {
    results::RunFilter filter;
    if (!opt->set.empty()) {
      auto f = results::ParseRunSet(opt->set);
      if (!f.ok()) return Fail(ctx, "runs", f.status());
      filter = *f;
    }
    filter.workload = opt->workload;
    auto store = OpenExistingStore(opt->db, ctx, "runs");
    if (!store) return;
    auto runs = store->ListRuns(filter);
    if (!runs.ok()) return Fail(ctx, "runs", runs.status());
    switch (opt->format) {
      case OutputFormat::kText: results::WriteRunsText(ctx.out, *runs); break;
      case OutputFormat::kCsv: results::WriteRunsCsv(ctx.out, *runs); break;
      case OutputFormat::kJson: {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& r : *runs) j.push_back(results::RunToJson(r));
        ctx.out << j.dump(2) << "\n";
        break;
      }
    }
  });
}

}  // namespace podbench::cli
