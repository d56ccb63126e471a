// The MLPerf v0.6 run lifecycle, owned by the harness.
//
// One call runs one run of a workload and emits, in order, on the emulated
// TPU clock:
//   submission_benchmark/org/division/status/platform/entry/poc_name/poc_email,
//   cache_clear, init_start, the logged hyperparameters, the workload's init
//   events, init_stop, run_start,
//   per block: block_start, per epoch epoch_start, the workload's events of
//   that epoch, epoch_stop; then eval_start, eval_stop, eval_accuracy (shaped
//   as the description's EvalLogging says), the workload's events of that
//   evaluation, block_stop;
//   then run_stop with status success (every quality target reached) or
//   aborted (max_epochs reached first, or training diverged:
//   BlockResult::diverged ends the run after that block's evaluation).
// When evaluation runs beside training (EvalCadence::beside_training), no
// block_start/block_stop are written and each evaluation's lines are placed
// at their own emulated times, merged with the training lines in time order
// (see workloads/workload.h); run_stop follows the last evaluation.
// Emulated timestamps start at the host's Unix time when the run begins and
// advance only by what the workload reports each block and evaluation cost;
// every event also carries the host clock (seconds since the run began).
// The workload never sees the log or the clocks: its own lines
// (WorkloadEvent) are stamped and written here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "harness/run/settings.h"
#include "rules/mllog/value.h"
#include "workloads/workload.h"

namespace podbench::harness {

struct RunEvent {
  double ts_emulated_s = 0;  // the log timestamp (seconds)
  double ts_host_s = 0;      // host seconds since the run began
  std::string key;
  mllog::Value value;
  mllog::Value metadata;     // a dict or null
};

struct EvalPoint {
  int64_t epoch = 0;
  std::string metric;
  double value = 0;
  double ts_emulated_s = 0;
  double ts_host_s = 0;
};

struct RunSummary {
  bool success = false;  // every target reached
  // Time to train, from run_start to the run's end: run_stop, or, for a
  // successful RunEnd::kWinningModel run (MiniGo), the end of the training
  // of the winning model (the time its eval_result gives), before run_stop.
  double ttt_emulated_s = 0, ttt_host_s = 0;
  double init_emulated_s = 0;
  int64_t steps = 0;
  int64_t epochs = 0;
  double step_time_s = 0;   // mean emulated training seconds per step
  double throughput = 0;    // examples per emulated second of training
  workloads::TimeBreakdown train;  // summed over the run
  double evaluation_s = 0;  // emulated seconds of every evaluation (beside training or not)
  // Functional mode: the session's ParameterFingerprint() after the run;
  // empty when the workload has none.
  std::string parameter_fingerprint;
  double train_host_s = 0;  // host seconds inside the session's TrainBlock calls
};

// Training progress between evaluations: a step a functional session
// finished (workloads::RunContext::on_step), with the harness's host clock.
struct TrainProgress {
  workloads::StepDone step;  // epoch, step in the epoch, steps in the epoch
  int64_t max_epochs = 0;
  int64_t steps_done = 0;          // the run's training steps so far, this one included
  int64_t examples_per_step = 0;   // the global batch
  double host_s = 0;               // host seconds since the run began
};

// Receives the run as it happens: the log writer, the results store, the
// progress bar. A non-OK Status aborts the run with that error.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual Status OnEvent(const RunEvent& e) = 0;
  virtual Status OnEval(const EvalPoint&) { return Status::Ok(); }
  // After each training step of a functional run (projected sessions report
  // none). For display only: it cannot fail the run.
  virtual void OnTrainStep(const TrainProgress&) {}
  // After each block (a natural point to flush).
  virtual Status OnBlockDone(int64_t last_epoch, int64_t max_epochs) {
    (void)last_epoch;
    (void)max_epochs;
    return Status::Ok();
  }
  virtual Status OnFinish(const RunSummary&) { return Status::Ok(); }
};

// OK when the harness may write `event` for the run of `settings`: Internal,
// naming the key, for a key the harness writes itself (the v0.6 lifecycle
// keys above, a logged hyperparameter) or that is not letters, digits and
// '_', and for metadata that is not a dict or holds "file" or "lineno".
Status CheckWorkloadEvent(const EffectiveRunSettings& settings, const workloads::WorkloadEvent& event);

// Runs run `index` (0-based) of `settings` with seed base_seed + index.
Result<RunSummary> RunOnce(const EffectiveRunSettings& settings, int index,
                           const std::vector<RunObserver*>& observers);

}  // namespace podbench::harness
