// podbench run: run a workload on the emulated pod and write its MLPerf log.
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/version.h"
#include "harness/cli/command.h"
#include "harness/cli/store_util.h"
#include "harness/run/lifecycle.h"
#include "harness/run/log_check.h"
#include "harness/run/reporters.h"
#include "harness/run/settings.h"
#include "results/store.h"
#include "rules/score.h"

namespace podbench::cli {

namespace {

struct RunCliOptions {
  harness::RunRequest request;
  uint64_t seed = 0;
  OutputFormat format = OutputFormat::kText;
};

std::string HostName() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

void Execute(const RunCliOptions& opt, CliContext& ctx) {
  auto settings = harness::Normalize(opt.request);
  if (!settings.ok()) return Fail(ctx, "run", settings.status());
  const harness::EffectiveRunSettings& s = *settings;
  auto store = results::ResultsStore::Open(s.request.db);
  if (!store.ok()) return Fail(ctx, "run", store.status());

  const bool text = opt.format == OutputFormat::kText;
  const bool progress = text && isatty(STDERR_FILENO) == 1;
  if (text) {
    ctx.out << fmt::format("podbench run {} on {} ({} chips), {} mode, {} run{}, seeds {}..{}\n",
                           s.request.workload, s.slice.name, s.slice.chips,
                           workloads::ModeName(s.mode), s.runs, s.runs == 1 ? "" : "s",
                           s.base_seed, s.base_seed + static_cast<uint64_t>(s.runs) - 1);
  }
  nlohmann::json runs_json = nlohmann::json::array();
  std::vector<rules::RunTime> scored;  // compliant runs, as `podbench score` reads their logs
  std::string check_note;
  int failed = 0;  // aborted or non-compliant runs
  // Prints the summary of the runs so far; on an error, with the error (the
  // runs before it are complete in the store, the failing one stays
  // incomplete with what it logged).
  auto summarize = [&](const Status* error) {
    std::optional<double> score = rules::OlympicMean(scored);
    if (text) {
      if (error) return;
      if (score) {
        ctx.out << fmt::format("score: {:.3f} min ({} of {} scored runs, {})\n", *score,
                               scored.size() >= 3 ? scored.size() - 2 : scored.size(), scored.size(),
                               scored.size() >= 3 ? "fastest and slowest dropped" : "plain mean");
      } else {
        ctx.out << "score: none (" << (scored.empty() ? "no compliant run" : "aborted runs") << ")\n";
      }
      if (!check_note.empty()) ctx.out << "logs not checked: " << check_note << "\n";
      ctx.out << "saved to " << s.request.db << "\n";
      return;
    }
    nlohmann::json j;
    j["workload"] = s.request.workload;
    j["slice"] = s.slice.name;
    j["chips"] = s.slice.chips;
    j["mode"] = workloads::ModeName(s.mode);
    j["db"] = s.request.db;
    j["runs"] = runs_json;
    j["score_min"] = score ? nlohmann::json(*score) : nlohmann::json(nullptr);
    j["logs_checked"] = check_note.empty();
    if (error) j["error"] = error->message();
    ctx.out << j.dump(2) << "\n";
  };
  auto fail = [&](const Status& st) {
    summarize(&st);
    Fail(ctx, "run", st);
  };
  for (int i = 0; i < s.runs; ++i) {
    results::NewRun nr;
    nr.label = s.request.label;
    nr.workload = s.request.workload;
    nr.slice = s.slice.name;
    nr.cores = s.slice.cores;
    nr.chips = s.slice.chips;
    nr.mode = workloads::ModeName(s.mode);
    nr.preset = s.request.preset;
    nr.flags_json = s.FlagsJson();
    nr.hyperparameters_json = s.HyperparametersJson();
    nr.seed = s.base_seed + static_cast<uint64_t>(i);
    nr.global_batch = s.description.global_batch;
    nr.git_hash = GitHash();
    nr.host = HostName();
    nr.log_path = s.LogPath(i);
    // The log first: a path that cannot be written stops before the run is
    // recorded. Without --log it is kept in memory, for the check.
    auto log = harness::LogReporter::Create(nr.log_path, s.log_format);
    if (!log.ok()) return fail(log.status());
    auto id = (*store)->BeginRun(nr);
    if (!id.ok()) return fail(id.status());

    std::vector<harness::RunObserver*> observers{log->get()};
    harness::StoreReporter store_reporter(**store, *id);
    observers.push_back(&store_reporter);
    harness::ProgressReporter bar(ctx.err, i, s.runs);
    if (progress) observers.push_back(&bar);

    auto sum = harness::RunOnce(s, i, observers);
    if (!sum.ok()) {
      (void)store_reporter.Flush();  // keep what the failed run logged; the error below is what matters
      return fail(sum.status().WithContext("run " + std::to_string(*id)));
    }
    const std::string log_name = nr.log_path.empty() ? "run " + std::to_string(*id) + "'s log" : nr.log_path;
    const harness::LogVerdict checked = harness::CheckLogText((*log)->text(), s.log_format, log_name, s.description);
    if (!checked.checked) check_note = checked.note;
    const harness::RunVerdict verdict = harness::JudgeRun(sum->success, checked);
    Status finished = (*store)->FinishRun(*id, harness::RunOutcomeOf(*sum, verdict.status));
    if (!finished.ok()) return fail(finished);
    if (verdict.status != "success") ++failed;
    if (verdict.status != "noncompliant") {
      rules::RunTime rt;
      rt.converged = sum->success;
      rt.stopped = true;
      rt.minutes = sum->ttt_emulated_s / 60;
      scored.push_back(rt);
    }
    if (text) {
      ctx.out << fmt::format(
          "  run {} (id {}, seed {}): {} after {} epochs, {:.3f} min emulated ({:.3f} s host), "
          "step {:.4g} s, log {}{}\n",
          i + 1, *id, nr.seed, verdict.status, sum->epochs, sum->ttt_emulated_s / 60, sum->ttt_host_s,
          sum->step_time_s, nr.log_path.empty() ? "in memory" : nr.log_path, " (" + verdict.check + ")");
    }
    runs_json.push_back({{"id", *id},
                         {"seed", nr.seed},
                         {"status", verdict.status},
                         {"epochs", sum->epochs},
                         {"ttt_emulated_s", sum->ttt_emulated_s},
                         {"ttt_emulated_min", sum->ttt_emulated_s / 60},
                         {"ttt_host_s", sum->ttt_host_s},
                         {"step_time_s", sum->step_time_s},
                         {"throughput", sum->throughput},
                         {"log", nr.log_path},
                         {"log_check", verdict.check}});
  }
  summarize(nullptr);
  // 1: a negative verdict (a run aborted, or its log fails the rules).
  ctx.exit_code = failed > 0 ? kExitVerdict : kExitOk;
}

}  // namespace

void AddRunCommand(CLI::App& app, CliContext& ctx) {
  auto* sub = app.add_subcommand("run", "Run a workload (functional or projected) and write its MLPerf log");
  auto opt = std::make_shared<RunCliOptions>();
  harness::RunRequest& r = opt->request;
  std::string names;
  for (const auto* w : workloads::AllWorkloads()) names += (names.empty() ? "" : ", ") + w->name();
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
