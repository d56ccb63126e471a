// podbench compare: compare two sets of runs, a CI regression gate.
#include <memory>
#include <ostream>
#include <sstream>

#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "results/compare.h"
#include "results/export.h"
#include "results/run_set.h"

namespace podbench::cli {

namespace {
struct CompareCliOptions {
  std::string db = "podbench.db";
  std::string base, cand, workload, metrics;
  results::CompareOptions compare;
  OutputFormat format = OutputFormat::kText;
};

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}
}  // namespace

void AddCompareCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand(
      "compare", "Compare two run sets (Mann-Whitney U); exit 1 on a significant regression");
  auto opt = std::make_shared<CompareCliOptions>();
  sub->add_option("base", opt->base,
                  "Baseline run set: ids (3,4,5 or 3-7), label:NAME (or NAME), git:PREFIX")
      ->required();
  sub->add_option("cand", opt->cand, "Candidate run set, same syntax")->required();
  sub->add_option("--max-regression", opt->compare.max_regression_pct,
                  "Allowed regression of a median, in percent (default 5)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--alpha", opt->compare.alpha, "Significance level of the U test (default 0.05)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--metrics", opt->metrics,
                  "Comma-separated metrics to gate on (default time_to_train,step_time,throughput;"
                  " also host_time)");
  sub->add_option("--workload", opt->workload, "Only runs of this workload, in both sets");
  sub->add_option("--db", opt->db, "Results database (SQLite; default podbench.db)");
  AddFormatOption(sub, &opt->format, true);
  sub->callback([opt, &ctx] {
    if (!opt->metrics.empty()) opt->compare.metrics = SplitCommas(opt->metrics);
    for (const auto& m : opt->compare.metrics) {
      if (auto def = results::FindMetric(m); !def.ok()) return Fail(ctx, "compare", def.status());
    }
    auto bf = results::ParseRunSet(opt->base);
    if (!bf.ok()) return Fail(ctx, "compare", bf.status());
    auto cf = results::ParseRunSet(opt->cand);
    if (!cf.ok()) return Fail(ctx, "compare", cf.status());
    bf->workload = cf->workload = opt->workload;
    auto store = OpenExistingStore(opt->db, ctx, "compare");
    if (!store) return;
    auto base = store->ListRuns(*bf);
    if (!base.ok()) return Fail(ctx, "compare", base.status());
    auto cand = store->ListRuns(*cf);
    if (!cand.ok()) return Fail(ctx, "compare", cand.status());
    for (auto [runs, spec] : {std::pair{&*base, &opt->base}, std::pair{&*cand, &opt->cand}}) {
      if (runs->empty()) {
        return Fail(ctx, "compare",
                    Status::NotFound(opt->db + ": run set '" + *spec + "' matches no run"));
      }
    }
    auto c = results::Compare(*base, *cand, opt->compare);
    if (!c.ok()) return Fail(ctx, "compare", c.status());
    switch (opt->format) {
      case OutputFormat::kText: results::WriteComparisonText(ctx.out, *c, opt->compare); break;
      case OutputFormat::kCsv: results::WriteComparisonCsv(ctx.out, *c); break;
      case OutputFormat::kJson:
        ctx.out << results::ComparisonToJson(*c, opt->compare).dump(2) << "\n";
        break;
    }
    ctx.exit_code = c->regression() ? kExitVerdict : kExitOk;
  });
}

}  // namespace podbench::cli
