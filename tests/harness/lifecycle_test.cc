// The harness-owned run lifecycle: event order at the workload's cadence,
// several quality targets and how their values are logged, workload events,
// evaluation beside training and a time to train that ends at the winning
// model (MiniGo), abort at max_epochs, the parallel layout checked against
// the slice, and written logs that podbench's v0.6 rules and the official
// 0.6.0 rule files accept.
#include "harness/run/lifecycle.h"

#include <algorithm>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/run/log_check.h"
#include "harness/run/reporters.h"
#include "workloads/registry.h"
#include "harness/run/settings.h"
#include "results/store.h"
#include "rules/mllog/reader.h"
#include "rules/score.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::harness {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using workloads::HpValue;

workloads::HyperparameterSpec Hp(const char* name, HpValue def, bool log) {
  workloads::HyperparameterSpec s;
  s.name = name;
  s.default_value = std::move(def);
  s.log = log;
  return s;
}

// ---------------------------------------------------------------- Mask R-CNN's shape

// Two metrics that must both be reached (box and mask mAP), evaluated every
// epoch. Each block of E epochs costs E seconds of compute; each evaluation
// 0.5 s. Box reaches its target at the epoch given by "reach", mask one
// epoch later.
class TwoMetricSession : public workloads::Session {
 public:
  explicit TwoMetricSession(int64_t reach) : reach_(reach) {}
  Result<double> Initialize() override { return 100.0; }
  Result<workloads::BlockResult> TrainBlock(int64_t, int64_t epochs) override {
    workloads::BlockResult b;
    b.steps = 10 * epochs;
    b.time.mxu_s = static_cast<double>(epochs);
    return b;
  }
  Result<workloads::EvalResult> Evaluate(int64_t epoch) override {
    workloads::EvalResult r;
    r.metrics["box_map"] = epoch >= reach_ ? 0.40 : 0.1;
    r.metrics["mask_map"] = epoch >= reach_ + 1 ? 0.35 : 0.1;
    r.emulated_s = 0.5;
    return r;
  }

 private:
  int64_t reach_;
};

// Logs what the v0.6 Mask R-CNN rules (podbench's and the official 0.6.0
// ones) require: global_batch_size, the learning-rate warmup and, as a
// workload event, num_image_candidates. eval_accuracy's shape comes from
// "eval_shape": list (Google's [box, mask]), dict (NVIDIA's {"accuracy":
// {"BBOX", "SEGM"}}), flat ({"BBOX", "SEGM"}) or scalar (refused: two
// targets). "cores_per_replica" partitions each replica spatially.
class TwoMetricWorkload : public workloads::Workload {
 public:
  std::vector<workloads::HyperparameterSpec> HyperparameterSpecs() const override {
    return {Hp("global_batch_size", int64_t{16}, true),
            Hp("opt_base_learning_rate", 0.16, true),
            Hp("opt_learning_rate_warmup_steps", int64_t{1000}, true),
            Hp("opt_learning_rate_warmup_factor", 0.0133, true),
            Hp("reach", int64_t{4}, false),
            Hp("eval_shape", std::string("list"), false),
            Hp("cores_per_replica", int64_t{1}, false)};
  }
  Result<workloads::WorkloadDescription> Describe(const workloads::Hyperparameters& hp,
                                                  const workloads::SliceInfo& slice,
                                                  workloads::Mode) const override {
    workloads::WorkloadDescription d;
    d.benchmark = "maskrcnn";
    d.global_batch = hp.Int("global_batch_size");
    d.targets = {{"box_map", 0.377, true}, {"mask_map", 0.339, true}};
    const std::string& shape = hp.String("eval_shape");
    if (shape == "list") d.eval_logging = {workloads::EvalValueShape::kList, "", {}};
    if (shape == "dict") d.eval_logging = {workloads::EvalValueShape::kDict, "accuracy", {"BBOX", "SEGM"}};
    if (shape == "flat") d.eval_logging = {workloads::EvalValueShape::kDict, "", {"BBOX", "SEGM"}};
    d.cadence.max_epochs = 7;
    const int64_t cpr = hp.Int("cores_per_replica");
    d.parallelism.replicas = slice.cores / cpr;
    d.parallelism.cores_per_replica = cpr;
    d.parallelism.split = cpr > 1 ? projection::SplitDim::kHeight : projection::SplitDim::kNone;
    d.init_events.push_back(workloads::WorkloadEvent("num_image_candidates", 1000));
    return d;
  }
  Result<std::unique_ptr<workloads::Session>> Start(const workloads::RunContext& ctx) const override {
    return std::unique_ptr<workloads::Session>(new TwoMetricSession(ctx.hp.Int("reach")));
  }
};

PODBENCH_REGISTER_WORKLOAD("test-maskrcnn", TwoMetricWorkload)->ScoredRuns(5);

// ---------------------------------------------------------------- MiniGo's shape

// One generation per epoch: self-play and training cost 10 emulated seconds
// and end with save_model {"iteration": g} ("save_at" >= 0: that many
// seconds into the generation, as MiniGo saves before gating). The evaluation games of g
// ("eval_seconds" each) run beside the training of g+1. The win rate passes
// 0.5 at generation "reach"; that evaluation logs eval_result with the run's
// end time (the winning model's save time) under "timestamp". "bad_event"
// makes the workload return one malformed event.
class GoSession : public workloads::Session {
 public:
  explicit GoSession(const workloads::Hyperparameters& hp)
      : reach_(hp.Int("reach")), eval_s_(hp.Float("eval_seconds")), save_at_(hp.Float("save_at")),
        bad_(hp.String("bad_event")) {}
  Result<double> Initialize() override { return 50.0; }
  Result<workloads::BlockResult> TrainBlock(int64_t first, int64_t epochs) override {
    workloads::BlockResult b;
    b.steps = 100 * epochs;
    b.time.mxu_s = 10.0 * static_cast<double>(epochs);
    for (int64_t g = first; g < first + epochs; ++g) {
      b.events.push_back(workloads::WorkloadEvent("save_model", {{"iteration", g}}).AtEpochEnd(g));
      if (save_at_ >= 0) {
        b.events.back().AtEpochOffset(g, save_at_);
        b.model_saved_offset_s = save_at_;
      }
    }
    workloads::WorkloadEvent& e = b.events.back();
    if (bad_ == "harness_key") e.key = "epoch_stop";
    if (bad_ == "bad_key") e.key = "save model";
    if (bad_ == "writer_meta") e.metadata["lineno"] = 3;
    if (bad_ == "epoch") e.epoch = first + epochs;
    if (bad_ == "block_end_time") e.end_time_field = "timestamp";
    return b;
  }
  Result<workloads::EvalResult> Evaluate(int64_t g) override {
    workloads::EvalResult r;
    r.metrics["win_rate"] = g >= reach_ ? 0.55 : 0.05 * static_cast<double>(g);
    r.emulated_s = eval_s_;
    if (g >= reach_ || bad_ == "early_end_time") {
      r.events.push_back(workloads::WorkloadEvent("eval_result", nullptr, {{"iteration", g}}).EndTimeIn("timestamp"));
    }
    return r;
  }

 private:
  int64_t reach_;
  double eval_s_;
  double save_at_;  // < 0: save_model at the epoch's end, else this far into it
  std::string bad_;
};

class GoWorkload : public workloads::Workload {
 public:
  std::vector<workloads::HyperparameterSpec> HyperparameterSpecs() const override {
    return {Hp("global_batch_size", int64_t{8192}, true), Hp("virtual_losses", int64_t{8}, true),
            Hp("reach", int64_t{3}, false),           Hp("eval_seconds", 4.0, false),
            Hp("bad_event", std::string(""), false),  Hp("beside", true, false),
            Hp("save_at", -1.0, false)};
  }
  Result<workloads::WorkloadDescription> Describe(const workloads::Hyperparameters& hp,
                                                  const workloads::SliceInfo& slice,
                                                  workloads::Mode) const override {
    workloads::WorkloadDescription d;
    d.benchmark = "minigo";
    d.global_batch = hp.Int("global_batch_size");
    d.targets = {{"win_rate", 0.5, true}};
    d.cadence.max_epochs = 6;
    d.cadence.beside_training = hp.Bool("beside");
    d.run_end = workloads::RunEnd::kWinningModel;
    d.parallelism.replicas = slice.cores;
    // Values a HyperparameterSpec cannot hold (lists), as v0.6 MiniGo logs them.
    d.init_events.push_back(workloads::WorkloadEvent("opt_base_learning_rate", {0.32, 0.032, 0.0032}));
    d.init_events.push_back(workloads::WorkloadEvent("opt_learning_rate_decay_boundary_steps", {12500, 18750}));
    if (hp.String("bad_event") == "init") d.init_events.push_back(workloads::WorkloadEvent("run_start"));
    return d;
  }
  Result<std::unique_ptr<workloads::Session>> Start(const workloads::RunContext& ctx) const override {
    return std::unique_ptr<workloads::Session>(new GoSession(ctx.hp));
  }
};

PODBENCH_REGISTER_WORKLOAD("test-minigo", GoWorkload)->ScoredRuns(10);

// ---------------------------------------------------------------- helpers

struct Recorder : RunObserver {
  std::vector<RunEvent> events;
  std::vector<EvalPoint> evals;
  Status OnEvent(const RunEvent& e) override {
    events.push_back(e);
    return Status::Ok();
  }
  Status OnEval(const EvalPoint& p) override {
    evals.push_back(p);
    return Status::Ok();
  }
  std::vector<std::string> Keys() const {
    std::vector<std::string> k;
    for (const auto& e : events) k.push_back(e.key);
    return k;
  }
  // The first event with `key` (and epoch_num or iteration `epoch` when >= 0).
  const RunEvent& Find(const std::string& key, int64_t epoch = -1) const {
    for (const auto& e : events) {
      if (e.key != key) continue;
      if (epoch < 0) return e;
      const mllog::Value* n = e.metadata.is_dict() ? e.metadata.Find("epoch_num") : nullptr;
      if (n == nullptr && e.value.is_dict()) n = e.value.Find("iteration");
      if (n != nullptr && n->as_int() == epoch) return e;
    }
    static RunEvent none;
    ADD_FAILURE() << "no " << key << " " << epoch;
    return none;
  }
  // Relative to run_start.
  double At(const std::string& key, int64_t epoch = -1) const {
    return Find(key, epoch).ts_emulated_s - Find("run_start").ts_emulated_s;
  }
};

Result<EffectiveRunSettings> Normalized(const std::string& workload, std::vector<std::string> sets = {},
                                        const std::string& slice = "tpu-v3-8") {
  RunRequest req;
  req.workload = workload;
  req.slice = slice;
  req.runs = 1;
  req.seed = 1;
  req.sets = std::move(sets);
  return Normalize(req);
}

EffectiveRunSettings Settings(const std::string& workload, std::vector<std::string> sets = {}) {
  auto s = Normalized(workload, std::move(sets));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

// Runs once, writing the :::MLL log to `path`.
Result<RunSummary> RunToLog(const EffectiveRunSettings& s, const std::string& path, Recorder* rec = nullptr) {
  auto log = LogReporter::Create(path);
  if (!log.ok()) return log.status();
  std::vector<RunObserver*> observers{log->get()};
  if (rec != nullptr) observers.push_back(rec);
  return RunOnce(s, 0, observers);
}

// OK when the log at `path` passes podbench's v0.6 rules; InvalidArgument
// listing the failures otherwise.
Status CheckWrittenLog(const std::string& path, const workloads::WorkloadDescription& description) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const LogVerdict v = CheckLogText(text, mllog::Format::kMll, path, description);
  if (!v.checked) return Status::Unimplemented(v.note);
  std::string msg;
  for (const rules::CheckMessage& m : v.errors) msg += "\n  " + m.key + ": " + m.text;
  return msg.empty() ? Status::Ok() : Status::InvalidArgument(path + " fails podbench's v0.6 rules:" + msg);
}

// The text of `path` with every line holding `drop` removed and `from`
// replaced by `to`, written to `out`.
void Rewrite(const std::string& path, const std::string& out, const std::string& drop, const std::string& from = "",
             const std::string& to = "") {
  std::ifstream in(path);
  std::ofstream o(out);
  for (std::string line; std::getline(in, line);) {
    if (!drop.empty() && line.find(drop) != std::string::npos) continue;
    if (size_t at = from.empty() ? std::string::npos : line.find(from); at != std::string::npos) {
      line.replace(at, from.size(), to);
    }
    o << line << "\n";
  }
}

// `podbench check` with the official 0.6.0 rule files; its output.
std::string CheckOfficial(const std::filesystem::path& shared, const std::string& log, const std::string& extra,
                          int* rc) {
  return testing::Podbench("check --rules-dir " + (shared / "fixtures/mlperf-logging-rules").string() +
                               " --ruleset 0.6.0 " + extra + " " + log,
                           rc);
}

// Runs `workload` with `set`, writes its log to `path` and expects the
// official 0.6.0 rules (`extra`: e.g. another entry file) to pass it.
void ExpectOfficialPass(const std::filesystem::path& shared, const std::string& workload, const std::string& set,
                        const std::string& path, const std::string& extra) {
  ASSERT_TRUE(RunToLog(Settings(workload, {set}), path).ok());
  int rc = 0;
  std::string out = CheckOfficial(shared, path, extra, &rc);
  EXPECT_EQ(rc, 0) << set << ": " << out;
  EXPECT_THAT(out, HasSubstr("PASS"));
}

// ---------------------------------------------------------------- tests

TEST(LifecycleTest, EmitsTheV06SequenceAndStopsWhenEveryTargetIsReached) {
  Recorder rec;
  auto sum = RunOnce(Settings("test-maskrcnn"), 0, {&rec});
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_TRUE(sum->success);
  EXPECT_EQ(sum->epochs, 5);  // box at 4, mask at 5
  std::vector<std::string> keys = rec.Keys();
  std::vector<std::string> head(keys.begin(), keys.begin() + 19);
  EXPECT_THAT(head, ElementsAre("submission_benchmark", "submission_org", "submission_division",
                                "submission_status", "submission_platform", "submission_entry",
                                "submission_poc_name", "submission_poc_email", "cache_clear",
                                "init_start", "global_batch_size", "opt_base_learning_rate",
                                "opt_learning_rate_warmup_steps", "opt_learning_rate_warmup_factor",
                                "num_image_candidates", "init_stop", "run_start", "block_start",
                                "epoch_start"));
  // One block per epoch: block_start, epoch_start, epoch_stop, eval_start,
  // eval_stop, eval_accuracy, block_stop.
  std::vector<std::string> block(keys.begin() + 17, keys.begin() + 24);
  EXPECT_THAT(block, ElementsAre("block_start", "epoch_start", "epoch_stop", "eval_start", "eval_stop",
                                 "eval_accuracy", "block_stop"));
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "block_start"), 5);
  EXPECT_EQ(rec.Find("block_start", -1).metadata.Find("epoch_count")->as_int(), 1);
  EXPECT_EQ(keys.back(), "run_stop");
  EXPECT_EQ(rec.events.back().metadata.Find("status")->as_string(), "success");
  // Two metrics: eval_accuracy is the list [box, mask] in targets order; the
  // store gets one point per metric.
  const RunEvent& acc = rec.Find("eval_accuracy", 4);
  ASSERT_TRUE(acc.value.is_list());
  ASSERT_EQ(acc.value.size(), 2u);
  EXPECT_EQ(acc.value.items()[0].as_float(), 0.40);
  EXPECT_EQ(acc.value.items()[1].as_float(), 0.1);
  EXPECT_EQ(rec.Find("num_image_candidates").value.as_int(), 1000);
  EXPECT_EQ(rec.evals.size(), 10u);
  EXPECT_EQ(rec.evals[1].metric, "mask_map");
  // The emulated clock: 5 epochs of 1 s and 5 evals of 0.5 s between run_start and run_stop.
  EXPECT_NEAR(sum->ttt_emulated_s, 7.5, 1e-3);
  EXPECT_NEAR(rec.At("run_stop"), 7.5, 1e-3);
  EXPECT_NEAR(rec.At("eval_start", 2), 2.5, 1e-3);
  EXPECT_NEAR(sum->init_emulated_s, 100, 1e-9);
  EXPECT_EQ(sum->steps, 50);
  EXPECT_NEAR(sum->step_time_s, 0.1, 1e-12);
  EXPECT_NEAR(sum->throughput, 160, 1e-9);
  EXPECT_NEAR(sum->evaluation_s, 2.5, 1e-12);
}

TEST(LifecycleTest, AbortsAtMaxEpochs) {
  podbench::testing::TempDir dir;
  Recorder rec;
  auto sum = RunToLog(Settings("test-maskrcnn", {"reach=100"}), (dir / "run.log").string(), &rec);
  ASSERT_TRUE(sum.ok());
  EXPECT_FALSE(sum->success);
  EXPECT_EQ(sum->epochs, 7);
  EXPECT_EQ(rec.events.back().key, "run_stop");
  EXPECT_EQ(rec.events.back().metadata.Find("status")->as_string(), "aborted");
  // The rules see it: no evaluation reached the targets, run_stop is not a success.
  Status st = CheckWrittenLog((dir / "run.log").string(), Settings("test-maskrcnn").description);
  EXPECT_THAT(st.message(), HasSubstr("eval_accuracy"));
  EXPECT_THAT(st.message(), HasSubstr("run_stop"));
}

TEST(LifecycleTest, WrittenLogReadsBackInOrder) {
  podbench::testing::TempDir dir;
  const std::string path = (dir / "run.log").string();
  ASSERT_TRUE(RunToLog(Settings("test-maskrcnn"), path).ok());
  std::vector<mllog::LineError> errors;
  auto records = mllog::ReadLog(path, mllog::Format::kMll, &errors);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  EXPECT_TRUE(errors.empty());
  ASSERT_GT(records->size(), 20u);
  EXPECT_EQ(records->front().key, "submission_benchmark");
  EXPECT_EQ(records->front().payload().as_string(), "maskrcnn");
  EXPECT_EQ(records->back().key, "run_stop");
  for (size_t i = 1; i < records->size(); ++i) {
    EXPECT_GE((*records)[i].timestamp, (*records)[i - 1].timestamp) << "line " << i;
  }
}

// The two-metric log, as Google ([box, mask]) and as NVIDIA ({"accuracy":
// {"BBOX", "SEGM"}}) wrote it, passes podbench's v0.6 Mask R-CNN rules; a
// flat dict, which no v0.6 Mask R-CNN log used, does not.
TEST(EvalLoggingTest, TwoMetricLogPassesPodbenchsV06MaskRcnnRules) {
  podbench::testing::TempDir dir;
  for (const char* shape : {"list", "dict"}) {
    const std::string path = (dir / (std::string(shape) + ".log")).string();
    EffectiveRunSettings s = Settings("test-maskrcnn", {std::string("eval_shape=") + shape});
    ASSERT_TRUE(RunToLog(s, path).ok());
    Status st = CheckWrittenLog(path, s.description);
    EXPECT_TRUE(st.ok()) << shape << ": " << st.ToString();
  }
  std::ifstream in(dir / "dict.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr(R"("value":{"accuracy":{"BBOX":0.4,"SEGM":0.35}})"));

  const std::string flat = (dir / "flat.log").string();
  EffectiveRunSettings s = Settings("test-maskrcnn", {"eval_shape=flat"});
  ASSERT_TRUE(RunToLog(s, flat).ok());
  Status st = CheckWrittenLog(flat, s.description);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("eval_accuracy"));
}

TEST(EvalLoggingTest, TwoMetricLogPassesTheOfficial060Rules) {
  PODBENCH_REQUIRE_SHARED(shared);
  podbench::testing::TempDir dir;
  for (const char* shape : {"list", "dict"}) {
    ExpectOfficialPass(shared, "test-maskrcnn", std::string("eval_shape=") + shape,
                       (dir / (std::string(shape) + ".log")).string(), "");
  }
  // The same check fails the log without the workload's num_image_candidates.
  const std::string without = (dir / "without.log").string();
  Rewrite((dir / "list.log").string(), without, "num_image_candidates");
  int rc = 0;
  std::string out = CheckOfficial(shared, without, "", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("num_image_candidates"));
}

TEST(EvalLoggingTest, ATwoTargetScalarIsRefusedBeforeAnythingRuns) {
  auto s = Normalized("test-maskrcnn", {"eval_shape=scalar"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              HasSubstr("test-maskrcnn on tpu-v3-8: eval_logging: a scalar eval_accuracy holds one target, not 2"));
}

TEST(LayoutTest, CheckedAgainstTheSliceBeforeAnythingRuns) {
  auto s = Normalized("test-maskrcnn", {"cores_per_replica=3"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              HasSubstr("test-maskrcnn on tpu-v3-8: parallel layout: replicas 2 x cores_per_replica 3 must "
                        "equal the slice's 8 cores"));
  auto ok = Normalized("test-maskrcnn", {"cores_per_replica=4"}, "tpu-v3-32");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->description.parallelism.replicas, 8);
}

// MiniGo: generation g's evaluation runs beside the training of g+1, the
// workload's own keys (save_model, eval_result) are stamped by the harness,
// and the time to train ends at the winning model, before run_stop.
TEST(BesideTrainingTest, EvaluationOverlapsTheNextGenerationAndTheRunEndsAtTheWinningModel) {
  Recorder rec;
  auto sum = RunOnce(Settings("test-minigo"), 0, {&rec});
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  ASSERT_TRUE(sum->success);
  EXPECT_EQ(sum->epochs, 3);
  const std::vector<std::string> keys = rec.Keys();
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "block_start"), 0);
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "block_stop"), 0);
  // Generation 1 trains over [0, 10] and is saved at 10; its evaluation runs
  // over [10, 14], while generation 2 trains over [10, 20].
  EXPECT_NEAR(rec.At("save_model", 1), 10, 1e-6);
  EXPECT_NEAR(rec.At("eval_start", 1), 10, 1e-6);
  EXPECT_NEAR(rec.At("eval_stop", 1), 14, 1e-6);
  EXPECT_NEAR(rec.At("epoch_start", 2), 10, 1e-6);
  EXPECT_NEAR(rec.At("epoch_stop", 2), 20, 1e-6);
  auto pos = [&](const std::string& key, int64_t epoch) {
    const RunEvent* e = &rec.Find(key, epoch);
    return std::find_if(rec.events.begin(), rec.events.end(), [&](const RunEvent& x) { return &x == e; }) -
           rec.events.begin();
  };
  EXPECT_LT(pos("save_model", 1), pos("epoch_stop", 1));
  EXPECT_LT(pos("epoch_stop", 1), pos("eval_start", 1));
  EXPECT_LT(pos("eval_accuracy", 1), pos("epoch_stop", 2));
  for (size_t i = 1; i < rec.events.size(); ++i) {
    EXPECT_GE(rec.events[i].ts_emulated_s, rec.events[i - 1].ts_emulated_s) << rec.events[i].key;
  }
  // Generation 3 wins: saved at 30, evaluated over [30, 34]. No generation 4
  // is trained; run_stop follows the evaluation; eval_result carries the
  // winning model's time, which is the time to train.
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "epoch_start"), 3);
  const RunEvent& result = rec.Find("eval_result");
  EXPECT_EQ(result.metadata.Find("iteration")->as_int(), 3);
  EXPECT_NEAR(result.metadata.Find("timestamp")->as_float(), 30, 1e-9);
  EXPECT_GT(pos("eval_result", -1), pos("eval_accuracy", 3));
  EXPECT_NEAR(rec.At("run_stop"), 34, 1e-6);
  EXPECT_NEAR(sum->ttt_emulated_s, 30, 1e-6);
  EXPECT_NEAR(sum->evaluation_s, 12, 1e-9);
  EXPECT_EQ(rec.Find("opt_base_learning_rate").value.ToJson(), "[0.32, 0.032, 0.0032]");
  EXPECT_EQ(rec.Find("save_model", 2).metadata.Find("epoch_num"), nullptr);
}

// A save inside the generation (MiniGo saves, then gates): save_model is
// stamped there, between the epoch's start and stop, and the run ends at the
// winner's save; the evaluation still starts when the generation's lines
// are written.
TEST(BesideTrainingTest, ASaveInsideTheGenerationIsStampedThereAndEndsTheRun) {
  Recorder rec;
  auto sum = RunOnce(Settings("test-minigo", {"save_at=6"}), 0, {&rec});
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  ASSERT_TRUE(sum->success);
  EXPECT_NEAR(rec.At("save_model", 1), 6, 1e-6);
  EXPECT_NEAR(rec.At("save_model", 3), 26, 1e-6);
  EXPECT_NEAR(rec.At("epoch_stop", 3), 30, 1e-6);
  EXPECT_NEAR(rec.At("eval_start", 3), 30, 1e-6);
  EXPECT_NEAR(rec.Find("eval_result").metadata.Find("timestamp")->as_float(), 26, 1e-9);
  EXPECT_NEAR(sum->ttt_emulated_s, 26, 1e-6);
  for (size_t i = 1; i < rec.events.size(); ++i) {
    EXPECT_GE(rec.events[i].ts_emulated_s, rec.events[i - 1].ts_emulated_s) << rec.events[i].key;
  }
  // The log's score is the save's time, and the log passes the v0.6 rules.
  podbench::testing::TempDir dir;
  const std::string path = (dir / "minigo.log").string();
  EffectiveRunSettings s = Settings("test-minigo", {"save_at=6"});
  ASSERT_TRUE(RunToLog(s, path).ok());
  Status st = CheckWrittenLog(path, s.description);
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto score = rules::ScoreRun(path, "minigo");
  ASSERT_TRUE(score.ok()) << score.status().ToString();
  EXPECT_NEAR(score->minutes * 60, 26, 1e-3);
  // A save outside its 10 s generation is the workload's error, named.
  auto late = RunOnce(Settings("test-minigo", {"save_at=12"}), 0, {});
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), Status::Code::kInternal);
  EXPECT_THAT(late.status().message(), HasSubstr("save"));
}

// Evaluations slower than a generation queue for the evaluator.
TEST(BesideTrainingTest, SlowEvaluationsQueue) {
  Recorder rec;
  auto sum = RunOnce(Settings("test-minigo", {"eval_seconds=15"}), 0, {&rec});
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_NEAR(rec.At("eval_start", 1), 10, 1e-6);
  EXPECT_NEAR(rec.At("eval_start", 2), 25, 1e-6);  // after evaluation 1, not at 20
  EXPECT_NEAR(rec.At("eval_start", 3), 40, 1e-6);
  EXPECT_NEAR(rec.At("run_stop"), 55, 1e-6);
  EXPECT_NEAR(sum->ttt_emulated_s, 30, 1e-6);  // still the winning model's time
  for (size_t i = 1; i < rec.events.size(); ++i) {
    EXPECT_GE(rec.events[i].ts_emulated_s, rec.events[i - 1].ts_emulated_s) << rec.events[i].key;
  }
  // Alternating instead: training waits for every evaluation.
  Recorder alt;
  auto waited = RunOnce(Settings("test-minigo", {"eval_seconds=15", "beside=false"}), 0, {&alt});
  ASSERT_TRUE(waited.ok());
  EXPECT_NEAR(alt.At("epoch_start", 2), 25, 1e-6);
  EXPECT_NEAR(waited->ttt_emulated_s, 60, 1e-6);  // generation 3 saved at 3 x 10 + 2 x 15
  EXPECT_NEAR(alt.At("run_stop"), 75, 1e-6);
}

TEST(BesideTrainingTest, MiniGoLogPassesPodbenchsV06RulesAndScoresToTheWinningModel) {
  podbench::testing::TempDir dir;
  const std::string path = (dir / "minigo.log").string();
  EffectiveRunSettings s = Settings("test-minigo");
  auto sum = RunToLog(s, path);
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  Status st = CheckWrittenLog(path, s.description);
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto score = rules::ScoreRun(path, "minigo");
  ASSERT_TRUE(score.ok()) << score.status().ToString();
  EXPECT_TRUE(score->converged) << score->note;
  EXPECT_NEAR(score->minutes * 60, sum->ttt_emulated_s, 1e-3);
  EXPECT_NEAR(score->minutes * 60, 30, 1e-3);
}

TEST(BesideTrainingTest, MiniGoLogPassesTheOfficial060Rules) {
  PODBENCH_REQUIRE_SHARED(shared);
  podbench::testing::TempDir dir;
  for (const char* eval_s : {"4", "15"}) {
    // training_0.6.0/common.yaml sends MiniGo to its own entry file.
    ExpectOfficialPass(shared, "test-minigo", std::string("eval_seconds=") + eval_s,
                       (dir / ("minigo_" + std::string(eval_s) + ".log")).string(),
                       "--config training_0.6.0/minigo.yaml");
  }
  // The official rule compares eval_result's timestamp with the winning
  // model's save_model time: the evaluation's end (run_stop's time) fails it.
  const std::string late = (dir / "late.log").string();
  Rewrite((dir / "minigo_4.log").string(), late, "", R"("timestamp":30.0)", R"("timestamp":34.0)");
  int rc = 0;
  std::string out = CheckOfficial(shared, late, "--config training_0.6.0/minigo.yaml", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("eval_result"));
}

// The run's end time and layout reach the results store.
TEST(BesideTrainingTest, TheStoreKeepsTheWinningModelsTimeAndTheLayout) {
  podbench::testing::TempDir dir;
  auto store = results::ResultsStore::Open(dir / "r.db");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EffectiveRunSettings s = Settings("test-minigo");
  results::NewRun nr;
  nr.workload = "test-minigo";
  nr.slice = s.slice.name;
  nr.cores = s.slice.cores;
  nr.chips = s.slice.chips;
  nr.mode = "functional";
  nr.git_hash = "test";
  nr.description = StoredDescriptionOf(s.description);
  auto id = (*store)->BeginRun(nr);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  StoreReporter reporter(**store, *id);
  auto sum = RunOnce(s, 0, {&reporter});
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  // The outcome is the caller's to record, once the log is checked.
  ASSERT_TRUE((*store)->FinishRun(*id, RunOutcomeOf(*sum, "success")).ok());
  auto run = (*store)->GetRun(*id);
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(run->outcome.ttt_emulated_s.has_value());
  EXPECT_NEAR(*run->outcome.ttt_emulated_s, 30, 1e-6);
  ASSERT_TRUE(run->run.description.has_value());
  EXPECT_EQ(run->run.description->layout.replicas, 8);
  EXPECT_EQ(run->run.description->layout.split, "none");
  EXPECT_EQ(run->run.description->layout.gradient_dtype, "fp32");
  EXPECT_EQ(run->run.description->layout.allreduce, "torus2d");
  auto events = (*store)->Events(*id);
  ASSERT_TRUE(events.ok());
  auto result = std::find_if(events->begin(), events->end(), [](const auto& e) { return e.key == "eval_result"; });
  ASSERT_NE(result, events->end());
  EXPECT_THAT(result->metadata_json, HasSubstr(R"("timestamp": 30.0)"));
}

// A workload cannot write the harness's keys, the writer's metadata, or
// lines outside the block or evaluation that returned them.
TEST(WorkloadEventTest, MalformedEventsAreRefusedNamingTheKey) {
  struct Case {
    const char* bad;
    const char* message;
  } cases[] = {
      {"harness_key", "event 'epoch_stop': the harness writes this key itself"},
      {"bad_key", "event 'save model': a log key holds only letters, digits and '_'"},
      {"writer_meta", "event 'save_model': metadata 'lineno' is the log writer's"},
      {"epoch", "event 'save_model' of the block of epochs 1 to 1 names epoch 2"},
      {"block_end_time", "event 'save_model' of the block of epochs 1 to 1 asks for the run's end time"},
      {"early_end_time", "event 'eval_result' asks for the run's end time, which only the evaluation"},
  };
  for (const Case& c : cases) {
    Recorder rec;
    auto sum = RunOnce(Settings("test-minigo", {std::string("bad_event=") + c.bad}), 0, {&rec});
    ASSERT_FALSE(sum.ok()) << c.bad;
    EXPECT_EQ(sum.status().code(), Status::Code::kInternal) << c.bad;
    EXPECT_THAT(sum.status().message(), HasSubstr("test-minigo"));
    EXPECT_THAT(sum.status().message(), HasSubstr(c.message)) << c.bad;
  }
  // A bad init event stops the run before it starts.
  auto s = Normalized("test-minigo", {"bad_event=init"});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("test-minigo on tpu-v3-8: event 'run_start': the harness writes"));
  // Nor may it log a hyperparameter the harness logs.
  auto hp = Normalized("test-minigo");
  ASSERT_TRUE(hp.ok());
  EXPECT_THAT(CheckWorkloadEvent(*hp, workloads::WorkloadEvent("virtual_losses", 8)).message(),
              HasSubstr("the harness logs this hyperparameter itself"));
}

TEST(SettingsTest, RefusesBadRequestsBeforeAnythingRuns) {
  struct Case {
    std::string workload, slice, mode, set, preset, message;
  } cases[] = {
      {"nope", "tpu-v3-8", "functional", "", "", "unknown workload 'nope' (available:"},
      {"toy", "tpu-v3-12", "functional", "", "", "--slice tpu-v3-12: unknown slice"},
      {"toy", "tpu-v4-8", "functional", "", "", "--slice tpu-v4-8"},
      {"toy", "tpu-v3-8", "fast", "", "", "--mode fast: expected functional or projected"},
      {"toy", "tpu-v3-8", "functional", "global_batch_size=-4", "", "must be >= 1"},
      {"toy", "tpu-v3-8", "functional", "global_batch_size=12", "",
       "does not split evenly over the 8 cores"},
      {"toy", "tpu-v3-8", "functional", "opt_name=adam", "", "fixed to sgd"},
      {"toy", "tpu-v3-8", "functional", "", "google-v0.6", "--preset google-v0.6: toy has no preset "
                                                          "'google-v0.6' (presets: none)"},
      {"resnet", "tpu-v3-8", "projected", "", "nvidia", "resnet has no preset 'nvidia' (presets: google-v0.6, "
                                                        "functional)"},
      // A mode's own hyperparameters, set for the other mode, would change
      // nothing.
      {"resnet", "tpu-v3-32", "projected", "functional_image_size=64", "google-v0.6",
       "--set functional_image_size=64: functional_* hyperparameters are read only by --mode functional, and "
       "this run is --mode projected"},
      {"resnet", "tpu-v3-8", "functional", "projected_eval=false", "functional",
       "--set projected_eval=false: projected_* hyperparameters are read only by --mode projected, and this "
       "run is --mode functional"},
  };
  for (const Case& c : cases) {
    RunRequest req;
    req.workload = c.workload;
    req.slice = c.slice;
    req.mode = c.mode;
    req.preset = c.preset;
    if (!c.set.empty()) req.sets = {c.set};
    auto s = Normalize(req);
    ASSERT_FALSE(s.ok()) << c.workload << " " << c.set;
    EXPECT_THAT(s.status().message(), HasSubstr(c.message));
  }
}

TEST(SettingsTest, DefaultsToTheScoredRunCountAndNamesLogsPerRun) {
  RunRequest req;
  req.workload = "toy";
  req.log = "/tmp/x/run.log";
  auto s = Normalize(req);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->runs, 5);
  EXPECT_EQ(s->LogPath(3), "/tmp/x/run_3.log");
  req.runs = 1;
  EXPECT_EQ(Normalize(req)->LogPath(0), "/tmp/x/run.log");
  // An explicit count is honoured or refused; 0 does not fall back to the default.
  for (int bad : {0, -2, 1001}) {
    req.runs = bad;
    auto refused = Normalize(req);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_THAT(refused.status().message(), HasSubstr("--runs " + std::to_string(bad) + ": expected 1 to 1000"));
  }
}

}  // namespace
}  // namespace podbench::harness
