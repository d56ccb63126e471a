// The MLPerf v0.6 run lifecycle, owned by the harness.
//
// One call runs one run of a workload and emits, in order, on the emulated
// TPU clock:
//   submission_benchmark/org/division/status/platform/entry/poc_name/poc_email,
//   cache_clear, init_start, the logged hyperparameters, init_stop, run_start,
//   per block: block_start, epoch_start/epoch_stop per epoch, eval_start,
//   eval_stop, eval_accuracy, block_stop; then run_stop with status success
//   (every quality target reached) or aborted (max_epochs reached first, or
//   training diverged: BlockResult::diverged ends the run after that block).
// Emulated timestamps start at the host's Unix time when the run begins and
// advance only by what the workload reports each block and evaluation cost;
// every event also carries the host clock (seconds since the run began).
// The workload never sees the log or the clocks.
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
  double ttt_emulated_s = 0, ttt_host_s = 0;  // run_start -> run_stop
  double init_emulated_s = 0;
  int64_t steps = 0;
  int64_t epochs = 0;
  double step_time_s = 0;   // mean emulated training seconds per step
  double throughput = 0;    // examples per emulated second of training
  workloads::TimeBreakdown train;  // summed over the run
  double evaluation_s = 0;
};

// Receives the run as it happens: the log writer, the results store, the
// progress bar. A non-OK Status aborts the run with that error.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual Status OnEvent(const RunEvent& e) = 0;
  virtual Status OnEval(const EvalPoint&) { return Status::Ok(); }
  // After each block (a natural point to flush).
  virtual Status OnBlockDone(int64_t last_epoch, int64_t max_epochs) {
    (void)last_epoch;
    (void)max_epochs;
    return Status::Ok();
  }
  virtual Status OnFinish(const RunSummary&) { return Status::Ok(); }
};

// Runs run `index` (0-based) of `settings` with seed base_seed + index.
Result<RunSummary> RunOnce(const EffectiveRunSettings& settings, int index,
                           const std::vector<RunObserver*>& observers);

}  // namespace podbench::harness
