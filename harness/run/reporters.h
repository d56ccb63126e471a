// Run observers that turn the lifecycle's events into output: the MLPerf log
// file, the results store, and a progress bar.
#pragma once

#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/run/lifecycle.h"
#include "results/store.h"
#include "rules/mllog/writer.h"

namespace podbench::harness {

// What the results store keeps of a run's description: model, data and the
// parallel layout (its enums by name).
results::StoredDescription StoredDescriptionOf(const workloads::WorkloadDescription& d);

// Writes the run's MLPerf log, :::MLL (v0.6) or :::MLLOG (v0.7+; keys ending
// in _start/_stop as INTERVAL_START/INTERVAL_END events), line by line. The
// text is kept for the harness's rule check; with a path it is also written
// to that file, flushed line by line (a killed run leaves what it logged).
class LogReporter : public RunObserver {
 public:
  // `path` empty: in memory only. IOError naming the file when it cannot be created.
  static Result<std::unique_ptr<LogReporter>> Create(const std::string& path,
                                                     mllog::Format format = mllog::Format::kMll);
  Status OnEvent(const RunEvent& e) override;
  const std::string& text() const { return text_; }
  mllog::Format format() const { return writer_->format(); }

 private:
  explicit LogReporter(std::string path);
  std::string path_;
  std::ofstream out_;
  std::ostringstream line_;
  std::string text_;
  std::unique_ptr<mllog::LogWriter> writer_;
};

// Records the run in the results store: inserted as running by the caller,
// events and evals appended one transaction per block, the step breakdown at
// the end. The outcome is the caller's to record (results::ResultsStore::
// FinishRun with RunOutcomeOf), after it has checked the log. A killed
// process leaves whole blocks behind.
class StoreReporter : public RunObserver {
 public:
  StoreReporter(results::ResultsStore& store, int64_t run_id) : store_(store), run_id_(run_id) {}
  Status OnEvent(const RunEvent& e) override;
  Status OnEval(const EvalPoint& p) override;
  Status OnBlockDone(int64_t, int64_t) override { return Flush(); }
  Status OnFinish(const RunSummary& s) override;
  // Stores what has been logged since the last block (a run that failed
  // midway keeps its events).
  Status Flush();

 private:
  results::ResultsStore& store_;
  int64_t run_id_;
  int64_t seq_ = 0;
  std::vector<results::LogEvent> events_;
  std::vector<results::EvalRecord> evals_;
};

// The stored outcome of a run that ended with `summary`, under `status`
// ("success", "aborted" or "noncompliant").
results::RunOutcome RunOutcomeOf(const RunSummary& summary, std::string status);

// What the progress bar shows at one moment of run `run` (0-based) of `runs`.
struct ProgressView {
  int run = 0, runs = 1;
  // The epoch under way (1-based) with `step` of its `steps_per_epoch` steps
  // done; steps_per_epoch 0 when steps are not reported (projected mode):
  // then `epoch` epochs are done.
  int64_t epoch = 0, max_epochs = 0;
  int64_t step = 0, steps_per_epoch = 0;
  // Training steps a host second over the run so far (its evaluations
  // included); unknown before two steps are seen.
  std::optional<double> steps_per_s = std::nullopt;
  int64_t examples_per_step = 0;  // the global batch; 0: not shown
};

// The bar's text, one line without "\r" or "\n": `prefix`, the run, a bar of
// the epochs done of max_epochs, the epoch and step, the rate (steps/s and
// examples/s) and the time left at most (the steps to max_epochs at that
// rate; a run that reaches its target ends sooner), e.g.
//   run 1/5 [##########                    ] epoch 33/81 step 120/450,
//   12.5 steps/s, 1600 examples/s, at most 1h01m left
// (one line). The parts not known are left out.
std::string ProgressText(const std::string& prefix, const ProgressView& v);

// "42s", "4m05s", "1h02m": a duration of `seconds` (>= 0) as a person reads it.
std::string ShortDuration(double seconds);

// A one-line progress bar, redrawn in place; only used on a terminal.
// `prefix` starts the line (e.g. which workload and slice). Redrawn at every
// block's end, and between evaluations at each epoch's last step and at most
// every kRedrawS host seconds.
class ProgressReporter : public RunObserver {
 public:
  static constexpr double kRedrawS = 0.2;
  ProgressReporter(std::ostream& out, int run_index, int runs, std::string prefix = "")
      : out_(out), prefix_(std::move(prefix)) {
    view_.run = run_index;
    view_.runs = runs;
  }
  Status OnEvent(const RunEvent&) override { return Status::Ok(); }
  void OnTrainStep(const TrainProgress& p) override;
  Status OnBlockDone(int64_t last_epoch, int64_t max_epochs) override;
  Status OnFinish(const RunSummary&) override;

 private:
  void Draw();
  std::ostream& out_;
  std::string prefix_;
  ProgressView view_;
  std::optional<TrainProgress> first_;  // the run's first step: where the rate is measured from
  std::optional<double> drawn_at_s_;    // host time of the last redraw at a step
  size_t drawn_width_ = 0;              // of the line on screen
};

}  // namespace podbench::harness
