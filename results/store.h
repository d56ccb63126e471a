// The results store: every run podbench makes, in one SQLite file.
//
// Default file: podbench.db in the working directory (`--db` elsewhere). The
// schema is versioned through PRAGMA user_version and migrated forward, in one
// transaction, when a store is opened (see docs/results.md for the tables).
// The file runs in WAL mode with a busy timeout, and every write is one
// BEGIN IMMEDIATE transaction, so several podbench processes can write one
// database at once without losing anything.
//
// Run lifecycle in the store: BeginRun inserts the run as 'running' with
// complete = 0; events, evals and the step breakdown are appended while it
// runs; FinishRun records the outcome and sets complete = 1 in one
// transaction. A process killed between the two leaves the run with
// complete = 0, which readers report as "incomplete" (RunState).
//
// Thread-compatibility: one ResultsStore per thread; processes may share a file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace podbench::results {

namespace internal {
class Db;
}

// The schema version this build writes. Opening a newer file is refused.
inline constexpr int kSchemaVersion = 2;

struct StoreOptions {
  // SQLite VFS name; empty = the default. Tests pass a fault-injecting VFS.
  std::string vfs;
  // How long a writer waits for another process's lock, in milliseconds.
  int busy_timeout_ms = 60000;
  // When false, a missing file is NotFound instead of a new empty store
  // (query commands use this).
  bool create_if_missing = true;
};

// What a run is, recorded when it starts.
struct NewRun {
  std::string label;      // free-form run-set tag (e.g. "baseline"); may be empty
  std::string workload;   // registry name, e.g. "toy", "resnet"
  std::string system = "tpu-v3";  // the system the slice belongs to
  std::string slice;      // e.g. "tpu-v3-32"
  int64_t cores = 0;
  int64_t chips = 0;
  std::string mode;       // "functional" or "projected"
  std::string preset;     // e.g. "google-v0.6"; may be empty
  std::string flags_json = "{}";            // the requested settings, as JSON
  std::string hyperparameters_json = "{}";  // the effective hyperparameters, as JSON
  uint64_t seed = 0;
  int64_t global_batch = 0;
  std::string git_hash;   // base/version.h GitHash()
  std::string host;       // host name
  int64_t pid = 0;        // the writing process (for RunState)
  std::string log_path;   // the MLPerf log written, may be empty
};

// How a run ended, recorded by FinishRun.
struct RunOutcome {
  // "success", "aborted" (the target not reached), or "noncompliant" (its log
  // fails the MLPerf rules: recorded, never scored).
  std::string status;
  // Time to train, run_start -> run_stop: on the emulated TPU clock (the log's
  // timestamps) and on the host clock, in seconds.
  std::optional<double> ttt_emulated_s;
  std::optional<double> ttt_host_s;
  std::optional<double> step_time_s;  // mean emulated seconds per training step
  std::optional<double> throughput;   // examples per emulated second
  std::optional<double> epochs;       // epochs trained
  std::optional<double> init_emulated_s;  // init_start -> init_stop, emulated
};

struct RunRecord {
  int64_t id = 0;
  NewRun run;
  std::string status;      // "running", "success", "aborted", "noncompliant"
  bool complete = false;   // FinishRun happened
  std::string started_at;  // UTC, ISO 8601, host clock
  std::string finished_at; // empty while running
  RunOutcome outcome;
};

// "success"/"aborted"/"noncompliant" for finished runs; for unfinished ones "running" while
// the writing process is alive on this host, else "incomplete".
std::string RunState(const RunRecord& r);

struct LogEvent {
  int64_t seq = 0;          // 0-based order within the run
  double ts_emulated_s = 0; // the log's timestamp
  double ts_host_s = 0;     // host seconds since the run began
  std::string key;
  std::string value_json;   // the event's value, JSON
  std::string metadata_json = "{}";
};

struct EvalRecord {
  double epoch = 0;
  std::string metric;  // e.g. "top1", "box_map"
  double value = 0;
  double ts_emulated_s = 0;
  double ts_host_s = 0;
};

// Per-step emulated time breakdown of a run, in seconds summed over all steps.
struct StepBreakdown {
  int64_t steps = 0;
  double compute_s = 0, collectives_s = 0, bn_sync_s = 0, optimizer_s = 0, input_s = 0,
         evaluation_s = 0, idle_s = 0;
  double total_s() const {
    return compute_s + collectives_s + bn_sync_s + optimizer_s + input_s + evaluation_s + idle_s;
  }
};

struct KernelBenchRecord {
  std::string kernel;  // e.g. "bf16_gemm__avx512bf16_16x32"
  std::string shape;   // e.g. "512x512x512"
  std::string isa;
  double median_ns = 0;
  int64_t iterations = 0;
  std::string git_hash;
  std::string host;
};

struct RunFilter {
  std::string workload;   // empty = any
  std::string label;      // empty = any
  std::string slice;      // empty = any
  std::string mode;       // empty = any
  std::string git_hash;    // prefix of the git hash; empty = any
  // Runs whose id is in `ids` or in one of the inclusive `id_ranges`; both
  // empty = any id.
  std::vector<int64_t> ids;
  std::vector<std::pair<int64_t, int64_t>> id_ranges;
};

class ResultsStore {
 public:
  // Opens or creates `path`, enables WAL and migrates the schema to
  // kSchemaVersion. Errors name the file.
  static Result<std::unique_ptr<ResultsStore>> Open(const std::filesystem::path& path,
                                                    const StoreOptions& options = {});
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::string& path() const { return path_; }
  Result<int> SchemaVersion();

  // Inserts the run as 'running' (complete = 0), with its system and slice.
  Result<int64_t> BeginRun(const NewRun& run);
  // Appends events in one transaction. REQUIRES: run exists.
  Status AppendEvents(int64_t run_id, const std::vector<LogEvent>& events);
  Status AddEvals(int64_t run_id, const std::vector<EvalRecord>& evals);
  Status SetBreakdown(int64_t run_id, const StepBreakdown& breakdown);
  // Records the outcome and marks the run complete. NotFound for an unknown id;
  // FailedPrecondition when the run is already complete.
  Status FinishRun(int64_t run_id, const RunOutcome& outcome);
  Status AddKernelBench(const KernelBenchRecord& record);

  // Runs matching `filter`, by id.
  Result<std::vector<RunRecord>> ListRuns(const RunFilter& filter = {});
  // NotFound "DB: no run N" for an unknown id.
  Result<RunRecord> GetRun(int64_t run_id);
  Result<std::vector<LogEvent>> Events(int64_t run_id);
  Result<std::vector<EvalRecord>> Evals(int64_t run_id);
  Result<std::optional<StepBreakdown>> Breakdown(int64_t run_id);
  Result<std::vector<KernelBenchRecord>> KernelBenches();

  // PRAGMA integrity_check; Corruption with SQLite's report when not "ok".
  Status IntegrityCheck();

 private:
  ResultsStore(std::unique_ptr<internal::Db> db, std::string path);
  Status Migrate();
  Status RequireRun(int64_t run_id, const char* what);

  std::unique_ptr<internal::Db> db_;
  std::string path_;
};

}  // namespace podbench::results
