// The results store: schema, run lifecycle, crash consistency, concurrent
// writers and injected write faults.
#include "results/store.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "results/export.h"
#include "tests/results/fault_vfs.h"
#include "tests/testing/temp_dir.h"

namespace podbench::results {
namespace {

using ::podbench::testing::TempDir;
using ::testing::HasSubstr;

NewRun SampleRun(const std::string& label = "base") {
  NewRun r;
  r.label = label;
  r.workload = "toy";
  r.slice = "tpu-v3-8";
  r.cores = 8;
  r.chips = 4;
  r.mode = "functional";
  r.seed = 7;
  r.global_batch = 64;
  r.git_hash = "abc123";
  r.hyperparameters_json = R"({"global_batch_size": 64})";
  return r;
}

std::vector<LogEvent> SampleEvents(int n, int first_seq = 0) {
  std::vector<LogEvent> ev;
  for (int i = 0; i < n; ++i) {
    ev.push_back({first_seq + i, 1.5 * i, 0.01 * i, "epoch_start", std::to_string(i),
                  R"({"epoch_num": )" + std::to_string(i) + "}"});
  }
  return ev;
}

std::unique_ptr<ResultsStore> OpenOrDie(const std::filesystem::path& p, const StoreOptions& o = {}) {
  auto s = ResultsStore::Open(p, o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

// Turns a file this build made into the schema-4 file podbench left before
// runs could be 'noncompliant': the runs table's status CHECK without it.
void DowngradeToVersion4(const std::filesystem::path& db) {
  std::string out;
  ASSERT_EQ(::podbench::testing::RunCommand(
                "sqlite3 " + db.string() +
                    " \"PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = replace(sql, "
                    "', ''noncompliant''', '') WHERE name = 'runs'; PRAGMA writable_schema=OFF; "
                    "PRAGMA user_version=4\"",
                &out),
            0)
      << out;
}

// Turns a file this build made into the schema-1 file an old podbench would
// have left: every later migration's additions dropped. `extra_sql` runs
// before the version is set (e.g. rows in the old layout).
void DowngradeToVersion1(const std::filesystem::path& db, const std::string& extra_sql = "") {
  DowngradeToVersion4(db);
  std::string out;
  ASSERT_EQ(::podbench::testing::RunCommand(
                "sqlite3 " + db.string() +
                    " 'DROP TABLE run_description; ALTER TABLE step_breakdown DROP COLUMN mxu_s; "
                    "ALTER TABLE step_breakdown DROP COLUMN vector_s; ALTER TABLE step_breakdown DROP COLUMN hbm_s; "
                    "ALTER TABLE step_breakdown DROP COLUMN halo_s; DROP INDEX kernel_bench_label; "
                    "ALTER TABLE kernel_bench DROP COLUMN label; ALTER TABLE kernel_bench DROP COLUMN name; "
                    "DROP TABLE kernel_bench_repetitions; DROP TABLE quality_targets; " +
                    extra_sql + " PRAGMA user_version=1'",
                &out),
            0)
      << out;
}

TEST(StoreTest, NewFileGetsCurrentSchemaAndWal) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  auto v = store->SchemaVersion();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, kSchemaVersion);
  EXPECT_TRUE(std::filesystem::exists(dir / "r.db-wal"));
  // Reopening an up-to-date file is a no-op.
  store.reset();
  EXPECT_NE(OpenOrDie(dir / "r.db"), nullptr);
}

TEST(StoreTest, RefusesANewerSchema) {
  TempDir dir;
  { auto store = OpenOrDie(dir / "r.db"); }
  std::string out;
  ASSERT_EQ(::podbench::testing::RunCommand(
                "sqlite3 " + (dir / "r.db").string() + " 'PRAGMA user_version=99'", &out), 0)
      << out;
  auto s = ResultsStore::Open(dir / "r.db");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("r.db: schema version 99 is newer"));
}

// Another program's SQLite file is refused before anything touches it: no
// podbench tables, no WAL switch, its own table unchanged. An empty file is
// a store only for a caller that may create one.
TEST(StoreTest, RefusesAnotherProgramsDatabaseAndLeavesItAsItWas) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(::podbench::testing::RunCommand(
                "sqlite3 " + (dir / "o.db").string() + " 'CREATE TABLE runs(id TEXT); INSERT INTO runs VALUES (1)'", &out),
            0)
      << out;
  for (bool create : {true, false}) {
    StoreOptions opt;
    opt.create_if_missing = create;
    auto s = ResultsStore::Open(dir / "o.db", opt);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(),
                HasSubstr("o.db: not a podbench results database (it holds other tables: runs); left as it was"));
  }
  ASSERT_EQ(::podbench::testing::RunCommand(
                "sqlite3 " + (dir / "o.db").string() + " 'PRAGMA journal_mode; SELECT group_concat(name) FROM sqlite_master'",
                &out),
            0);
  EXPECT_EQ(out, "delete\nruns\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "o.db-wal"));

  { std::ofstream(dir / "e.db").flush(); }
  StoreOptions reading;
  reading.create_if_missing = false;
  auto s = ResultsStore::Open(dir / "e.db", reading);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("e.db: an empty file, not a podbench results database"));
  EXPECT_EQ(std::filesystem::file_size(dir / "e.db"), 0u);
  EXPECT_NE(OpenOrDie(dir / "e.db"), nullptr);  // run creates its store in it
}

TEST(StoreTest, RunLifecycleRoundTrips) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  auto id = store->BeginRun(SampleRun());
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto running = store->GetRun(*id);
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->status, "running");
  EXPECT_FALSE(running->complete);
  EXPECT_EQ(RunState(*running), "running");  // this process is alive

  ASSERT_TRUE(store->AppendEvents(*id, SampleEvents(3)).ok());
  ASSERT_TRUE(store->AddEvals(*id, {{1, "accuracy", 0.93, 4.5, 0.2}}).ok());
  StepBreakdown b;
  b.steps = 10;
  b.mxu_s = 1;
  b.collectives_s = 0.5;
  b.halo_s = 0.25;
  ASSERT_TRUE(store->SetBreakdown(*id, b).ok());
  RunOutcome o;
  o.status = "success";
  o.ttt_emulated_s = 12.5;
  o.ttt_host_s = 0.3;
  o.step_time_s = 0.15;
  ASSERT_TRUE(store->FinishRun(*id, o).ok());
  EXPECT_EQ(store->FinishRun(*id, o).code(), Status::Code::kFailedPrecondition);

  auto done = store->GetRun(*id);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->complete);
  EXPECT_EQ(RunState(*done), "success");
  EXPECT_EQ(done->run.slice, "tpu-v3-8");
  EXPECT_EQ(done->run.chips, 4);
  EXPECT_EQ(done->run.hyperparameters_json, R"({"global_batch_size": 64})");
  EXPECT_EQ(done->outcome.ttt_emulated_s, 12.5);
  EXPECT_FALSE(done->outcome.throughput.has_value());
  EXPECT_FALSE(done->finished_at.empty());
  auto events = store->Events(*id);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[2].metadata_json, R"({"epoch_num": 2})");
  auto evals = store->Evals(*id);
  ASSERT_TRUE(evals.ok());
  ASSERT_EQ(evals->size(), 1u);
  EXPECT_EQ((*evals)[0].value, 0.93);
  auto bd = store->Breakdown(*id);
  ASSERT_TRUE(bd.ok() && bd->has_value());
  EXPECT_EQ((*bd)->steps, 10);
  EXPECT_DOUBLE_EQ((*bd)->mxu_s, 1);
  EXPECT_DOUBLE_EQ((*bd)->halo_s, 0.25);
  EXPECT_DOUBLE_EQ((*bd)->total_s(), 1.75);
}

// A schema-1 file (one unsplit compute_s per run) opens migrated: its old
// breakdown reads back as unsplit compute, and new runs store the split.
TEST(StoreTest, MigratesASchema1BreakdownToTheSplitCategories) {
  TempDir dir;
  int64_t old_run = 0;
  {
    auto store = OpenOrDie(dir / "r.db");
    ASSERT_NE(store, nullptr);
    auto id = store->BeginRun(SampleRun());
    ASSERT_TRUE(id.ok());
    old_run = *id;
  }
  DowngradeToVersion1(dir / "r.db", "INSERT INTO step_breakdown VALUES(" + std::to_string(old_run) +
                                         ", 10, 2.0, 0.5, 0, 0, 0, 0, 0);");
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->SchemaVersion(), kSchemaVersion);
  auto bd = store->Breakdown(old_run);
  ASSERT_TRUE(bd.ok() && bd->has_value()) << bd.status().ToString();
  EXPECT_DOUBLE_EQ((*bd)->unsplit_compute_s, 2.0);
  EXPECT_DOUBLE_EQ((*bd)->mxu_s, 0);
  EXPECT_DOUBLE_EQ((*bd)->compute_s(), 2.0);
  EXPECT_DOUBLE_EQ((*bd)->total_s(), 2.5);
}

StoredDescription SampleDescription() {
  StoredDescription d;
  d.model = "ssd_resnet34";
  d.parameters = 20000000;
  d.train_flops_per_example = 1.3e11;
  d.data = "coco2017";
  d.train_examples = 117266;
  d.eval_examples = 5000;
  d.layout = {64, 4, "h", true, 2, "bf16", "torus2d_bidir"};
  return d;
}

TEST(StoreTest, TheRunsDescriptionRoundTrips) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  NewRun r = SampleRun();
  r.description = SampleDescription();
  auto id = store->BeginRun(r);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto without = store->BeginRun(SampleRun());
  ASSERT_TRUE(without.ok());
  auto runs = store->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  ASSERT_TRUE((*runs)[0].run.description.has_value());
  const StoredDescription& d = *(*runs)[0].run.description;
  EXPECT_EQ(d.model, "ssd_resnet34");
  EXPECT_EQ(d.parameters, 20000000);
  EXPECT_EQ(d.train_flops_per_example, 1.3e11);
  EXPECT_EQ(d.data, "coco2017");
  EXPECT_EQ(d.train_examples, 117266);
  EXPECT_EQ(d.eval_examples, 5000);
  EXPECT_EQ(d.layout.replicas, 64);
  EXPECT_EQ(d.layout.cores_per_replica, 4);
  EXPECT_EQ(d.layout.split, "h");
  EXPECT_TRUE(d.layout.weight_update_sharding);
  EXPECT_EQ(d.layout.bn_group, 2);
  EXPECT_EQ(d.layout.gradient_dtype, "bf16");
  EXPECT_EQ(d.layout.allreduce, "torus2d_bidir");
  EXPECT_FALSE((*runs)[1].run.description.has_value());
  // A layout the schema cannot hold rolls the whole run back.
  r.description->layout.replicas = 0;
  EXPECT_FALSE(store->BeginRun(r).ok());
  EXPECT_EQ(store->ListRuns()->size(), 2u);
}

// A version-1 file (runs recorded before descriptions were stored) is
// migrated when opened: its runs keep everything and read as having no
// description; new runs record theirs.
TEST(StoreTest, MigratesAVersion1FileForward) {
  TempDir dir;
  const std::string path = (dir / "r.db").string();
  {
    auto store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->BeginRun(SampleRun("old")).ok());
  }
  DowngradeToVersion1(path);
  auto store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->SchemaVersion(), kSchemaVersion);
  NewRun r = SampleRun("new");
  r.description = SampleDescription();
  ASSERT_TRUE(store->BeginRun(r).ok());
  auto runs = store->ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run.label, "old");
  EXPECT_EQ((*runs)[0].run.hyperparameters_json, R"({"global_batch_size": 64})");
  EXPECT_FALSE((*runs)[0].run.description.has_value());
  ASSERT_TRUE((*runs)[1].run.description.has_value());
  EXPECT_EQ((*runs)[1].run.description->layout.cores_per_replica, 4);
  // `show` and `runs --format json` say so for the old run.
  std::ostringstream old_text, new_text;
  WriteRunDetailText(old_text, RunDetail{(*runs)[0], {}, std::nullopt, 0, ""});
  WriteRunDetailText(new_text, RunDetail{(*runs)[1], {}, std::nullopt, 0, ""});
  EXPECT_THAT(old_text.str(), HasSubstr("  layout        - (not recorded: stored before schema version 2)\n"));
  EXPECT_THAT(new_text.str(), HasSubstr("  layout        64 replicas x 4 cores, split along h, bn_group 2, "
                                        "weight-update sharding on, bf16 gradients, torus2d_bidir all-reduce\n"));
  EXPECT_TRUE(RunToJson((*runs)[0])["parallel_layout"].is_null());
  EXPECT_EQ(RunToJson((*runs)[1])["parallel_layout"]["split"], "h");
}

KernelBenchRecord SampleBench(const std::string& label, std::vector<double> real_ns) {
  KernelBenchRecord k;
  k.kernel = "bf16_gemm__avx512bf16_16x32";
  k.shape = "gemm_bf16/m512/threads:1";
  k.isa = "avx512bf16";
  k.median_ns = real_ns.empty() ? 1234.5 : real_ns[real_ns.size() / 2];
  k.iterations = 100;
  k.git_hash = "abc";
  k.label = label;
  k.name = "gemm_bf16/m512/podbench:bf16_gemm__avx512bf16_16x32/threads:1";
  for (double t : real_ns) k.repetitions.push_back({t, t * 0.9, 10});
  return k;
}

// A version-4 file, whose runs table refuses the status 'noncompliant', is
// migrated when opened: `runs` is rebuilt with every row, and every table
// that references it (descriptions, quality targets, breakdowns) keeps its
// rows and its foreign keys; a non-compliant run can then be recorded.
TEST(StoreTest, MigratesAVersion4FileToRecordNoncompliantRuns) {
  TempDir dir;
  const std::string path = (dir / "r.db").string();
  int64_t old_id = 0;
  {
    auto store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    NewRun r = SampleRun("old");
    r.description = SampleDescription();
    auto id = store->BeginRun(r);
    ASSERT_TRUE(id.ok());
    old_id = *id;
    ASSERT_TRUE(store->SetTargets(old_id, {{"top1", 0.759, true}}).ok());
    StepBreakdown b;
    b.steps = 4;
    b.mxu_s = 2;
    ASSERT_TRUE(store->SetBreakdown(old_id, b).ok());
    RunOutcome o;
    o.status = "success";
    o.ttt_emulated_s = 60;
    ASSERT_TRUE(store->FinishRun(old_id, o).ok());
  }
  DowngradeToVersion4(path);
  std::string out;
  // The old CHECK is back: the file cannot hold the status.
  EXPECT_NE(::podbench::testing::RunCommand("sqlite3 " + path + " \"UPDATE runs SET status = 'noncompliant'\"", &out),
            0);
  EXPECT_THAT(out, HasSubstr("CHECK constraint failed"));

  auto store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->SchemaVersion(), kSchemaVersion);
  auto old_run = store->GetRun(old_id);
  ASSERT_TRUE(old_run.ok()) << old_run.status().ToString();
  EXPECT_EQ(old_run->run.label, "old");
  EXPECT_EQ(old_run->status, "success");
  ASSERT_TRUE(old_run->run.description.has_value());
  EXPECT_EQ(old_run->run.description->layout.cores_per_replica, 4);
  auto targets = store->Targets(old_id);
  ASSERT_TRUE(targets.ok());
  ASSERT_EQ(targets->size(), 1u);
  EXPECT_EQ((*targets)[0].metric, "top1");

  auto id = store->BeginRun(SampleRun("new"));
  ASSERT_TRUE(id.ok());
  RunOutcome o;
  o.status = "noncompliant";
  o.ttt_emulated_s = 30;
  ASSERT_TRUE(store->FinishRun(*id, o).ok());
  auto fresh = store->GetRun(*id);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->status, "noncompliant");
  EXPECT_EQ(RunState(*fresh), "noncompliant");
  ASSERT_EQ(::podbench::testing::RunCommand("sqlite3 " + path + " 'PRAGMA foreign_key_check'", &out), 0);
  EXPECT_EQ(out, "");
}

TEST(StoreTest, KernelBenchResultsRoundTrip) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AddKernelBench(SampleBench("", {})).ok());
  auto k = store->KernelBenches();
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k->size(), 1u);
  EXPECT_EQ((*k)[0].kernel, "bf16_gemm__avx512bf16_16x32");
  EXPECT_EQ((*k)[0].median_ns, 1234.5);
  EXPECT_FALSE((*k)[0].host.empty());  // filled in with this host
  EXPECT_TRUE((*k)[0].repetitions.empty());
}

TEST(StoreTest, KernelBenchKeepsEveryRepetitionAndItsLabel) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AddKernelBench(SampleBench("base", {10, 11, 12})).ok());
  ASSERT_TRUE(store->AddKernelBench(SampleBench("cand", {20, 21})).ok());
  RunFilter f;
  f.label = "cand";
  auto k = store->KernelBenches(f);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 1u);
  EXPECT_EQ((*k)[0].label, "cand");
  EXPECT_EQ((*k)[0].Key(), "gemm_bf16/m512/podbench:bf16_gemm__avx512bf16_16x32/threads:1");
  ASSERT_EQ((*k)[0].repetitions.size(), 2u);
  EXPECT_EQ((*k)[0].repetitions[1].real_time_ns, 21);
  EXPECT_DOUBLE_EQ(*(*k)[0].repetitions[1].cpu_time_ns, 21 * 0.9);
  EXPECT_EQ((*k)[0].repetitions[1].iterations, 10);
  f.label = "";
  f.git_hash = "ab";
  auto all = store->KernelBenches(f);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
  f.git_hash = "zz";
  EXPECT_TRUE(store->KernelBenches(f)->empty());
}

TEST(StoreTest, MigratesAVersion1FileKeepingItsBenchmarks) {
  TempDir dir;
  const auto path = dir / "v1.db";
  {
    auto store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
  }
  // The kernel_bench table as schema version 1 made it, with one row.
  DowngradeToVersion1(path, "INSERT INTO kernel_bench VALUES(1, \"k__avx2\", \"gemm/m8\", \"avx2\", 5.5, 3, "
                            "\"abc\", \"h\", \"now\");");
  auto store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->SchemaVersion(), kSchemaVersion);
  auto k = store->KernelBenches();
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 1u);
  EXPECT_EQ((*k)[0].label, "");
  EXPECT_EQ((*k)[0].Key(), "gemm/m8/k__avx2");
  EXPECT_TRUE((*k)[0].repetitions.empty());
  EXPECT_TRUE(store->AddKernelBench(SampleBench("new", {1, 2})).ok());
}

TEST(StoreTest, QualityTargetsRoundTrip) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  auto id = store->BeginRun(SampleRun());
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(store->SetTargets(*id, {{"box_map", 0.377, true}, {"loss", 2.5, false}}).ok());
  ASSERT_TRUE(store->SetTargets(*id, {{"box_map", 0.377, true}, {"mask_map", 0.339, true}}).ok());
  auto t = store->Targets(*id);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 2u);  // replaced, not appended
  EXPECT_EQ((*t)[1].metric, "mask_map");
  EXPECT_DOUBLE_EQ((*t)[1].target, 0.339);
  EXPECT_TRUE((*t)[1].higher_is_better);
  EXPECT_EQ(store->SetTargets(*id + 1, {}).code(), Status::Code::kNotFound);
}

TEST(StoreTest, BreakdownCategoriesAreEverySecondsColumn) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  auto id = store->BeginRun(SampleRun());
  ASSERT_TRUE(id.ok());
  auto none = store->BreakdownCategories(*id);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  StepBreakdown b;
  b.steps = 4;
  b.unsplit_compute_s = 1;
  b.collectives_s = 2;
  b.idle_s = 0.5;
  ASSERT_TRUE(store->SetBreakdown(*id, b).ok());
  auto c = store->BreakdownCategories(*id);
  ASSERT_TRUE(c.ok() && c->has_value());
  EXPECT_EQ((*c)->steps, 4);
  double total = 0;
  std::vector<std::string> names;
  for (const auto& [name, s] : (*c)->seconds) {
    names.push_back(name);
    total += s;
  }
  EXPECT_DOUBLE_EQ(total, b.total_s());
  EXPECT_THAT(names, ::testing::Contains("compute"));
  EXPECT_THAT(names, ::testing::Contains("collectives"));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("steps")));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("run_id")));
}

TEST(StoreTest, UnknownRunIsNotFoundAndNamesTheFile) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  auto r = store->GetRun(42);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("r.db: no run 42"));
  EXPECT_EQ(store->AppendEvents(42, SampleEvents(1)).code(), Status::Code::kNotFound);
}

TEST(StoreTest, FiltersRunsByWorkloadAndLabel) {
  TempDir dir;
  auto store = OpenOrDie(dir / "r.db");
  ASSERT_NE(store, nullptr);
  NewRun other = SampleRun("cand");
  other.workload = "resnet";
  ASSERT_TRUE(store->BeginRun(SampleRun("base")).ok());
  ASSERT_TRUE(store->BeginRun(other).ok());
  ASSERT_TRUE(store->BeginRun(SampleRun("cand")).ok());
  RunFilter f;
  f.workload = "toy";
  EXPECT_EQ(store->ListRuns(f)->size(), 2u);
  f.label = "cand";
  auto runs = store->ListRuns(f);
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].id, 3);
  RunFilter by_id;
  by_id.ids = {1, 2};
  EXPECT_EQ(store->ListRuns(by_id)->size(), 2u);
}

// A child process writes events until it is killed with SIGKILL, in the middle
// of its stream of transactions. The file must stay consistent and the run
// must read as incomplete.
TEST(StoreTest, RunKilledWithSigkillReadsIncomplete) {
  TempDir dir;
  const auto db = dir / "r.db";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    auto s = ResultsStore::Open(db);
    if (!s.ok()) _exit(3);
    auto id = (*s)->BeginRun(SampleRun());
    if (!id.ok()) _exit(4);
    for (int batch = 0;; ++batch) {
      if (!(*s)->AppendEvents(*id, SampleEvents(20, batch * 20)).ok()) _exit(5);
      if (batch == 5) {
        char c = 'x';
        if (write(ready[1], &c, 1) != 1) _exit(6);
      }
    }
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1) << "child failed before writing events";
  close(ready[0]);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  auto store = OpenOrDie(db);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->IntegrityCheck().ok());
  auto runs = store->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_FALSE((*runs)[0].complete);
  EXPECT_EQ(RunState((*runs)[0]), "incomplete");
  auto events = store->Events((*runs)[0].id);
  ASSERT_TRUE(events.ok());
  // Whole transactions only: a multiple of the batch, at least the 6 acknowledged.
  EXPECT_GE(events->size(), 120u);
  EXPECT_EQ(events->size() % 20, 0u);
  // The store stays writable after the crash.
  RunOutcome o;
  o.status = "aborted";
  EXPECT_TRUE(store->FinishRun((*runs)[0].id, o).ok());
}

// N processes each write M complete runs with events into one new file at once.
TEST(StoreTest, ConcurrentProcessesLoseNothing) {
  TempDir dir;
  const auto db = dir / "r.db";
  constexpr int kProcs = 4, kRuns = 15, kEvents = 10;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcs; ++p) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto s = ResultsStore::Open(db);
      if (!s.ok()) _exit(3);
      for (int r = 0; r < kRuns; ++r) {
        auto id = (*s)->BeginRun(SampleRun("p" + std::to_string(p)));
        if (!id.ok()) _exit(4);
        if (!(*s)->AppendEvents(*id, SampleEvents(kEvents)).ok()) _exit(5);
        RunOutcome o;
        o.status = "success";
        o.ttt_emulated_s = r;
        if (!(*s)->FinishRun(*id, o).ok()) _exit(6);
      }
      _exit(0);
    }
    children.push_back(child);
  }
  for (pid_t c : children) {
    int status = 0;
    ASSERT_EQ(waitpid(c, &status, 0), c);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  auto store = OpenOrDie(db);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->IntegrityCheck().ok());
  auto runs = store->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), static_cast<size_t>(kProcs * kRuns));
  for (int p = 0; p < kProcs; ++p) {
    RunFilter f;
    f.label = "p" + std::to_string(p);
    EXPECT_EQ(store->ListRuns(f)->size(), static_cast<size_t>(kRuns));
  }
  for (const RunRecord& r : *runs) {
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(store->Events(r.id)->size(), static_cast<size_t>(kEvents)) << "run " << r.id;
  }
}

// A full disk in the middle of a run: a clear error naming the file; nothing
// recorded before is lost, and the file is consistent.
TEST(StoreTest, WriteFaultIsAClearErrorAndLosesNothing) {
  TempDir dir;
  const auto db = dir / "r.db";
  StoreOptions opt;
  opt.vfs = ::podbench::testing::FaultVfsName();
  auto store = OpenOrDie(db, opt);
  ASSERT_NE(store, nullptr);
  auto first = store->BeginRun(SampleRun());
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(store->AppendEvents(*first, SampleEvents(5)).ok());
  RunOutcome o;
  o.status = "success";
  ASSERT_TRUE(store->FinishRun(*first, o).ok());
  auto second = store->BeginRun(SampleRun());
  ASSERT_TRUE(second.ok());

  ::podbench::testing::SetWriteFaults(true);
  Status st = store->AppendEvents(*second, SampleEvents(50));
  auto third = store->BeginRun(SampleRun());
  ::podbench::testing::SetWriteFaults(false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kIOError);
  EXPECT_THAT(st.message(), HasSubstr(db.string() + ": "));
  EXPECT_THAT(st.message(), HasSubstr("SQLITE_FULL"));
  EXPECT_THAT(st.message(), HasSubstr("appending log events"));
  EXPECT_FALSE(third.ok());

  // The same connection recovers once the disk has room again.
  EXPECT_TRUE(store->AppendEvents(*second, SampleEvents(2)).ok());
  store.reset();

  auto reopened = OpenOrDie(db);
  ASSERT_NE(reopened, nullptr);
  EXPECT_TRUE(reopened->IntegrityCheck().ok());
  auto runs = reopened->ListRuns();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_TRUE((*runs)[0].complete);
  EXPECT_EQ(reopened->Events(*first)->size(), 5u);
  EXPECT_EQ(reopened->Events(*second)->size(), 2u);
}

}  // namespace
}  // namespace podbench::results
