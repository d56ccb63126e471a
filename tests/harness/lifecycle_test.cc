// The harness-owned run lifecycle: event order at the workload's cadence,
// several quality targets, abort at max_epochs, the emulated clock, and a
// written log that the shared reader parses.
#include "harness/run/lifecycle.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/run/reporters.h"
#include "harness/run/settings.h"
#include "rules/mllog/reader.h"
#include "tests/testing/temp_dir.h"

namespace podbench::harness {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using workloads::HpValue;

// Two metrics that must both be reached (as Mask R-CNN's box and mask mAP),
// evaluated at fixed epochs (as SSD). Each block of E epochs costs E seconds
// of compute; each evaluation 0.5 s. The metrics reach their targets at the
// epoch given by the "reach" hyperparameter.
class TwoMetricSession : public workloads::Session {
 public:
  explicit TwoMetricSession(int64_t reach) : reach_(reach) {}
  Result<double> Initialize() override { return 100.0; }
  Result<workloads::BlockResult> TrainBlock(int64_t, int64_t epochs) override {
    workloads::BlockResult b;
    b.steps = 10 * epochs;
    b.time.compute_s = static_cast<double>(epochs);
    return b;
  }
  Result<workloads::EvalResult> Evaluate(int64_t epoch) override {
    workloads::EvalResult r;
    r.metrics["box"] = epoch >= reach_ ? 0.40 : 0.1;
    r.metrics["mask"] = epoch >= reach_ + 1 ? 0.35 : 0.1;  // one eval later than box
    r.emulated_s = 0.5;
    return r;
  }

 private:
  int64_t reach_;
};

class TwoMetricWorkload : public workloads::Workload {
 public:
  std::vector<workloads::HyperparameterSpec> HyperparameterSpecs() const override {
    std::vector<workloads::HyperparameterSpec> s(2);
    s[0].name = "global_batch_size";
    s[0].default_value = int64_t{16};
    s[0].min = 1;
    s[1].name = "reach";
    s[1].default_value = int64_t{4};
    s[1].log = false;
    return s;
  }
  Result<workloads::WorkloadDescription> Describe(const workloads::Hyperparameters& hp,
                                                  const workloads::SliceInfo&,
                                                  workloads::Mode) const override {
    workloads::WorkloadDescription d;
    d.benchmark = "maskrcnn";
    d.global_batch = hp.Int("global_batch_size");
    d.targets = {{"box", 0.377, true}, {"mask", 0.339, true}};
    d.cadence.at_epochs = {2, 4, 5, 7};
    d.cadence.max_epochs = 7;
    return d;
  }
  Result<std::unique_ptr<workloads::Session>> Start(const workloads::RunContext& ctx) const override {
    return std::unique_ptr<workloads::Session>(new TwoMetricSession(ctx.hp.Int("reach")));
  }
};

PODBENCH_REGISTER_WORKLOAD("test-two-metrics", TwoMetricWorkload)->ScoredRuns(5);

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
  const RunEvent& Find(const std::string& key) const {
    for (const auto& e : events) {
      if (e.key == key) return e;
    }
    static RunEvent none;
    return none;
  }
};

EffectiveRunSettings Settings(std::vector<std::string> sets = {}) {
  RunRequest req;
  req.workload = "test-two-metrics";
  req.runs = 1;
  req.seed = 1;
  req.sets = std::move(sets);
  auto s = Normalize(req);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

TEST(LifecycleTest, EmitsTheV06SequenceAndStopsWhenEveryTargetIsReached) {
  Recorder rec;
  auto sum = RunOnce(Settings(), 0, {&rec});
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_TRUE(sum->success);
  EXPECT_EQ(sum->epochs, 5);  // box at 4, mask at 5
  std::vector<std::string> keys = rec.Keys();
  std::vector<std::string> head(keys.begin(), keys.begin() + 14);
  EXPECT_THAT(head, ElementsAre("submission_benchmark", "submission_org", "submission_division",
                                "submission_status", "submission_platform", "submission_entry",
                                "submission_poc_name", "submission_poc_email", "cache_clear",
                                "init_start", "global_batch_size", "init_stop", "run_start",
                                "block_start"));
  // Blocks end at evals 2, 4, 5: epochs 1-2, 3-4, 5.
  int blocks = 0, epochs = 0;
  for (const auto& e : rec.events) {
    if (e.key == "block_start") {
      ++blocks;
      if (blocks == 2) {
        EXPECT_EQ(e.metadata.Find("first_epoch_num")->as_int(), 3);
        EXPECT_EQ(e.metadata.Find("epoch_count")->as_int(), 2);
      }
    }
    if (e.key == "epoch_start") {
      EXPECT_EQ(e.metadata.Find("epoch_num")->as_int(), ++epochs);
    }
  }
  EXPECT_EQ(blocks, 3);
  EXPECT_EQ(epochs, 5);
  EXPECT_EQ(keys.back(), "run_stop");
  EXPECT_EQ(rec.events.back().metadata.Find("status")->as_string(), "success");
  // Two metrics: eval_accuracy carries a dict; the store gets one point each.
  const RunEvent& acc = rec.Find("eval_accuracy");
  ASSERT_TRUE(acc.value.is_dict());
  EXPECT_NE(acc.value.Find("box"), nullptr);
  EXPECT_EQ(rec.evals.size(), 6u);
  // The emulated clock: 5 epochs of 1 s and 3 evals of 0.5 s between run_start and run_stop.
  EXPECT_NEAR(sum->ttt_emulated_s, 6.5, 1e-3);
  EXPECT_NEAR(rec.Find("run_stop").ts_emulated_s - rec.Find("run_start").ts_emulated_s, 6.5, 1e-3);
  EXPECT_NEAR(sum->init_emulated_s, 100, 1e-9);
  EXPECT_EQ(sum->steps, 50);
  EXPECT_NEAR(sum->step_time_s, 0.1, 1e-12);
  EXPECT_NEAR(sum->throughput, 160, 1e-9);
}

TEST(LifecycleTest, AbortsAtMaxEpochs) {
  Recorder rec;
  auto sum = RunOnce(Settings({"reach=100"}), 0, {&rec});
  ASSERT_TRUE(sum.ok());
  EXPECT_FALSE(sum->success);
  EXPECT_EQ(sum->epochs, 7);
  EXPECT_EQ(rec.events.back().key, "run_stop");
  EXPECT_EQ(rec.events.back().metadata.Find("status")->as_string(), "aborted");
}

TEST(LifecycleTest, WrittenLogReadsBackInOrder) {
  podbench::testing::TempDir dir;
  const std::string path = (dir / "run.log").string();
  {
    auto log = LogReporter::Create(path);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE(RunOnce(Settings(), 0, {log->get()}).ok());
  }
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

TEST(SettingsTest, RefusesBadRequestsBeforeAnythingRuns) {
  struct Case {
    std::string workload, slice, mode, set, message;
  } cases[] = {
      {"nope", "tpu-v3-8", "functional", "", "unknown workload 'nope' (available:"},
      {"toy", "tpu-v3-12", "functional", "", "--slice tpu-v3-12: unknown slice"},
      {"toy", "tpu-v4-8", "functional", "", "--slice tpu-v4-8"},
      {"toy", "tpu-v3-8", "fast", "", "--mode fast: expected functional or projected"},
      {"toy", "tpu-v3-8", "functional", "global_batch_size=-4", "must be >= 1"},
      {"toy", "tpu-v3-8", "functional", "global_batch_size=12",
       "does not split evenly over the 8 cores"},
      {"toy", "tpu-v3-8", "functional", "opt_name=adam", "fixed to sgd"},
  };
  for (const Case& c : cases) {
    RunRequest req;
    req.workload = c.workload;
    req.slice = c.slice;
    req.mode = c.mode;
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
}

}  // namespace
}  // namespace podbench::harness
