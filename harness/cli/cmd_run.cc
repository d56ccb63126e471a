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
#include "results/scaling.h"
#include "results/store.h"

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
  std::vector<std::optional<double>> ttt;
  std::string check_note;
  bool invalid_log = false;
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
    nr.description = harness::StoredDescriptionOf(s.description);
    // The log file first: a path that cannot be written stops before the run is recorded.
    std::unique_ptr<harness::MllLogReporter> log;
    if (!nr.log_path.empty()) {
      auto l = harness::MllLogReporter::Create(nr.log_path);
      if (!l.ok()) return Fail(ctx, "run", l.status());
      log = std::move(l).value();
    }
    auto id = (*store)->BeginRun(nr);
    if (!id.ok()) return Fail(ctx, "run", id.status());

    std::vector<harness::RunObserver*> observers;
    if (log) observers.push_back(log.get());
    harness::StoreReporter store_reporter(**store, *id);
    observers.push_back(&store_reporter);
    harness::ProgressReporter bar(ctx.err, i, s.runs);
    if (progress) observers.push_back(&bar);

    auto sum = harness::RunOnce(s, i, observers);
    if (!sum.ok()) {
      return Fail(ctx, "run", sum.status().WithContext("run " + std::to_string(*id)));
    }
    log.reset();  // closes the file before it is checked
    std::string checked = "not checked";
    if (!nr.log_path.empty()) {
      Status st = harness::CheckWrittenLog(nr.log_path, s.description);
      if (st.ok()) {
        checked = "passes the v0.6 rules";
      } else if (st.code() == Status::Code::kUnimplemented) {
        check_note = st.message();
      } else {
        checked = "FAILS the v0.6 rules: " + st.message();
        invalid_log = true;
      }
    }
    ttt.push_back(sum->success ? std::optional<double>(sum->ttt_emulated_s) : std::nullopt);
    const char* status = sum->success ? "success" : "aborted";
    if (text) {
      ctx.out << fmt::format(
          "  run {} (id {}, seed {}): {} after {} epochs, {:.3f} min emulated ({:.3f} s host), "
          "step {:.4g} s{}\n",
          i + 1, *id, nr.seed, status, sum->epochs, sum->ttt_emulated_s / 60, sum->ttt_host_s,
          sum->step_time_s, nr.log_path.empty() ? "" : ", log " + nr.log_path + " (" + checked + ")");
    }
    runs_json.push_back({{"id", *id},
                         {"seed", nr.seed},
                         {"status", status},
                         {"epochs", sum->epochs},
                         {"ttt_emulated_s", sum->ttt_emulated_s},
                         {"ttt_emulated_min", sum->ttt_emulated_s / 60},
                         {"ttt_host_s", sum->ttt_host_s},
                         {"step_time_s", sum->step_time_s},
                         {"throughput", sum->throughput},
                         {"log", nr.log_path},
                         {"log_check", checked}});
  }
  std::optional<double> score = results::OlympicMeanMinutes(ttt);
  if (text) {
    if (score) {
      ctx.out << fmt::format("score: {:.3f} min ({} of {} runs, {})\n", *score,
                             s.runs >= 3 ? s.runs - 2 : s.runs, s.runs,
                             s.runs >= 3 ? "fastest and slowest dropped" : "plain mean");
    } else {
      ctx.out << "score: none (aborted runs)\n";
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
    j["score_min"] = score ? nlohmann::json(*score) : nlohmann::json(nullptr);
    j["logs_checked"] = check_note.empty();
    ctx.out << j.dump(2) << "\n";
  }
  ctx.exit_code = invalid_log ? kExitVerdict : kExitOk;
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
                  "Write the :::MLL log here (several runs: FILE_0.EXT, FILE_1.EXT, ...)");
  sub->add_option("--db", r.db, "Results database (SQLite; default podbench.db)");
  sub->add_option("--system", r.system, "System description YAML (default: the built-in, calibrated TPU-v3)");
  sub->add_option("--label", r.label, "Tag the runs (a run set for `podbench compare`)");
  AddFormatOption(sub, &opt->format);
  sub->callback([opt, &ctx] { Execute(*opt, ctx); });
}

}  // namespace podbench::cli
