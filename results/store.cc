#include "results/store.h"

#include <algorithm>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <utility>

#include "results/sqlite_db.h"

namespace podbench::results {

using internal::Db;
using internal::InTransaction;
using internal::Stmt;

namespace {

// Migration N takes the schema from version N to N+1. Append only: never
// edit a migration that has shipped; add the next one.
constexpr const char* kMigrations[] = {
    // 0 -> 1: the first schema.
    R"sql(
CREATE TABLE systems (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
CREATE TABLE slices (
  id INTEGER PRIMARY KEY,
  system_id INTEGER NOT NULL REFERENCES systems(id),
  name TEXT NOT NULL UNIQUE,
  cores INTEGER NOT NULL,
  chips INTEGER NOT NULL
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL DEFAULT '',
  workload TEXT NOT NULL,
  slice_id INTEGER NOT NULL REFERENCES slices(id),
  mode TEXT NOT NULL CHECK (mode IN ('functional', 'projected')),
  preset TEXT NOT NULL DEFAULT '',
  flags TEXT NOT NULL DEFAULT '{}',
  hyperparameters TEXT NOT NULL DEFAULT '{}',
  seed INTEGER NOT NULL,
  global_batch INTEGER NOT NULL DEFAULT 0,
  git_hash TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  log_path TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('running', 'success', 'aborted')),
  complete INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  ttt_emulated_s REAL,
  ttt_host_s REAL,
  step_time_s REAL,
  throughput REAL,
  epochs REAL,
  init_emulated_s REAL
);
CREATE INDEX runs_workload ON runs(workload);
CREATE INDEX runs_label ON runs(label);
CREATE TABLE log_events (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  ts_emulated_s REAL NOT NULL,
  ts_host_s REAL NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE evals (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  epoch REAL NOT NULL,
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  ts_emulated_s REAL NOT NULL,
  ts_host_s REAL NOT NULL
);
CREATE INDEX evals_run ON evals(run_id);
CREATE TABLE step_breakdown (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  steps INTEGER NOT NULL,
  compute_s REAL NOT NULL,
  collectives_s REAL NOT NULL,
  bn_sync_s REAL NOT NULL,
  optimizer_s REAL NOT NULL,
  input_s REAL NOT NULL,
  evaluation_s REAL NOT NULL,
  idle_s REAL NOT NULL
);
CREATE TABLE kernel_bench (
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL,
  shape TEXT NOT NULL,
  isa TEXT NOT NULL,
  median_ns REAL NOT NULL,
  iterations INTEGER NOT NULL,
  git_hash TEXT NOT NULL,
  host TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
)sql",
    // 1 -> 2: what the workload described for each run (model, data, parallel
    // layout). Runs stored before have no row.
    R"sql(
CREATE TABLE run_description (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  model TEXT NOT NULL,
  parameters INTEGER NOT NULL,
  train_flops_per_example REAL NOT NULL,
  data TEXT NOT NULL,
  train_examples INTEGER NOT NULL,
  eval_examples INTEGER NOT NULL,
  replicas INTEGER NOT NULL CHECK (replicas >= 1),
  cores_per_replica INTEGER NOT NULL CHECK (cores_per_replica >= 1),
  split TEXT NOT NULL,
  weight_update_sharding INTEGER NOT NULL CHECK (weight_update_sharding IN (0, 1)),
  bn_group INTEGER NOT NULL CHECK (bn_group >= 1),
  gradient_dtype TEXT NOT NULL,
  allreduce TEXT NOT NULL
);
)sql",
    // 2 -> 3: the step breakdown by the projection layer's categories.
    // compute_s keeps the unsplit compute of runs stored before; new runs
    // write mxu_s, vector_s, hbm_s (and halo_s) and 0 there.
    R"sql(
ALTER TABLE step_breakdown ADD COLUMN mxu_s REAL NOT NULL DEFAULT 0;
ALTER TABLE step_breakdown ADD COLUMN vector_s REAL NOT NULL DEFAULT 0;
ALTER TABLE step_breakdown ADD COLUMN hbm_s REAL NOT NULL DEFAULT 0;
ALTER TABLE step_breakdown ADD COLUMN halo_s REAL NOT NULL DEFAULT 0;
)sql",
    // 3 -> 4: benchmark sets and quality targets. A kernel_bench row is one
    // benchmark of one `podbench bench` invocation (its median), with the
    // invocation's label, the Google Benchmark name, and every repetition in
    // kernel_bench_repetitions; quality_targets holds each run's targets, so
    // reports draw them from the database. Additive only.
    R"sql(
ALTER TABLE kernel_bench ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE kernel_bench ADD COLUMN name TEXT NOT NULL DEFAULT '';
CREATE INDEX kernel_bench_label ON kernel_bench(label);
CREATE TABLE kernel_bench_repetitions (
  bench_id INTEGER NOT NULL REFERENCES kernel_bench(id),
  repetition INTEGER NOT NULL,
  real_time_ns REAL NOT NULL,
  cpu_time_ns REAL,
  iterations INTEGER NOT NULL,
  PRIMARY KEY (bench_id, repetition)
);
CREATE TABLE quality_targets (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  metric TEXT NOT NULL,
  target REAL NOT NULL,
  higher_is_better INTEGER NOT NULL,
  PRIMARY KEY (run_id, metric)
);
)sql",
    // 4 -> 5: a run whose log fails the MLPerf rules is stored as
    // 'noncompliant' (SQLite cannot widen a CHECK in place: the table is
    // rebuilt, with foreign keys off, as SQLite's ALTER TABLE notes describe).
    R"sql(
CREATE TABLE runs_v5 (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL DEFAULT '',
  workload TEXT NOT NULL,
  slice_id INTEGER NOT NULL REFERENCES slices(id),
  mode TEXT NOT NULL CHECK (mode IN ('functional', 'projected')),
  preset TEXT NOT NULL DEFAULT '',
  flags TEXT NOT NULL DEFAULT '{}',
  hyperparameters TEXT NOT NULL DEFAULT '{}',
  seed INTEGER NOT NULL,
  global_batch INTEGER NOT NULL DEFAULT 0,
  git_hash TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  log_path TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('running', 'success', 'aborted', 'noncompliant')),
  complete INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  ttt_emulated_s REAL,
  ttt_host_s REAL,
  step_time_s REAL,
  throughput REAL,
  epochs REAL,
  init_emulated_s REAL
);
INSERT INTO runs_v5 SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v5 RENAME TO runs;
CREATE INDEX runs_workload ON runs(workload);
CREATE INDEX runs_label ON runs(label);
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion, "one migration per schema version");

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

constexpr const char* kRunColumns =
    "r.id, r.label, r.workload, sy.name, sl.name, sl.cores, sl.chips, r.mode, r.preset, r.flags, "
    "r.hyperparameters, r.seed, r.global_batch, r.git_hash, r.host, r.pid, r.log_path, r.status, "
    "r.complete, r.started_at, r.finished_at, r.ttt_emulated_s, r.ttt_host_s, r.step_time_s, "
    "r.throughput, r.epochs, r.init_emulated_s, "
    "rd.run_id, rd.model, rd.parameters, rd.train_flops_per_example, rd.data, rd.train_examples, "
    "rd.eval_examples, rd.replicas, rd.cores_per_replica, rd.split, rd.weight_update_sharding, "
    "rd.bn_group, rd.gradient_dtype, rd.allreduce "
    "FROM runs r JOIN slices sl ON sl.id = r.slice_id JOIN systems sy ON sy.id = sl.system_id "
    "LEFT JOIN run_description rd ON rd.run_id = r.id";

RunRecord ReadRun(const Stmt& s) {
  RunRecord r;
  r.id = s.Int(0);
  r.run.label = s.Text(1);
  r.run.workload = s.Text(2);
  r.run.system = s.Text(3);
  r.run.slice = s.Text(4);
  r.run.cores = s.Int(5);
  r.run.chips = s.Int(6);
  r.run.mode = s.Text(7);
  r.run.preset = s.Text(8);
  r.run.flags_json = s.Text(9);
  r.run.hyperparameters_json = s.Text(10);
  r.run.seed = static_cast<uint64_t>(s.Int(11));
  r.run.global_batch = s.Int(12);
  r.run.git_hash = s.Text(13);
  r.run.host = s.Text(14);
  r.run.pid = s.Int(15);
  r.run.log_path = s.Text(16);
  r.status = s.Text(17);
  r.complete = s.Int(18) != 0;
  r.started_at = s.Text(19);
  r.finished_at = s.Text(20);
  r.outcome.status = r.complete ? r.status : "";
  r.outcome.ttt_emulated_s = s.OptReal(21);
  r.outcome.ttt_host_s = s.OptReal(22);
  r.outcome.step_time_s = s.OptReal(23);
  r.outcome.throughput = s.OptReal(24);
  r.outcome.epochs = s.OptReal(25);
  r.outcome.init_emulated_s = s.OptReal(26);
  if (!s.IsNull(27)) {
    StoredDescription d;
    d.model = s.Text(28);
    d.parameters = s.Int(29);
    d.train_flops_per_example = s.Real(30);
    d.data = s.Text(31);
    d.train_examples = s.Int(32);
    d.eval_examples = s.Int(33);
    d.layout.replicas = s.Int(34);
    d.layout.cores_per_replica = s.Int(35);
    d.layout.split = s.Text(36);
    d.layout.weight_update_sharding = s.Int(37) != 0;
    d.layout.bn_group = s.Int(38);
    d.layout.gradient_dtype = s.Text(39);
    d.layout.allreduce = s.Text(40);
    r.run.description = std::move(d);
  }
  return r;
}

std::string ThisHost() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// Before anything is written: a database with tables but no podbench schema
// version is someone else's, and one with no tables is podbench's to create
// only when the caller creates (`run`), not when it reads (`runs`, `show`).
// Either way the file is left as it was.
Status CheckIsResultsDatabase(Db& db, const std::string& path, bool may_create) {
  PODBENCH_ASSIGN_OR_RETURN(Stmt v, db.Prepare("PRAGMA user_version", "reading the schema version"));
  PODBENCH_ASSIGN_OR_RETURN(bool has_version, v.Step());
  if (has_version && v.Int(0) != 0) return Status::Ok();
  PODBENCH_ASSIGN_OR_RETURN(
      Stmt t, db.Prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 3",
                         "reading the tables"));
  std::string tables;
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, t.Step());
    if (!row) break;
    tables += (tables.empty() ? "" : ", ") + t.Text(0);
  }
  if (!tables.empty()) {
    return Status::FailedPrecondition(path + ": not a podbench results database (it holds other tables: " + tables +
                                      "); left as it was");
  }
  if (!may_create) {
    return Status::NotFound(path + ": an empty file, not a podbench results database (a run creates one); left as it was");
  }
  return Status::Ok();
}

}  // namespace

StepBreakdown& StepBreakdown::operator+=(const StepBreakdown& o) {
  steps += o.steps;
  mxu_s += o.mxu_s;
  vector_s += o.vector_s;
  hbm_s += o.hbm_s;
  collectives_s += o.collectives_s;
  halo_s += o.halo_s;
  bn_sync_s += o.bn_sync_s;
  optimizer_s += o.optimizer_s;
  input_s += o.input_s;
  evaluation_s += o.evaluation_s;
  idle_s += o.idle_s;
  unsplit_compute_s += o.unsplit_compute_s;
  return *this;
}

StepBreakdown StepBreakdown::Scaled(double f) const {
  StepBreakdown b = *this;
  for (double* v : {&b.mxu_s, &b.vector_s, &b.hbm_s, &b.collectives_s, &b.halo_s, &b.bn_sync_s, &b.optimizer_s,
                    &b.input_s, &b.evaluation_s, &b.idle_s, &b.unsplit_compute_s}) {
    *v *= f;
  }
  return b;
}

std::string RunState(const RunRecord& r) {
  if (r.complete) return r.status;
  if (r.run.host == ThisHost() && r.run.pid > 0) {
    bool alive = kill(static_cast<pid_t>(r.run.pid), 0) == 0 || errno == EPERM;
    if (alive) return "running";
  }
  return "incomplete";
}

ResultsStore::ResultsStore(std::unique_ptr<Db> db, std::string path)
    : db_(std::move(db)), path_(std::move(path)) {}
ResultsStore::~ResultsStore() = default;

Result<std::unique_ptr<ResultsStore>> ResultsStore::Open(const std::filesystem::path& path,
                                                         const StoreOptions& options) {
  if (!options.create_if_missing && !std::filesystem::exists(path)) {
    return Status::NotFound(path.string() + ": no such results database");
  }
  PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Db> db,
                            Db::Open(path.string(), options.vfs, options.busy_timeout_ms));
  PODBENCH_RETURN_IF_ERROR(CheckIsResultsDatabase(*db, path.string(), options.create_if_missing));
  // Switching to WAL needs a moment of exclusive access; another process
  // opening the same new file at once can make it fail with SQLITE_BUSY
  // without calling the busy handler, so retry for the busy timeout.
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(options.busy_timeout_ms);
  for (;;) {
    Status st = db->Exec("PRAGMA journal_mode=WAL", "enabling WAL mode");
    if (st.ok()) break;
    if (std::chrono::steady_clock::now() > deadline ||
        st.message().find("SQLITE_BUSY") == std::string::npos) {
      return st;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  PODBENCH_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON",
                                    "configuring the database"));
  std::unique_ptr<ResultsStore> store(new ResultsStore(std::move(db), path.string()));
  PODBENCH_RETURN_IF_ERROR(store->Migrate());
  return store;
}

Result<int> ResultsStore::SchemaVersion() {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare("PRAGMA user_version", "reading the schema version"));
  PODBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? static_cast<int>(s.Int(0)) : 0;
}

Status ResultsStore::Migrate() {
  // Read first without the write lock: the common case is an up-to-date file.
  PODBENCH_ASSIGN_OR_RETURN(int version, SchemaVersion());
  if (version > kSchemaVersion) {
    return Status::FailedPrecondition(
        path_ + ": schema version " + std::to_string(version) + " is newer than this podbench (" +
        std::to_string(kSchemaVersion) + "); use a newer podbench");
  }
  if (version == kSchemaVersion) return Status::Ok();
  // Migrations may rebuild a table that others reference: foreign keys are
  // off while they run (the pragma only works outside a transaction) and
  // checked before the commit.
  PODBENCH_RETURN_IF_ERROR(db_->Exec("PRAGMA foreign_keys=OFF", "migrating the schema"));
  Status st = InTransaction(*db_, "migrating the schema", [&]() -> Status {
    // Another process may have migrated between the read and the lock.
    PODBENCH_ASSIGN_OR_RETURN(int v, SchemaVersion());
    for (; v < kSchemaVersion; ++v) {
      PODBENCH_RETURN_IF_ERROR(db_->Exec(kMigrations[v], "migrating the schema to version " +
                                                             std::to_string(v + 1)));
    }
    PODBENCH_ASSIGN_OR_RETURN(Stmt check, db_->Prepare("PRAGMA foreign_key_check", "migrating the schema"));
    PODBENCH_ASSIGN_OR_RETURN(bool violation, check.Step());
    if (violation) return Status::Corruption(path_ + ": a foreign key is broken after migrating the schema");
    return db_->Exec("PRAGMA user_version=" + std::to_string(kSchemaVersion),
                     "recording the schema version");
  });
  Status on = db_->Exec("PRAGMA foreign_keys=ON", "migrating the schema");
  return st.ok() ? on : st;
}

Result<int64_t> ResultsStore::BeginRun(const NewRun& run) {
  if (run.mode != "functional" && run.mode != "projected") {
    return Status::InvalidArgument("run mode must be functional or projected, not '" + run.mode + "'");
  }
  int64_t id = 0;
  const char* what = "inserting a run";
  Status st = InTransaction(*db_, what, [&]() -> Status {
    PODBENCH_ASSIGN_OR_RETURN(Stmt sys, db_->Prepare(
        "INSERT INTO systems(name) VALUES(?1) ON CONFLICT(name) DO NOTHING", what));
    PODBENCH_RETURN_IF_ERROR(sys.Bind(1, run.system).Run());
    PODBENCH_ASSIGN_OR_RETURN(Stmt sl, db_->Prepare(
        "INSERT INTO slices(system_id, name, cores, chips) "
        "SELECT id, ?2, ?3, ?4 FROM systems WHERE name = ?1 "
        "ON CONFLICT(name) DO NOTHING", what));
    PODBENCH_RETURN_IF_ERROR(
        sl.Bind(1, run.system).Bind(2, run.slice).Bind(3, run.cores).Bind(4, run.chips).Run());
    PODBENCH_ASSIGN_OR_RETURN(Stmt ins, db_->Prepare(
        std::string("INSERT INTO runs(label, workload, slice_id, mode, preset, flags, "
                    "hyperparameters, seed, global_batch, git_hash, host, pid, log_path, status, "
                    "complete, started_at) "
                    "SELECT ?1, ?2, id, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'running', 0, ") +
            kNow + " FROM slices WHERE name = ?3", what));
    ins.Bind(1, run.label).Bind(2, run.workload).Bind(3, run.slice).Bind(4, run.mode)
        .Bind(5, run.preset).Bind(6, run.flags_json).Bind(7, run.hyperparameters_json)
        .Bind(8, static_cast<int64_t>(run.seed)).Bind(9, run.global_batch).Bind(10, run.git_hash)
        .Bind(11, run.host.empty() ? ThisHost() : run.host)
        .Bind(12, run.pid > 0 ? run.pid : static_cast<int64_t>(getpid())).Bind(13, run.log_path);
    PODBENCH_RETURN_IF_ERROR(ins.Run());
    id = db_->LastInsertId();
    if (!run.description) return Status::Ok();
    const StoredDescription& d = *run.description;
    PODBENCH_ASSIGN_OR_RETURN(Stmt desc, db_->Prepare(
        "INSERT INTO run_description(run_id, model, parameters, train_flops_per_example, data, "
        "train_examples, eval_examples, replicas, cores_per_replica, split, weight_update_sharding, "
        "bn_group, gradient_dtype, allreduce) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)", what));
    return desc.Bind(1, id).Bind(2, d.model).Bind(3, d.parameters).Bind(4, d.train_flops_per_example)
        .Bind(5, d.data).Bind(6, d.train_examples).Bind(7, d.eval_examples).Bind(8, d.layout.replicas)
        .Bind(9, d.layout.cores_per_replica).Bind(10, d.layout.split)
        .Bind(11, int64_t{d.layout.weight_update_sharding ? 1 : 0}).Bind(12, d.layout.bn_group)
        .Bind(13, d.layout.gradient_dtype).Bind(14, d.layout.allreduce).Run();
  });
  if (!st.ok()) return st;
  return id;
}

Status ResultsStore::RequireRun(int64_t run_id, const char* what) {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare("SELECT complete FROM runs WHERE id = ?1", what));
  PODBENCH_ASSIGN_OR_RETURN(bool row, s.Bind(1, run_id).Step());
  if (!row) return Status::NotFound(path_ + ": no run " + std::to_string(run_id));
  return Status::Ok();
}

Status ResultsStore::AppendEvents(int64_t run_id, const std::vector<LogEvent>& events) {
  const char* what = "appending log events";
  return InTransaction(*db_, what, [&]() -> Status {
    PODBENCH_RETURN_IF_ERROR(RequireRun(run_id, what));
    PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
        "INSERT INTO log_events(run_id, seq, ts_emulated_s, ts_host_s, key, value, metadata) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)", what));
    for (const LogEvent& e : events) {
      s.Bind(1, run_id).Bind(2, e.seq).Bind(3, e.ts_emulated_s).Bind(4, e.ts_host_s)
          .Bind(5, e.key).Bind(6, e.value_json).Bind(7, e.metadata_json);
      PODBENCH_RETURN_IF_ERROR(s.Run());
      PODBENCH_RETURN_IF_ERROR(s.Reset());
    }
    return Status::Ok();
  });
}

Status ResultsStore::AddEvals(int64_t run_id, const std::vector<EvalRecord>& evals) {
  const char* what = "adding evals";
  return InTransaction(*db_, what, [&]() -> Status {
    PODBENCH_RETURN_IF_ERROR(RequireRun(run_id, what));
    PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
        "INSERT INTO evals(run_id, epoch, metric, value, ts_emulated_s, ts_host_s) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6)", what));
    for (const EvalRecord& e : evals) {
      s.Bind(1, run_id).Bind(2, e.epoch).Bind(3, e.metric).Bind(4, e.value)
          .Bind(5, e.ts_emulated_s).Bind(6, e.ts_host_s);
      PODBENCH_RETURN_IF_ERROR(s.Run());
      PODBENCH_RETURN_IF_ERROR(s.Reset());
    }
    return Status::Ok();
  });
}

Status ResultsStore::SetBreakdown(int64_t run_id, const StepBreakdown& b) {
  const char* what = "recording the step breakdown";
  return InTransaction(*db_, what, [&]() -> Status {
    PODBENCH_RETURN_IF_ERROR(RequireRun(run_id, what));
    PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
        "INSERT OR REPLACE INTO step_breakdown(run_id, steps, compute_s, collectives_s, bn_sync_s, "
        "optimizer_s, input_s, evaluation_s, idle_s, mxu_s, vector_s, hbm_s, halo_s) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        what));
    return s.Bind(1, run_id).Bind(2, b.steps).Bind(3, b.unsplit_compute_s).Bind(4, b.collectives_s)
        .Bind(5, b.bn_sync_s).Bind(6, b.optimizer_s).Bind(7, b.input_s).Bind(8, b.evaluation_s)
        .Bind(9, b.idle_s).Bind(10, b.mxu_s).Bind(11, b.vector_s).Bind(12, b.hbm_s).Bind(13, b.halo_s).Run();
  });
}

Status ResultsStore::FinishRun(int64_t run_id, const RunOutcome& o) {
  if (o.status != "success" && o.status != "aborted" && o.status != "noncompliant") {
    return Status::InvalidArgument("run status must be success, aborted or noncompliant, not '" + o.status + "'");
  }
  const char* what = "finishing a run";
  return InTransaction(*db_, what, [&]() -> Status {
    PODBENCH_ASSIGN_OR_RETURN(Stmt q, db_->Prepare("SELECT complete FROM runs WHERE id = ?1", what));
    PODBENCH_ASSIGN_OR_RETURN(bool row, q.Bind(1, run_id).Step());
    if (!row) return Status::NotFound(path_ + ": no run " + std::to_string(run_id));
    if (q.Int(0) != 0) {
      return Status::FailedPrecondition(path_ + ": run " + std::to_string(run_id) +
                                        " is already finished");
    }
    PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
        std::string("UPDATE runs SET status = ?2, complete = 1, finished_at = ") + kNow +
            ", ttt_emulated_s = ?3, ttt_host_s = ?4, step_time_s = ?5, throughput = ?6, "
            "epochs = ?7, init_emulated_s = ?8 WHERE id = ?1", what));
    return s.Bind(1, run_id).Bind(2, o.status).Bind(3, o.ttt_emulated_s).Bind(4, o.ttt_host_s)
        .Bind(5, o.step_time_s).Bind(6, o.throughput).Bind(7, o.epochs).Bind(8, o.init_emulated_s)
        .Run();
  });
}

Status ResultsStore::AddKernelBench(const KernelBenchRecord& k) {
  const char* what = "recording a kernel benchmark";
  return InTransaction(*db_, what, [&]() -> Status {
    PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
        std::string("INSERT INTO kernel_bench(kernel, shape, isa, median_ns, iterations, git_hash, "
                    "host, recorded_at, label, name) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ") +
            kNow + ", ?8, ?9)", what));
    PODBENCH_RETURN_IF_ERROR(
        s.Bind(1, k.kernel).Bind(2, k.shape).Bind(3, k.isa).Bind(4, k.median_ns)
            .Bind(5, k.iterations).Bind(6, k.git_hash).Bind(7, k.host.empty() ? ThisHost() : k.host)
            .Bind(8, k.label).Bind(9, k.name).Run());
    const int64_t id = db_->LastInsertId();
    PODBENCH_ASSIGN_OR_RETURN(Stmt r, db_->Prepare(
        "INSERT INTO kernel_bench_repetitions(bench_id, repetition, real_time_ns, cpu_time_ns, "
        "iterations) VALUES(?1, ?2, ?3, ?4, ?5)", what));
    for (size_t i = 0; i < k.repetitions.size(); ++i) {
      const BenchRepetition& rep = k.repetitions[i];
      r.Bind(1, id).Bind(2, static_cast<int64_t>(i)).Bind(3, rep.real_time_ns)
          .Bind(4, rep.cpu_time_ns).Bind(5, rep.iterations);
      PODBENCH_RETURN_IF_ERROR(r.Run());
      PODBENCH_RETURN_IF_ERROR(r.Reset());
    }
    return Status::Ok();
  });
}

Status ResultsStore::SetTargets(int64_t run_id, const std::vector<QualityTargetRecord>& targets) {
  const char* what = "recording the quality targets";
  return InTransaction(*db_, what, [&]() -> Status {
    PODBENCH_RETURN_IF_ERROR(RequireRun(run_id, what));
    PODBENCH_ASSIGN_OR_RETURN(Stmt del, db_->Prepare("DELETE FROM quality_targets WHERE run_id = ?1",
                                                     what));
    PODBENCH_RETURN_IF_ERROR(del.Bind(1, run_id).Run());
    PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
        "INSERT INTO quality_targets(run_id, metric, target, higher_is_better) "
        "VALUES(?1, ?2, ?3, ?4)", what));
    for (const QualityTargetRecord& t : targets) {
      s.Bind(1, run_id).Bind(2, t.metric).Bind(3, t.target)
          .Bind(4, int64_t{t.higher_is_better ? 1 : 0});
      PODBENCH_RETURN_IF_ERROR(s.Run());
      PODBENCH_RETURN_IF_ERROR(s.Reset());
    }
    return Status::Ok();
  });
}

Result<std::vector<RunRecord>> ResultsStore::ListRuns(const RunFilter& f) {
  std::string sql = std::string("SELECT ") + kRunColumns +
                    " WHERE (?1 = '' OR r.workload = ?1) AND (?2 = '' OR r.label = ?2)"
                    " AND (?3 = '' OR sl.name = ?3) AND (?4 = '' OR r.mode = ?4)";
  if (!f.git_hash.empty()) sql += " AND substr(r.git_hash, 1, length(?5)) = ?5";
  if (!f.ids.empty() || !f.id_ranges.empty()) {
    std::string any;
    for (int64_t id : f.ids) any += (any.empty() ? "" : " OR ") + ("r.id = " + std::to_string(id));
    for (auto [lo, hi] : f.id_ranges) {
      any += (any.empty() ? "" : " OR ") +
             ("r.id BETWEEN " + std::to_string(lo) + " AND " + std::to_string(hi));
    }
    sql += " AND (" + any + ")";
  }
  sql += " ORDER BY r.id";
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(sql, "listing runs"));
  s.Bind(1, f.workload).Bind(2, f.label).Bind(3, f.slice).Bind(4, f.mode);
  if (!f.git_hash.empty()) s.Bind(5, f.git_hash);
  std::vector<RunRecord> out;
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadRun(s));
  }
  return out;
}

Result<RunRecord> ResultsStore::GetRun(int64_t run_id) {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(std::string("SELECT ") + kRunColumns +
                                                     " WHERE r.id = ?1", "reading a run"));
  PODBENCH_ASSIGN_OR_RETURN(bool row, s.Bind(1, run_id).Step());
  if (!row) return Status::NotFound(path_ + ": no run " + std::to_string(run_id));
  return ReadRun(s);
}

Result<std::vector<LogEvent>> ResultsStore::Events(int64_t run_id) {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
      "SELECT seq, ts_emulated_s, ts_host_s, key, value, metadata FROM log_events "
      "WHERE run_id = ?1 ORDER BY seq", "reading log events"));
  s.Bind(1, run_id);
  std::vector<LogEvent> out;
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.Int(0), s.Real(1), s.Real(2), s.Text(3), s.Text(4), s.Text(5)});
  }
  return out;
}

Result<std::vector<EvalRecord>> ResultsStore::Evals(int64_t run_id) {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
      "SELECT epoch, metric, value, ts_emulated_s, ts_host_s FROM evals WHERE run_id = ?1 "
      "ORDER BY rowid", "reading evals"));
  s.Bind(1, run_id);
  std::vector<EvalRecord> out;
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.Real(0), s.Text(1), s.Real(2), s.Real(3), s.Real(4)});
  }
  return out;
}

Result<std::optional<StepBreakdown>> ResultsStore::Breakdown(int64_t run_id) {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
      "SELECT steps, compute_s, collectives_s, bn_sync_s, optimizer_s, input_s, evaluation_s, "
      "idle_s, mxu_s, vector_s, hbm_s, halo_s FROM step_breakdown WHERE run_id = ?1",
      "reading the step breakdown"));
  PODBENCH_ASSIGN_OR_RETURN(bool row, s.Bind(1, run_id).Step());
  if (!row) return std::optional<StepBreakdown>();
  StepBreakdown b;
  b.steps = s.Int(0);
  b.unsplit_compute_s = s.Real(1);
  b.collectives_s = s.Real(2);
  b.bn_sync_s = s.Real(3);
  b.optimizer_s = s.Real(4);
  b.input_s = s.Real(5);
  b.evaluation_s = s.Real(6);
  b.idle_s = s.Real(7);
  b.mxu_s = s.Real(8);
  b.vector_s = s.Real(9);
  b.hbm_s = s.Real(10);
  b.halo_s = s.Real(11);
  return std::optional<StepBreakdown>(b);
}

Result<std::vector<QualityTargetRecord>> ResultsStore::Targets(int64_t run_id) {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(
      "SELECT metric, target, higher_is_better FROM quality_targets WHERE run_id = ?1 "
      "ORDER BY rowid", "reading the quality targets"));
  s.Bind(1, run_id);
  std::vector<QualityTargetRecord> out;
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.Text(0), s.Real(1), s.Int(2) != 0});
  }
  return out;
}

Result<std::optional<CategoryBreakdown>> ResultsStore::BreakdownCategories(int64_t run_id) {
  // Every column, so that categories added to step_breakdown appear here
  // without a change: the seconds columns are the ones named *_s. Known
  // columns come in the projection layer's order; the unsplit compute of
  // schema-1 runs only where it is non-zero (later runs split it).
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare("SELECT * FROM step_breakdown WHERE run_id = ?1",
                                                 "reading the step breakdown"));
  PODBENCH_ASSIGN_OR_RETURN(bool row, s.Bind(1, run_id).Step());
  if (!row) return std::optional<CategoryBreakdown>();
  static constexpr const char* kOrder[] = {"mxu",    "vector", "hbm",   "compute",    "collectives", "halo",
                                           "bn_sync", "optimizer", "input", "evaluation", "idle"};
  auto rank = [](const std::string& name) {
    for (size_t i = 0; i < std::size(kOrder); ++i) {
      if (name == kOrder[i]) return i;
    }
    return std::size(kOrder);
  };
  CategoryBreakdown b;
  for (int c = 0; c < s.ColumnCount(); ++c) {
    const std::string name = s.ColumnName(c);
    if (name == "steps") {
      b.steps = s.Int(c);
    } else if (name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0) {
      const std::string category = name.substr(0, name.size() - 2);
      if (category == "compute" && s.Real(c) == 0) continue;
      b.seconds.emplace_back(category, s.Real(c));
    }
  }
  std::stable_sort(b.seconds.begin(), b.seconds.end(),
                   [&](const auto& x, const auto& y) { return rank(x.first) < rank(y.first); });
  return std::optional<CategoryBreakdown>(std::move(b));
}

Result<std::vector<KernelBenchRecord>> ResultsStore::KernelBenches(const RunFilter& f) {
  std::string sql =
      "SELECT id, kernel, shape, isa, median_ns, iterations, git_hash, host, label, name "
      "FROM kernel_bench WHERE (?1 = '' OR label = ?1)";
  if (!f.git_hash.empty()) sql += " AND substr(git_hash, 1, length(?2)) = ?2";
  sql += " ORDER BY id";
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(sql, "reading kernel benchmarks"));
  s.Bind(1, f.label);
  if (!f.git_hash.empty()) s.Bind(2, f.git_hash);
  std::vector<KernelBenchRecord> out;
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    KernelBenchRecord k;
    k.id = s.Int(0);
    k.kernel = s.Text(1);
    k.shape = s.Text(2);
    k.isa = s.Text(3);
    k.median_ns = s.Real(4);
    k.iterations = s.Int(5);
    k.git_hash = s.Text(6);
    k.host = s.Text(7);
    k.label = s.Text(8);
    k.name = s.Text(9);
    out.push_back(std::move(k));
  }
  PODBENCH_ASSIGN_OR_RETURN(Stmt r, db_->Prepare(
      "SELECT real_time_ns, cpu_time_ns, iterations FROM kernel_bench_repetitions "
      "WHERE bench_id = ?1 ORDER BY repetition", "reading benchmark repetitions"));
  for (KernelBenchRecord& k : out) {
    PODBENCH_RETURN_IF_ERROR(r.Reset());
    r.Bind(1, k.id);
    for (;;) {
      PODBENCH_ASSIGN_OR_RETURN(bool row, r.Step());
      if (!row) break;
      k.repetitions.push_back({r.Real(0), r.OptReal(1), r.Int(2)});
    }
  }
  return out;
}

Status ResultsStore::IntegrityCheck() {
  PODBENCH_ASSIGN_OR_RETURN(Stmt s, db_->Prepare("PRAGMA integrity_check", "checking integrity"));
  std::string report;
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    if (!report.empty()) report += "; ";
    report += s.Text(0);
  }
  if (report != "ok") return Status::Corruption(path_ + ": integrity check failed: " + report);
  return Status::Ok();
}

}  // namespace podbench::results
