// Drives the real podbench binary through run -> log -> store -> runs/show ->
// scaling -> compare, as a CI job would.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "results/store.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

class RunE2eTest : public ::testing::Test {
 protected:
  std::string Podbench(const std::string& args, int* rc) {
    std::string out;
    *rc = RunCommand("cd " + dir_.path().string() + " && " + PodbenchBinary().string() + " " +
                         args + " 2>&1",
                     &out);
    return out;
  }
  nlohmann::json Json(const std::string& args) {
    int rc = 0;
    std::string out = Podbench(args, &rc);
    EXPECT_EQ(rc, 0) << out;
    return nlohmann::json::parse(out, nullptr, false);
  }
  TempDir dir_;
};

TEST_F(RunE2eTest, RunStoreShowScalingCompare) {
  int rc = 0;
  // Baseline and an identical candidate (same seeds), and a slower candidate.
  nlohmann::json base = Json("run toy --runs 5 --seed 1 --label base --db r.db --log base.log "
                             "--format json");
  ASSERT_FALSE(base.is_discarded());
  ASSERT_EQ(base["runs"].size(), 5u);
  EXPECT_EQ(base["runs"][0]["status"], "success");
  EXPECT_TRUE(base["score_min"].is_number());
  EXPECT_TRUE(std::filesystem::exists(dir_ / "base_4.log"));
  std::ifstream log(dir_ / "base_0.log");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr(":::MLL "));
  EXPECT_THAT(text.str(), HasSubstr("run_stop: {\"value\":null,\"metadata\":{"));
  EXPECT_THAT(text.str(), HasSubstr("\"status\":\"success\""));
  Json("run toy --runs 5 --seed 1 --label same --db r.db --format json");
  Json("run toy --runs 5 --seed 1 --label slow --set opt_base_learning_rate=0.01 --db r.db "
       "--format json");

  std::string csv = Podbench("runs --db r.db --format csv", &rc);
  ASSERT_EQ(rc, 0) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 16);
  EXPECT_THAT(csv, HasSubstr("id,label,workload,slice,cores,chips,mode"));

  nlohmann::json show = Json("show 1 --db r.db --format json");
  EXPECT_EQ(show["state"], "success");
  EXPECT_EQ(show["label"], "base");
  EXPECT_EQ(show["hyperparameters"]["global_batch_size"], 64);
  EXPECT_FALSE(show["evals"].empty());
  EXPECT_GT(show["step_breakdown"]["compute_s"].get<double>(), 0);
  EXPECT_GT(show["log_events"].get<int>(), 20);
  // What the workload described is stored with the run: model, data, layout.
  EXPECT_EQ(show["parallel_layout"]["replicas"], 8);
  EXPECT_EQ(show["parallel_layout"]["cores_per_replica"], 1);
  EXPECT_EQ(show["parallel_layout"]["split"], "none");
  EXPECT_EQ(show["parallel_layout"]["allreduce"], "torus2d");
  EXPECT_EQ(show["model"]["name"], "logistic_regression");
  EXPECT_EQ(show["data"]["train_examples"], 8192);
  std::string show_text = Podbench("show 1 --db r.db", &rc);
  EXPECT_EQ(rc, 0) << show_text;
  EXPECT_THAT(show_text, HasSubstr("  layout        8 replicas x 1 core, no split, bn_group 1, weight-update "
                                   "sharding off, fp32 gradients, torus2d all-reduce\n"));
  EXPECT_THAT(show_text, HasSubstr("  model         logistic_regression: 17 parameters"));
  nlohmann::json listed = Json("runs --db r.db --format json");
  ASSERT_EQ(listed.size(), 15u);
  EXPECT_EQ(listed[14]["parallel_layout"]["bn_group"], 1);

  nlohmann::json report = Json("report --db r.db --format json");
  ASSERT_EQ(report.size(), 3u);
  EXPECT_EQ(report[2]["label"], "slow");
  EXPECT_EQ(report[2]["success"], 5);

  std::string same = Podbench("compare base same --db r.db", &rc);
  EXPECT_EQ(rc, 0) << same;
  EXPECT_THAT(same, HasSubstr("PASS"));
  std::string slow = Podbench("compare label:base label:slow --db r.db", &rc);
  EXPECT_EQ(rc, 1) << slow;
  EXPECT_THAT(slow, HasSubstr("REGRESSION"));
  nlohmann::json cj = Json("compare 1-5 slow --db r.db --format json --max-regression 1000");
  EXPECT_EQ(cj["regression"], false);
  EXPECT_EQ(cj["metrics"][0]["metric"], "time_to_train");
  EXPECT_LT(cj["metrics"][0]["p_value"].get<double>(), 0.05);
  EXPECT_EQ(cj["metrics"][0]["base_run_ids"], nlohmann::json({1, 2, 3, 4, 5}));  // the runs behind each value
  EXPECT_EQ(cj["metrics"][0]["cand_run_ids"].size(), cj["metrics"][0]["cand"].size());

  // Projected runs on two slices make a scaling table.
  Json("run toy --mode projected --slice tpu-v3-32 --set global_batch_size=256 --runs 3 --seed 1 "
       "--db r.db --format json");
  Json("run toy --mode projected --slice tpu-v3-128 --set global_batch_size=1024 --runs 3 "
       "--seed 1 --db r.db --format json");
  nlohmann::json table = Json("scaling toy --db r.db --format json");
  ASSERT_TRUE(table["rows"].is_array());
  EXPECT_TRUE(table["other_rows"].empty());  // without --preset every configuration is a row
  const nlohmann::json& sc = table["rows"];
  ASSERT_EQ(sc.size(), 2u);
  EXPECT_EQ(sc[0]["slice"], "tpu-v3-32");
  EXPECT_EQ(sc[1]["chips"], 64);
  EXPECT_TRUE(sc[1]["predicted_min"].is_number());
  EXPECT_TRUE(sc[1]["published_min"].is_null());
  EXPECT_TRUE(sc[1]["error_pct"].is_null());
  EXPECT_GT(sc[1]["parallel_efficiency"].get<double>(), 0);
  EXPECT_EQ(sc[1]["variant"], "set global_batch_size=1024");
}

// ResNet's layout follows its hyperparameters, and `show` prints it.
TEST_F(RunE2eTest, ShowPrintsTheParallelLayout) {
  nlohmann::json run = Json("run resnet --mode projected --slice tpu-v3-2048 --preset google-v0.6 "
                            "--set allreduce=ring --set weight_update_sharding=true --runs 1 --seed 1 "
                            "--db r.db --format json");
  ASSERT_FALSE(run.is_discarded());
  nlohmann::json show = Json("show 1 --db r.db --format json");
  const nlohmann::json& l = show["parallel_layout"];
  EXPECT_EQ(l["replicas"], 2048);
  EXPECT_EQ(l["bn_group"], 8);
  EXPECT_EQ(l["weight_update_sharding"], true);
  EXPECT_EQ(l["allreduce"], "ring");
  EXPECT_EQ(l["gradient_dtype"], "fp32");
  EXPECT_EQ(show["model"]["parameters"], 25557032);
  EXPECT_EQ(show["data"]["name"], "imagenet");
  int rc = 0;
  std::string text = Podbench("show 1 --db r.db", &rc);
  EXPECT_EQ(rc, 0) << text;
  EXPECT_THAT(text, HasSubstr("  layout        2048 replicas x 1 core, no split, bn_group 8, weight-update "
                              "sharding on, fp32 gradients, ring all-reduce\n"));
}

TEST_F(RunE2eTest, BadRequestsAreRefusedBeforeAnythingRuns) {
  int rc = 0;
  std::string out = Podbench("run toy --set global_batch_size=0 --db new.db --log new.log", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("global_batch_size must be >= 1, got 0"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "new.db"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "new.log"));
  out = Podbench("run toy --slice tpu-v3-6 --db new.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--slice tpu-v3-6"));
  out = Podbench("compare 1 2 --db missing.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("missing.db: no such results database"));
  // An explicit run count of 0 is refused, not taken as the default.
  out = Podbench("run toy --runs 0 --db new.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--runs 0: expected 1 to 1000"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "new.db"));
}

TEST_F(RunE2eTest, ScalingRefusesAnUnknownWorkloadOrPreset) {
  int rc = 0;
  Podbench("run toy --runs 1 --seed 1 --db r.db", &rc);
  ASSERT_EQ(rc, 0);
  std::string out = Podbench("scaling resnett --db r.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("unknown workload 'resnett' (available: "));
  out = Podbench("scaling resnet --preset google-v06 --db r.db", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(out, HasSubstr("--preset google-v06: resnet has no preset 'google-v06' (presets: google-v0.6"));
  Podbench("scaling toy --db r.db", &rc);
  EXPECT_EQ(rc, 0);
}

TEST_F(RunE2eTest, ScalingListsPublishedSlicesForThePreset) {
  int rc = 0;
  Podbench("run toy --runs 1 --seed 1 --db r.db", &rc);
  ASSERT_EQ(rc, 0);
  const nlohmann::json sc = Json("scaling resnet --preset google-v0.6 --db r.db --format json")["rows"];
  ASSERT_EQ(sc.size(), 6u);
  EXPECT_EQ(sc[0]["slice"], "tpu-v3-32");
  EXPECT_EQ(sc[0]["published_min"], 42.19);
  EXPECT_TRUE(sc[0]["predicted_min"].is_null());
}

TEST_F(RunE2eTest, ConcurrentRunCommandsLoseNothing) {
  std::string out;
  int rc = RunCommand("cd " + dir_.path().string() + " && for i in 1 2 3 4; do " +
                          PodbenchBinary().string() +
                          " run toy --runs 5 --seed $i --label p$i --db r.db --format json"
                          " > /dev/null & done; wait",
                      &out);
  ASSERT_EQ(rc, 0) << out;
  nlohmann::json runs = Json("runs --db r.db --format json");
  ASSERT_EQ(runs.size(), 20u);
  for (const auto& r : runs) EXPECT_EQ(r["state"], "success") << r.dump();
}

// `podbench run` killed with SIGKILL in the middle of a run: the database
// stays consistent and the run reads as incomplete.
TEST_F(RunE2eTest, RunKilledWithSigkillIsIncomplete) {
  const std::string db = (dir_ / "r.db").string();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A run that would take minutes: a tiny learning rate never reaches the target.
    execl(PodbenchBinary().c_str(), "podbench", "run", "toy", "--runs", "1", "--seed", "1",
          "--db", db.c_str(), "--set", "opt_base_learning_rate=0.000001", "--set",
          "max_epochs=1000", "--set", "toy_train_examples=262144", "--format", "json",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until at least one block of events is stored (bounded, not timed).
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!std::filesystem::exists(db)) continue;
    auto store = results::ResultsStore::Open(db);
    if (!store.ok()) continue;
    auto runs = (*store)->ListRuns();
    started = runs.ok() && !runs->empty() && !(*store)->Events((*runs)[0].id)->empty();
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(started) << "the run never stored an event";
  ASSERT_TRUE(WIFSIGNALED(status)) << "podbench finished before it was killed";

  auto store = results::ResultsStore::Open(db);
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE((*store)->IntegrityCheck().ok());
  nlohmann::json runs = Json("runs --db r.db --format json");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["state"], "incomplete");
  EXPECT_TRUE(runs[0]["ttt_emulated_s"].is_null());
}

// The README's CI gate catches a slower link: the toy prices its steps with
// the system file (--system), so halving the ICI link bandwidth slows every
// step's gradient all-reduce, and compare exits 1.
TEST_F(RunE2eTest, TheGateCatchesASlowerLinkInTheSystemFile) {
  int rc = 0;
  std::string yaml = Podbench("topology --print-system", &rc);
  ASSERT_EQ(rc, 0);
  const std::string key = "link_bandwidth_bytes_per_s: ";
  const size_t at = yaml.find(key);
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at + key.size(), yaml.find_first_of(" \n", at + key.size()) - at - key.size(), "41.0e9");
  std::ofstream(dir_ / "slow.yaml") << yaml;
  nlohmann::json base = Json("run toy --runs 5 --seed 1 --label base --db gate.db --format json");
  nlohmann::json cand = Json("run toy --runs 5 --seed 1 --label cand --db gate.db --system slow.yaml --format json");
  ASSERT_EQ(cand["runs"].size(), 5u);
  EXPECT_GT(cand["runs"][0]["step_time_s"].get<double>(), 1.05 * base["runs"][0]["step_time_s"].get<double>());
  std::string gate = Podbench("compare base cand --db gate.db --max-regression 5 --format json", &rc);
  EXPECT_EQ(rc, 1) << gate;
  nlohmann::json j = nlohmann::json::parse(gate, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << gate;
  EXPECT_EQ(j["regression"], true);
  // The same system file on both sides: no regression.
  Json("run toy --runs 5 --seed 1 --label same --db gate.db --system slow.yaml --format json");
  Podbench("compare cand same --db gate.db --max-regression 5", &rc);
  EXPECT_EQ(rc, 0);
}

// `score` reads podbench's own logs, whatever their folder, and scores them
// as `run` did; in either log format.
TEST_F(RunE2eTest, ScoreScoresRunsOwnLogsAsRunScoredThem) {
  for (const char* format : {"mll", "mllog"}) {
    const std::string folder = std::string("logs-") + format;
    std::filesystem::create_directories(dir_ / folder);
    nlohmann::json run = Json("run toy --runs 5 --seed 3 --db r.db --format json --log-format " + std::string(format) +
                              " --log " + folder + "/toy.log");
    ASSERT_TRUE(run["score_min"].is_number());
    std::ifstream log(dir_ / folder / "toy_0.log");
    std::stringstream text;
    text << log.rdbuf();
    EXPECT_THAT(text.str(), HasSubstr(std::string(format) == "mll" ? ":::MLL " : ":::MLLOG {"));
    int rc = 0;
    std::string out = Podbench("score --format json " + folder, &rc);
    ASSERT_EQ(rc, 0) << out;
    const nlohmann::json doc = nlohmann::json::parse(out);
    ASSERT_EQ(doc["scores"].size(), 1u) << out;
    const nlohmann::json& score = doc["scores"][0];
    EXPECT_EQ(score["org"], "podbench");
    EXPECT_EQ(score["platform"], "tpu-v3-8");
    EXPECT_EQ(score["benchmark"], "toy");
    EXPECT_EQ(score["runs"].size(), 5u);
    // The log's timestamps are in milliseconds.
    EXPECT_NEAR(score["score_minutes"].get<double>(), run["score_min"].get<double>(), 1e-4) << format;
    // One log file alone scores as its run.
    out = Podbench("score --format json " + folder + "/toy_0.log", &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NEAR(nlohmann::json::parse(out)["scores"][0]["score_minutes"].get<double>(),
                run["runs"][0]["ttt_emulated_min"].get<double>(), 1e-4);
  }
  std::filesystem::create_directories(dir_ / "empty");
  int rc = 0;
  std::string out = Podbench("score empty", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("empty: no MLPerf logs in this folder"));
}

// run exits 1 for a run that does not converge (2 is for usage and I/O errors).
TEST_F(RunE2eTest, ARunThatDoesNotConvergeExitsOne) {
  int rc = 0;
  std::string out = Podbench("run toy --runs 1 --seed 1 --set max_epochs=1 --db r.db", &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_THAT(out, HasSubstr("aborted after 1 epoch,"));
  nlohmann::json runs = Json("runs --db r.db --format json");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["state"], "aborted");
}

}  // namespace
}  // namespace podbench::testing
