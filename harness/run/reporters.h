// Run observers that turn the lifecycle's events into output: the MLPerf log
// file, the results store, and a progress bar.
#pragma once

#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "harness/run/lifecycle.h"
#include "results/store.h"
#include "rules/mllog/writer.h"

namespace podbench::harness {

// What the results store keeps of a run's description: model, data and the
// parallel layout (its enums by name).
results::StoredDescription StoredDescriptionOf(const workloads::WorkloadDescription& d);

// Writes the :::MLL (v0.6) log to a file, line by line, flushed as written.
class MllLogReporter : public RunObserver {
 public:
  // IOError naming the file when it cannot be created.
  static Result<std::unique_ptr<MllLogReporter>> Create(const std::string& path);
  Status OnEvent(const RunEvent& e) override;

 private:
  explicit MllLogReporter(std::string path);
  std::string path_;
  std::ofstream out_;
  std::unique_ptr<mllog::LogWriter> writer_;
};

// Records the run in the results store: inserted as running by the caller,
// events and evals appended one transaction per block, the step breakdown and
// the outcome at the end. A killed process leaves whole blocks behind.
class StoreReporter : public RunObserver {
 public:
  StoreReporter(results::ResultsStore& store, int64_t run_id) : store_(store), run_id_(run_id) {}
  Status OnEvent(const RunEvent& e) override;
  Status OnEval(const EvalPoint& p) override;
  Status OnBlockDone(int64_t, int64_t) override { return Flush(); }
  Status OnFinish(const RunSummary& s) override;

 private:
  Status Flush();
  results::ResultsStore& store_;
  int64_t run_id_;
  int64_t seq_ = 0;
  std::vector<results::LogEvent> events_;
  std::vector<results::EvalRecord> evals_;
};

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
