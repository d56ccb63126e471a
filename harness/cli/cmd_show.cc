// podbench show: show one saved run.
#include <charconv>
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "results/export.h"

namespace podbench::cli {

namespace {
struct ShowOptions {
  std::string db = "podbench.db";
  std::string run;
  OutputFormat format = OutputFormat::kText;
};
}  // namespace

void AddShowCommand(Command app, CliContext& ctx) {
  Command sub = app.AddSubcommand("show", "Show one run: settings, evals, time breakdown, log");
  auto opt = std::make_shared<ShowOptions>();
  sub.Add("run", opt->run, "Run id").Required();
  sub.Add("--db", opt->db, "Results database (SQLite; default podbench.db)");
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] {
    int64_t id = 0;
    auto [p, ec] = std::from_chars(opt->run.data(), opt->run.data() + opt->run.size(), id);
    if (ec != std::errc() || p != opt->run.data() + opt->run.size() || id <= 0) {
      return Fail(ctx, "show", Status::InvalidArgument("'" + opt->run + "' is not a run id"));
    }
    auto store = OpenExistingStore(opt->db, ctx, "show");
    if (!store) return;
    results::RunDetail d;
    auto run = store->GetRun(id);
    if (!run.ok()) return Fail(ctx, "show", run.status());
    d.run = *run;
    auto evals = store->Evals(id);
    auto breakdown = store->Breakdown(id);
    auto events = store->Events(id);
    for (const Status& st : {evals.status(), breakdown.status(), events.status()}) {
      if (!st.ok()) return Fail(ctx, "show", st);
    }
    d.evals = *evals;
    d.breakdown = *breakdown;
    d.events = static_cast<int64_t>(events->size());
    // The log marks modelled eval values (projected mode) in their metadata.
    for (const results::LogEvent& e : *events) {
      if (e.key != "eval_accuracy") continue;
      auto meta = nlohmann::json::parse(e.metadata_json, nullptr, false);
      if (meta.is_object() && meta.value("modelled", false)) {
        d.evals_modelled = meta.value("model", std::string("modelled"));
        break;
      }
    }
    if (opt->format == OutputFormat::kJson) {
      ctx.out << results::RunDetailToJson(d).dump(2) << "\n";
    } else {
      results::WriteRunDetailText(ctx.out, d);
    }
  });
}

}  // namespace podbench::cli
