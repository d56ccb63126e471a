// Run observers that turn the lifecycle's events into output: the MLPerf log
// file, the results store, and a progress bar.
#pragma once

#include <fstream>
#include <memory>
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

// A one-line progress bar, redrawn in place; only used on a terminal.
// `prefix` starts the line (e.g. which workload and slice).
class ProgressReporter : public RunObserver {
 public:
  ProgressReporter(std::ostream& out, int run_index, int runs, std::string prefix = "")
      : out_(out), run_(run_index), runs_(runs), prefix_(std::move(prefix)) {}
  Status OnEvent(const RunEvent&) override { return Status::Ok(); }
  Status OnBlockDone(int64_t last_epoch, int64_t max_epochs) override;
  Status OnFinish(const RunSummary&) override;

 private:
  std::ostream& out_;
  int run_, runs_;
  std::string prefix_;
};

}  // namespace podbench::harness
