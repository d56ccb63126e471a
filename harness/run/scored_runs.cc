#include "harness/run/scored_runs.h"

#include <unistd.h>

#include <memory>

#include "base/version.h"
#include "harness/run/log_check.h"
#include "harness/run/reporters.h"
#include "results/scaling.h"

namespace podbench::harness {
namespace {

std::string HostName() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

results::NewRun NewRunOf(const EffectiveRunSettings& s, int index) {
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
  nr.seed = s.base_seed + static_cast<uint64_t>(index);
  nr.global_batch = s.description.global_batch;
  nr.git_hash = GitHash();
  nr.host = HostName();
  nr.log_path = s.LogPath(index);
  nr.description = StoredDescriptionOf(s.description);
  return nr;
}

}  // namespace

Result<ScoredSet> RunScoredSet(const EffectiveRunSettings& s, results::ResultsStore& store,
                               const ScoredSetOptions& options) {
  std::vector<results::QualityTargetRecord> targets;
  for (const workloads::QualityTarget& t : s.description.targets) {
    targets.push_back({t.metric, t.target, t.higher_is_better});
  }
  ScoredSet set;
  std::vector<std::optional<double>> ttt;
  for (int i = 0; i < s.runs; ++i) {
    const results::NewRun nr = NewRunOf(s, i);
    // The log first: a path that cannot be written stops before the run is
    // recorded. Without a path it is kept in memory, for the check.
    PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<LogReporter> log, LogReporter::Create(nr.log_path, s.log_format));
    PODBENCH_ASSIGN_OR_RETURN(const int64_t id, store.BeginRun(nr));
    PODBENCH_RETURN_IF_ERROR(store.SetTargets(id, targets));

    std::vector<RunObserver*> observers{log.get()};
    StoreReporter store_reporter(store, id);
    observers.push_back(&store_reporter);
    std::unique_ptr<ProgressReporter> bar;
    if (options.progress != nullptr) {
      bar = std::make_unique<ProgressReporter>(*options.progress, i, s.runs, options.progress_prefix);
      observers.push_back(bar.get());
    }
    auto sum = RunOnce(s, i, observers);
    if (!sum.ok()) {
      (void)store_reporter.Flush();  // keep what the failed run logged; its error is what matters
      return sum.status().WithContext("run " + std::to_string(id));
    }

    const std::string log_name = nr.log_path.empty() ? "run " + std::to_string(id) + "'s log" : nr.log_path;
    const LogVerdict checked = CheckLogText(log->text(), s.log_format, log_name, s.description);
    const RunVerdict verdict = JudgeRun(sum->success, checked);
    PODBENCH_RETURN_IF_ERROR(store.FinishRun(id, RunOutcomeOf(*sum, verdict.status)));

    CompletedRun run;
    run.index = i;
    run.id = id;
    run.seed = nr.seed;
    run.log_path = nr.log_path;
    run.summary = *sum;
    run.status = verdict.status;
    run.log_check = verdict.check;
    if (!checked.checked) run.not_checked_note = checked.note;
    if (verdict.status == "aborted") ++set.aborted;
    if (verdict.status == "noncompliant") {
      ++set.noncompliant;  // recorded, never scored
    } else {
      ttt.push_back(sum->success ? std::optional<double>(sum->ttt_emulated_s) : std::nullopt);
    }
    if (options.on_run) options.on_run(run);
    set.runs.push_back(std::move(run));
  }
  set.score_min = results::OlympicMeanMinutes(ttt);
  return set;
}

}  // namespace podbench::harness
