// podbench run: run a workload on the emulated pod and write its MLPerf log.
#include <unistd.h>

#include <memory>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"
#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "harness/run/scored_runs.h"
#include "harness/run/settings.h"
#include "kernels/dispatch/dispatch.h"
#include "results/store.h"

namespace podbench::cli {

namespace {

struct RunCliOptions {
  harness::RunRequest request;
  uint64_t seed = 0;
  OutputFormat format = OutputFormat::kText;
};

void Execute(const RunCliOptions& opt, CliContext& ctx) {
  // The kernels' environment (PODBENCH_KERNELS, PODBENCH_KERNEL_CACHE,
  // PODBENCH_CPU_ISA) is refused here, not silently ignored by a workload.
  if (Status st = kernels::dispatch::CheckKernelEnvironment(); !st.ok()) return Fail(ctx, "run", st);
  auto settings = harness::Normalize(opt.request);
  if (!settings.ok()) return Fail(ctx, "run", settings.status());
  const harness::EffectiveRunSettings& s = *settings;
  auto store = results::ResultsStore::Open(s.request.db);
  if (!store.ok()) return Fail(ctx, "run", store.status());

  const bool text = opt.format == OutputFormat::kText;
  if (text) {
    const uint64_t last_seed = s.base_seed + static_cast<uint64_t>(s.runs) - 1;
    ctx.out << fmt::format("podbench run {} on {} ({} chips), {} mode, {}, {}\n", s.request.workload,
                           s.slice.name, s.slice.chips, workloads::ModeName(s.mode), Plural(s.runs, "run"),
                           s.runs == 1 ? fmt::format("seed {}", s.base_seed)
                                       : fmt::format("seeds {}..{}", s.base_seed, last_seed));
  }
  harness::ScoredSetOptions options;
  // The bar goes to standard error, and only to a terminal (in either format:
  // standard output keeps the text or the one JSON document).
  if (isatty(STDERR_FILENO) == 1) options.progress = &ctx.err;
  nlohmann::json runs_json = nlohmann::json::array();
  std::string check_note;
  options.on_run = [&](const harness::CompletedRun& run) {
    const harness::RunSummary& sum = run.summary;
    if (!run.not_checked_note.empty()) check_note = run.not_checked_note;
    if (text) {
      ctx.out << fmt::format(
          "  run {} (id {}, seed {}): {} after {}, {:.3f} min emulated ({:.3f} s host), "
          "step {:.4g} s, log {} ({})\n",
          run.index + 1, run.id, run.seed, run.status, Plural(sum.epochs, "epoch"), sum.ttt_emulated_s / 60,
          sum.ttt_host_s, sum.step_time_s, run.log_path.empty() ? "in memory" : run.log_path,
          run.log_check);
    }
    runs_json.push_back({{"id", run.id},
                         {"seed", run.seed},
                         {"status", run.status},
                         {"epochs", sum.epochs},
                         {"ttt_emulated_s", sum.ttt_emulated_s},
                         {"ttt_emulated_min", sum.ttt_emulated_s / 60},
                         {"ttt_host_s", sum.ttt_host_s},
                         {"step_time_s", sum.step_time_s},
                         {"throughput", sum.throughput},
                         {"log", run.log_path},
                         {"log_check", run.log_check}});
  };
  auto set = harness::RunScoredSet(s, **store, options);
  if (!set.ok() && text) return Fail(ctx, "run", set.status());
  // On an error the JSON summary still lists the runs before it (complete in
  // the store; the failing one stays incomplete with what it logged).
  if (text) {
    const std::optional<double>& score = set->score_min;
    const int scored = static_cast<int>(set->runs.size()) - set->noncompliant;
    if (score) {
      ctx.out << fmt::format("score: {:.3f} min ({} of {} scored {}, {})\n", *score,
                             scored >= 3 ? scored - 2 : scored, scored, PluralNoun(scored, "run"),
                             scored >= 3 ? "fastest and slowest dropped" : "plain mean");
    } else {
      ctx.out << "score: none (" << (scored == 0 ? "no compliant run" : "aborted runs") << ")\n";
    }
    if (!check_note.empty()) ctx.out << "logs not checked: " << check_note << "\n";
    ctx.out << "saved to " << s.request.db << "\n";
  } else {
    nlohmann::json j;
    j["workload"] = s.request.workload;
    j["slice"] = s.slice.name;
    j["chips"] = s.slice.chips;
    j["mode"] = workloads::ModeName(s.mode);
    j["db"] = s.request.db;
    j["runs"] = runs_json;
    j["score_min"] = nullptr;
    if (set.ok() && set->score_min) j["score_min"] = *set->score_min;
    j["logs_checked"] = check_note.empty();
    if (!set.ok()) j["error"] = set.status().message();
    ctx.out << j.dump(2) << "\n";
    if (!set.ok()) return Fail(ctx, "run", set.status());
  }
  // 1: a negative verdict (a run aborted, or its log fails the rules).
  ctx.exit_code = set->any_failed() ? kExitVerdict : kExitOk;
}

}  // namespace

void AddRunCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("run", "Run a workload (functional or projected) and write its MLPerf log");
  auto opt = std::make_shared<RunCliOptions>();
  harness::RunRequest& r = opt->request;
  std::string names;
  for (const auto* w : workloads::AllWorkloads()) {
    names += (names.empty() ? "" : "; ") + w->name() + (w->summary().empty() ? "" : " (" + w->summary() + ")");
  }
  sub->add_option("workload", r.workload, "Workload: " + (names.empty() ? "none built" : names))
      ->required();
  sub->add_option("--slice", r.slice, "Pod slice tpu-v3-N, N cores from 8 to 2048 (default tpu-v3-8)");
  sub->add_option("--mode", r.mode, "functional (real training, default) or projected (cost model)");
  sub->add_option("--runs", r.runs, "Number of runs (default: what a scored result needs, 5 or 10)");
  sub->add_option_function<uint64_t>("--seed", [opt](uint64_t v) { opt->request.seed = v; },
                                     "Base seed; run i uses seed+i (default: random, recorded)");
  sub->add_option("--preset", r.preset, "Hyperparameter preset, e.g. google-v0.6");
  sub->add_option("--set", r.sets, "Override a hyperparameter: key=value (repeatable)");
  sub->add_option("--log", r.log,
                  "Write the MLPerf log here (several runs: FILE_0.EXT, FILE_1.EXT, ...)");
  sub->add_option("--log-format", r.log_format,
                  "Log format: mll (v0.6 :::MLL lines, default) or mllog (v0.7+ :::MLLOG JSON lines)")
      ->check(CLI::IsMember({"mll", "mllog"}));
  sub->add_option("--db", r.db, "Results database (SQLite; default podbench.db)");
  sub->add_option("--system", r.system, "System description YAML (default: the built-in, calibrated TPU-v3)");
  sub->add_option("--label", r.label, "Tag the runs (a run set for `podbench compare`)");
  AddFormatOption(sub, &opt->format);
  sub->callback([opt, &ctx] { Execute(*opt, ctx); });
}

}  // namespace podbench::cli
