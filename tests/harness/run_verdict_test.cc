// Checked, then counted. `podbench run`'s own code (cli::Main, in process, so
// that a test workload can write logs the rules refuse) against real v0.6
// rules and a real results store:
//   - a run whose log fails the rules is stored as noncompliant, is not
//     scored, and makes `run` exit 1, even though it converged;
//   - a run that does not converge is aborted and exits 1 (its log fails on
//     the target only);
//   - an error midway exits 2 and loses nothing already recorded.
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/cli/command.h"
#include "results/store.h"
#include "tests/testing/temp_dir.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::harness {
namespace {

using ::testing::HasSubstr;

// Logs as a "resnet" (so the v0.6 resnet rules check it): evaluations every
// `every` epochs (the rules want 4), top-1 0.8 from epoch `reach` on (0.5
// before), and an I/O error in the first block of the run with seed
// `fail_seed` (0: none).
class CheckedSession : public workloads::Session {
 public:
  explicit CheckedSession(const workloads::RunContext& ctx) : ctx_(ctx) {}
  Result<double> Initialize() override { return 10.0; }
  Result<workloads::BlockResult> TrainBlock(int64_t, int64_t epochs) override {
    if (ctx_.seed == static_cast<uint64_t>(ctx_.hp.Int("fail_seed"))) {
      return Status::IOError("test-checked: the disk went away");
    }
    workloads::BlockResult b;
    b.steps = 10 * epochs;
    b.time.mxu_s = static_cast<double>(epochs);
    return b;
  }
  Result<workloads::EvalResult> Evaluate(int64_t epoch) override {
    workloads::EvalResult r;
    r.metrics["top1"] = epoch >= ctx_.hp.Int("reach") ? 0.8 : 0.5;
    r.emulated_s = 0.5;
    return r;
  }

 private:
  workloads::RunContext ctx_;
};

class CheckedWorkload : public workloads::Workload {
 public:
  std::vector<workloads::HyperparameterSpec> HyperparameterSpecs() const override {
    std::vector<workloads::HyperparameterSpec> s(6);
    s[0].name = "global_batch_size";
    s[0].default_value = int64_t{64};
    s[0].min = 1;
    s[0].max = 1 << 20;
    s[1].name = "opt_name";
    s[1].default_value = std::string("lars");
    s[1].tunable = false;
    auto knob = [](workloads::HyperparameterSpec& k, const char* name, int64_t def) {
      k.name = name;
      k.default_value = def;
      k.min = 0;
      k.max = 1000;
      k.log = false;
    };
    knob(s[2], "every", 4);
    knob(s[3], "reach", 8);
    knob(s[4], "fail_seed", 0);
    knob(s[5], "max", 12);
    return s;
  }
  Result<workloads::WorkloadDescription> Describe(const workloads::Hyperparameters& hp,
                                                  const workloads::SliceInfo& slice, workloads::Mode) const override {
    workloads::WorkloadDescription d;
    d.benchmark = "resnet";
    d.global_batch = hp.Int("global_batch_size");
    d.parallelism.replicas = slice.cores;
    d.targets = {{"top1", 0.759, true}};
    d.cadence.every = d.cadence.first = std::max<int64_t>(1, hp.Int("every"));
    d.cadence.max_epochs = hp.Int("max");
    return d;
  }
  Result<std::unique_ptr<workloads::Session>> Start(const workloads::RunContext& ctx) const override {
    return std::unique_ptr<workloads::Session>(new CheckedSession(ctx));
  }
};

PODBENCH_REGISTER_WORKLOAD("test-checked", CheckedWorkload)->ScoredRuns(5);

class RunVerdictTest : public ::testing::Test {
 protected:
  // Runs `podbench run test-checked ARGS --db D --format json` in process.
  int Run(const std::string& args, nlohmann::json* out) {
    std::vector<std::string> words{"podbench", "run", "test-checked", "--db", db_, "--format", "json"};
    std::istringstream in(args);
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    std::ostringstream o, e;
    int rc = cli::Main(static_cast<int>(argv.size()), argv.data(), o, e);
    stderr_ = e.str();
    *out = nlohmann::json::parse(o.str(), nullptr, false);
    return rc;
  }
  std::vector<results::RunRecord> Stored() {
    auto store = results::ResultsStore::Open(db_);
    EXPECT_TRUE(store.ok());
    auto runs = (*store)->ListRuns();
    EXPECT_TRUE(runs.ok());
    return *runs;
  }
  testing::TempDir dir_;
  std::string db_ = (dir_ / "runs.db").string();
  std::string stderr_;
};

TEST_F(RunVerdictTest, CompliantConvergedRunsCountAndExitZero) {
  nlohmann::json j;
  ASSERT_EQ(Run("--runs 3 --seed 1", &j), 0) << stderr_;
  for (const auto& r : j["runs"]) {
    EXPECT_EQ(r["status"], "success");
    EXPECT_EQ(r["log_check"], "passes the v0.6 rules");
  }
  EXPECT_TRUE(j["score_min"].is_number());
  for (const auto& r : Stored()) EXPECT_EQ(r.status, "success");
}

TEST_F(RunVerdictTest, ANoncompliantLogIsRecordedNotScoredAndExitsOne) {
  nlohmann::json j;
  // Evaluations every epoch: the v0.6 resnet rules want every 4. The runs
  // reach the target, but their logs fail.
  ASSERT_EQ(Run("--runs 3 --seed 1 --set every=1 --log " + (dir_ / "r.log").string(), &j), 1) << stderr_;
  ASSERT_EQ(j["runs"].size(), 3u);
  for (const auto& r : j["runs"]) {
    EXPECT_EQ(r["status"], "noncompliant");
    EXPECT_THAT(r["log_check"].get<std::string>(), HasSubstr("FAILS the v0.6 rules"));
    EXPECT_THAT(r["log_check"].get<std::string>(), HasSubstr("eval_accuracy"));
  }
  EXPECT_TRUE(j["score_min"].is_null());
  const auto stored = Stored();
  ASSERT_EQ(stored.size(), 3u);
  for (const auto& r : stored) {
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.status, "noncompliant");
    EXPECT_EQ(results::RunState(r), "noncompliant");
  }
  // A compliant set beside them is scored on its own.
  ASSERT_EQ(Run("--runs 3 --seed 1", &j), 0) << stderr_;
  EXPECT_TRUE(j["score_min"].is_number());
}

TEST_F(RunVerdictTest, ARunThatDoesNotConvergeIsAbortedAndExitsOne) {
  nlohmann::json j;
  ASSERT_EQ(Run("--runs 3 --seed 1 --set reach=100", &j), 1) << stderr_;
  for (const auto& r : j["runs"]) {
    EXPECT_EQ(r["status"], "aborted");
    EXPECT_EQ(r["log_check"], "passes the v0.6 rules but for the target");
  }
  EXPECT_TRUE(j["score_min"].is_null());  // three aborted runs: no score
  for (const auto& r : Stored()) EXPECT_EQ(r.status, "aborted");
}

TEST_F(RunVerdictTest, AnErrorMidwayExitsTwoAndKeepsWhatWasRecorded) {
  nlohmann::json j;
  ASSERT_EQ(Run("--runs 3 --seed 1 --set fail_seed=2", &j), 2);
  EXPECT_THAT(stderr_, HasSubstr("the disk went away"));
  ASSERT_FALSE(j.is_discarded());  // the JSON summary is still printed
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["status"], "success");
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("the disk went away"));
  const auto stored = Stored();
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_TRUE(stored[0].complete);
  EXPECT_EQ(stored[0].status, "success");
  EXPECT_FALSE(stored[1].complete);  // the failed run: incomplete, with what it logged
  auto store = results::ResultsStore::Open(db_);
  ASSERT_TRUE(store.ok());
  auto events = (*store)->Events(stored[1].id);
  ASSERT_TRUE(events.ok());
  EXPECT_GT(events->size(), 10u);  // submission keys, init, run_start, block_start
}

}  // namespace
}  // namespace podbench::harness
