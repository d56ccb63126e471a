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
inline constexpr int kSchemaVersion = 5;

struct StoreOptions {
  // SQLite VFS name; empty = the default. Tests pass a fault-injecting VFS.
  std::string vfs;
  // How long a writer waits for another process's lock, in milliseconds.
  int busy_timeout_ms = 60000;
  // When false, a missing file is NotFound instead of a new empty store, and
  // so is an existing file with no tables (query commands use this).
  bool create_if_missing = true;
};

// A run's parallel layout (workloads/projection/layout.h ParallelLayout),
// its enums by name.
struct StoredLayout {
  int64_t replicas = 1;
  int64_t cores_per_replica = 1;  // > 1: spatial partitioning
  std::string split = "none";     // the split dimension: "none" or "h"
  bool weight_update_sharding = false;
  int64_t bn_group = 1;           // replicas per batch-norm group
  std::string gradient_dtype = "fp32";  // "fp32" or "bf16"
  std::string allreduce;          // a topology all-reduce, e.g. "torus2d"
};

// What the workload described for a run (workloads::WorkloadDescription):
// the model, the data and the parallel layout.
struct StoredDescription {
  std::string model;                   // e.g. "resnet50_v1.5"
  int64_t parameters = 0;
  double train_flops_per_example = 0;  // forward + backward
  std::string data;                    // e.g. "imagenet"
  int64_t train_examples = 0;          // per epoch
  int64_t eval_examples = 0;           // per evaluation
  StoredLayout layout;
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
  // Absent for runs stored before schema version 2, which did not record it.
  std::optional<StoredDescription> description;
};

// How a run ended, recorded by FinishRun.
struct RunOutcome {
  // "success", "aborted" (the target not reached), or "noncompliant" (its log
  // fails the MLPerf rules: recorded, never scored).
  std::string status;
  // Time to train, run_start -> the run's end (run_stop; MiniGo: the winning
  // model, before run_stop): on the emulated TPU clock (the log's timestamps)
  // and on the host clock, in seconds.
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

// Per-step emulated time breakdown of a run, in seconds summed over all
// steps, in the projection layer's categories (ops bound by the MXU, the
// vector unit, HBM; gradient summation = collectives_s, halo exchanges,
// batch-norm sync, optimizer, host input, idle cores) plus the evaluations.
struct StepBreakdown {
  int64_t steps = 0;
  double mxu_s = 0, vector_s = 0, hbm_s = 0, collectives_s = 0, halo_s = 0, bn_sync_s = 0, optimizer_s = 0,
         input_s = 0, evaluation_s = 0, idle_s = 0;
  // Device compute not split by unit: runs stored before schema version 3
  // (their mxu/vector/hbm are 0). Runs stored since write 0 here.
  double unsplit_compute_s = 0;
  double compute_s() const { return mxu_s + vector_s + hbm_s + unsplit_compute_s; }
  double total_s() const {
    return compute_s() + collectives_s + halo_s + bn_sync_s + optimizer_s + input_s + evaluation_s + idle_s;
  }
  StepBreakdown& operator+=(const StepBreakdown& o);
  StepBreakdown Scaled(double f) const;  // every time (not steps) times f
};

// One repetition of a benchmark, as Google Benchmark measured it.
struct BenchRepetition {
  double real_time_ns = 0;
  std::optional<double> cpu_time_ns;
  int64_t iterations = 0;
};

// One benchmark of one `podbench bench` invocation.
struct KernelBenchRecord {
  std::string kernel;  // e.g. "bf16_gemm__avx512bf16_16x32"
  std::string shape;   // e.g. "512x512x512"
  std::string isa;
  double median_ns = 0;  // median real time over the repetitions
  int64_t iterations = 0;
  std::string git_hash;
  std::string host;
  std::string label;  // the benchmark set (`bench --label`); may be empty
  // Google Benchmark's run name, e.g. "gemm_f32/m512/podbench:f32_gemm__avx2/threads:1";
  // empty in rows saved before schema version 4.
  std::string name;
  std::vector<BenchRepetition> repetitions;  // in order; empty before schema version 4
  int64_t id = 0;  // assigned by the store; ignored by AddKernelBench

  // `name`, or "shape/kernel" for rows without one: what benchmark sets are matched by.
  std::string Key() const { return name.empty() ? shape + "/" + kernel : name; }
};

// A quality target of a run, as the workload declared it.
struct QualityTargetRecord {
  std::string metric;  // e.g. "top1"
  double target = 0;
  bool higher_is_better = true;
};

// The step breakdown of a run by category, whatever categories the store
// holds: every seconds column of step_breakdown, in column order, named
// without its "_s" suffix (e.g. "compute", "collectives", "evaluation").
struct CategoryBreakdown {
  int64_t steps = 0;
  std::vector<std::pair<std::string, double>> seconds;  // summed over the run
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
  // kSchemaVersion. Errors name the file. A SQLite file with tables but no
  // podbench schema version is refused (FailedPrecondition) before anything
  // is written to it.
  static Result<std::unique_ptr<ResultsStore>> Open(const std::filesystem::path& path,
                                                    const StoreOptions& options = {});
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::string& path() const { return path_; }
  Result<int> SchemaVersion();

  // Inserts the run as 'running' (complete = 0), with its system, slice and,
  // when given, its description.
  Result<int64_t> BeginRun(const NewRun& run);
  // Appends events in one transaction. REQUIRES: run exists.
  Status AppendEvents(int64_t run_id, const std::vector<LogEvent>& events);
  Status AddEvals(int64_t run_id, const std::vector<EvalRecord>& evals);
  Status SetBreakdown(int64_t run_id, const StepBreakdown& breakdown);
  // Records the outcome and marks the run complete. NotFound for an unknown id;
  // FailedPrecondition when the run is already complete.
  Status FinishRun(int64_t run_id, const RunOutcome& outcome);
  // Records a benchmark and its repetitions in one transaction.
  Status AddKernelBench(const KernelBenchRecord& record);
  // Replaces the quality targets of a run. REQUIRES: run exists.
  Status SetTargets(int64_t run_id, const std::vector<QualityTargetRecord>& targets);

  // Runs matching `filter`, by id.
  Result<std::vector<RunRecord>> ListRuns(const RunFilter& filter = {});
  // NotFound "DB: no run N" for an unknown id.
  Result<RunRecord> GetRun(int64_t run_id);
  Result<std::vector<LogEvent>> Events(int64_t run_id);
  Result<std::vector<EvalRecord>> Evals(int64_t run_id);
  Result<std::optional<StepBreakdown>> Breakdown(int64_t run_id);
  Result<std::vector<QualityTargetRecord>> Targets(int64_t run_id);
  // nullopt when the run has no breakdown.
  Result<std::optional<CategoryBreakdown>> BreakdownCategories(int64_t run_id);
  // Benchmarks (with their repetitions), by id. `filter` selects by label and
  // git-hash prefix only; its other fields are ignored.
  Result<std::vector<KernelBenchRecord>> KernelBenches(const RunFilter& filter = {});

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
