// Drives the real binary: projected MiniGo runs whose logs pass podbench's
// v0.6 rules and the official 0.6.0 minigo rules (eval_result within 1.5 ms
// of the winning model's save, save_model inside its epoch, epoch_num from
// 1), `podbench model` and `podbench scaling` showing the generation on every
// slice, and what `score` and `check` make of NVIDIA's and Intel's published
// v0.6 logs beside the official checker's verdicts.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/log_checks.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

const char* const kSlices[] = {"tpu-v3-8",   "tpu-v3-32",  "tpu-v3-64",   "tpu-v3-128",
                               "tpu-v3-256", "tpu-v3-512", "tpu-v3-1024", "tpu-v3-2048"};
const char* const kNoTpuScore = "Google ran no MiniGo in MLPerf v0.6";

// The :::MLL timestamp of the first line holding every one of `parts`.
double TimestampOf(const std::string& text, const std::vector<std::string>& parts) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    bool all = true;
    for (const std::string& p : parts) all = all && line.find(p) != std::string::npos;
    if (all) return std::stod(line.substr(7, line.find(' ', 7) - 7));
  }
  ADD_FAILURE() << "no line with " << parts.front();
  return 0;
}

// eval_result's timestamp T is the winning model's save, after run_start
// (within the official rule's 1.5 ms). Returns its iteration k; *t = T.
int64_t ExpectEvalResultAtItsSave(const std::string& text, double* t) {
  const double run_start = TimestampOf(text, {" run_start: "});
  const std::string result = text.substr(text.find(" eval_result: "));
  const int64_t k = std::stoll(result.substr(result.find("\"iteration\":") + 12));
  *t = std::stod(result.substr(result.find("\"timestamp\":") + 12));
  const double save = TimestampOf(text, {" save_model: ", "{\"iteration\":" + std::to_string(k) + "}"});
  EXPECT_NEAR(*t, save - run_start, 1.5e-3);
  return k;
}

TEST(MiniGoRunE2eTest, ProjectedRunsPassBothRuleSetsOnEverySliceAndScalingShowsThem) {
  TempDir dir;
  const std::string db = (dir / "m.db").string();
  int rc = 0;
  for (const char* slice : kSlices) {
    SCOPED_TRACE(slice);
    const std::string log = (dir / (std::string(slice) + ".log")).string();
    const std::string out = Podbench(std::string("run minigo --mode projected --slice ") + slice +
                                         " --preset nvidia-v0.6 --seed 5 --db " + db + " --log " + log,
                                     &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_THAT(out, HasSubstr("10 runs"));  // the v0.6 rule for MiniGo
    EXPECT_THAT(out, ::testing::Not(HasSubstr("FAILS")));
    EXPECT_THAT(out, HasSubstr(kNoTpuScore));
    const std::string first = (dir / (std::string(slice) + "_0.log")).string();
    const std::string text = ReadText(first);
    for (const char* k : {"global_batch_size: {\"value\":8192", "virtual_losses: {\"value\":8",
                          "opt_learning_rate_decay_boundary_steps: {\"value\":[12500,18750]",
                          "opt_base_learning_rate: {\"value\":[0.32,0.032,0.0032]"}) {
      EXPECT_EQ(CountOccurrences(text, k), 1) << k;
    }
    EXPECT_THAT(text, HasSubstr("\"epoch_num\":1}"));
    EXPECT_EQ(CountOccurrences(text, " eval_result: "), 1);
    EXPECT_EQ(CountOccurrences(text, " block_start: "), 0);
    double t = 0;
    const int64_t k = ExpectEvalResultAtItsSave(text, &t);
    EXPECT_GE(k, 15);
    EXPECT_LE(k, 21);
    // training_0.6.0/common.yaml sends MiniGo to its own entry file.
    ExpectLogPassesBothRuleSets(first, "--config training_0.6.0/minigo.yaml");
    const std::string model = Podbench(std::string("model minigo --slice ") + slice, &rc);
    ASSERT_EQ(rc, 0) << model;
    EXPECT_THAT(model, HasSubstr("generation (one label of a projected run): "));
    EXPECT_THAT(model, HasSubstr("4096 games on "));
  }
  std::string json = Podbench("scaling minigo --preset nvidia-v0.6 --format json --db " + db, &rc);
  ASSERT_EQ(rc, 0) << json;
  const nlohmann::json table = nlohmann::json::parse(json);
  EXPECT_THAT(table["published_note"].get<std::string>(), HasSubstr(kNoTpuScore));
  int rows = 0;
  double last_block = 1e300;
  for (const auto& row : table["rows"]) {
    ASSERT_FALSE(row["predicted_min"].is_null()) << row.dump();
    ASSERT_FALSE(row["block_s"].is_null()) << row.dump();
    EXPECT_TRUE(row["published_min"].is_null()) << row.dump();
    // A generation never takes longer on a larger slice.
    EXPECT_LE(row["block_s"].get<double>(), last_block * (1 + 1e-9)) << row.dump();
    last_block = row["block_s"].get<double>();
    ++rows;
  }
  EXPECT_EQ(rows, 8);
  const std::string text = Podbench("scaling minigo --preset nvidia-v0.6 --db " + db, &rc);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_THAT(text, HasSubstr(kNoTpuScore));
  EXPECT_THAT(text, HasSubstr("tpu-v3-2048"));
}

// A tiny functional loop (1-block network, 8 games a generation at 4
// readouts): the `functional` preset with sizes that run in seconds.
std::string TinyFunctional(const std::string& cache) {
  return " --slice tpu-v3-8 --preset functional --set max_generations=3 --set games_per_generation=8"
         " --set parallel_games=2 --set num_readouts=4 --set virtual_losses=2 --set gating_games=4"
         " --set functional_target_games=4 --set functional_bootstrap_games=8 --set functional_bootstrap_readouts=2"
         " --set functional_checkpoint_steps=2 --set functional_target_generations=1"
         " --set functional_steps_per_generation=2 --set global_batch_size=8 --set functional_conv_width=8"
         " --set functional_trunk_layers=1 --set functional_fc_width=16 --set functional_cache_dir=" +
         cache;
}

// A functional run plays real games and logs the v0.6 MiniGo lines: its log
// passes podbench's v0.6 rules and the official 0.6.0 minigo rules
// (eval_result within 1.5 ms of the winning model's save, save_model inside
// its epoch, epoch_num from 1), `score` reads it, and the second run reuses
// the cached checkpoint and target and logs the same lines.
TEST(MiniGoRunE2eTest, TinyFunctionalRunPassesBothRuleSetsAndScores) {
  TempDir dir;
  int rc = 0;
  const std::string cache = (dir / "cache").string();
  std::string texts[2];
  for (int i = 0; i < 2; ++i) {
    const std::string log = (dir / ("f" + std::to_string(i) + ".log")).string();
    const std::string out = Podbench("run minigo --mode functional --runs 1 --seed 3 --db " +
                                         (dir / "f.db").string() + " --log " + log + TinyFunctional(cache),
                                     &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_TRUE(std::filesystem::exists(cache)) << "the set-up is cached";
    const std::string text = ReadText(log);
    EXPECT_THAT(text, HasSubstr("\"epoch_num\":1}"));
    EXPECT_THAT(text, HasSubstr(" save_model: {\"value\":{\"iteration\":1}"));
    EXPECT_EQ(CountOccurrences(text, " eval_result: "), 1);
    EXPECT_EQ(CountOccurrences(text, " block_start: "), 0);
    for (const char* k : {"global_batch_size: {\"value\":8,", "virtual_losses: {\"value\":2,",
                          "opt_learning_rate_decay_boundary_steps: {\"value\":[760,1160]",
                          "opt_base_learning_rate: {\"value\":[0.02,0.002,0.0002]"}) {
      EXPECT_EQ(CountOccurrences(text, k), 1) << k;
    }
    double t = 0;
    ExpectEvalResultAtItsSave(text, &t);
    ExpectLogPassesBothRuleSets(log, "--config training_0.6.0/minigo.yaml");
    const std::string score = Podbench("score --format json " + log, &rc);
    ASSERT_EQ(rc, 0) << score;
    const nlohmann::json runs = nlohmann::json::parse(score)["scores"][0]["runs"];
    ASSERT_EQ(runs.size(), 1u) << score;
    EXPECT_NEAR(runs[0]["minutes"].get<double>(), t / 60, 1e-6) << score;
    // The same lines apart from the :::MLL timestamps.
    std::string& kept = texts[i];
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) kept += line.substr(line.find(' ', 7)) + "\n";
  }
  EXPECT_EQ(texts[0], texts[1]);
}

// functional_pass_in_policy_target reaches the loop: the preset's false
// (its departure from v0.6) and an explicit false make the pass-free recipe,
// whose cached checkpoint and target carry "-nopass" in their names; true
// (v0.6) makes the recipe without it. The file names are the recipe key
// (LoopConfig::RecipeKey), so this is what the run trained on.
TEST(MiniGoRunE2eTest, PassInPolicyTargetChoosesTheRecipeTheRunTrainsOn) {
  TempDir dir;
  const std::pair<const char*, bool> cases[] = {{"", true}, {" --set functional_pass_in_policy_target=false", true},
                                                {" --set functional_pass_in_policy_target=true", false}};
  int i = 0;
  for (const auto& [set, nopass] : cases) {
    const std::filesystem::path cache = dir / ("cache" + std::to_string(i++));
    int rc = 0;
    const std::string out = Podbench("run minigo --mode functional --runs 1 --seed 3 --db " +
                                         (dir / "f.db").string() + TinyFunctional(cache.string()) + set,
                                     &rc);
    ASSERT_EQ(rc, 0) << out;
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(cache)) {
      ++files;
      EXPECT_EQ(e.path().filename().string().find("-nopass") != std::string::npos, nopass)
          << "'" << set << "' wrote " << e.path();
    }
    EXPECT_EQ(files, 2) << "a checkpoint and a target for '" << set << "'";
  }
}

// What functional mode cannot honour is refused before anything runs.
TEST(MiniGoRunE2eTest, FunctionalModeRefusesWhatItCannotHonour) {
  TempDir dir;
  int rc = 0;
  const std::string out = Podbench("run minigo --mode functional --runs 1 --db " + (dir / "f.db").string() +
                                       TinyFunctional((dir / "cache").string()) + " --set filter_amount=0.25",
                                   &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("filter_amount 0.25: functional mode draws each batch uniformly")) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "f.db")) << "a refused run stores nothing";
}

// A training sub-slice the system does not have is refused naming the
// hyperparameter that chose it (the built-in pod has no tpu-v3-16).
TEST(MiniGoRunE2eTest, ATrainingSliceTheSystemLacksNamesProjectedTrainCores) {
  TempDir dir;
  int rc = 0;
  const std::string out = Podbench("run minigo --mode projected --slice tpu-v3-32 --preset nvidia-v0.6 --runs 1 "
                                   "--set projected_train_cores=16 --db " + (dir / "m.db").string(),
                                   &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("projected_train_cores 16: unknown slice 'tpu-v3-16'")) << out;
}

// NVIDIA's and Intel's v0.6 MiniGo logs: their scores (loop §4), and what
// check makes of them beside the official checker's verdicts (common.yaml,
// fixtures/expected/official-verdicts.jsonl).
TEST(MiniGoRunE2eTest, PublishedLogsScoreAsTheV06ResultsAndCheckAsTheOfficialChecker) {
  auto shared = SharedDir();
  if (!shared) GTEST_SKIP() << "../shared is not here";
  const std::string nvidia =
      (*shared / "fixtures/logs/v0.6/NVIDIA/results/dgx1_ngc19.05_tensorflow/minigo").string();
  const std::string intel = (*shared / "fixtures/logs/v0.6/Intel/results/clx-8260l-2s-x32/minigo").string();
  const std::string rules = (*shared / "fixtures" / "mlperf-logging-rules").string();
  int rc = 0;
  // Scores: NVIDIA's olympic mean 27.39 min; Intel's two runs 12.43 and
  // 12.49 min, read through their Python-dict metadata (0-based iteration 14
  // is their 15th generation).
  std::string score = Podbench("score --format json " + nvidia + " " + intel, &rc);
  ASSERT_EQ(rc, 0) << score;
  const nlohmann::json scores = nlohmann::json::parse(score)["scores"];
  ASSERT_EQ(scores.size(), 2u) << score;
  for (const auto& s : scores) {
    EXPECT_THAT(s["published_note"].get<std::string>(), HasSubstr(kNoTpuScore));
    if (s["org"] == "NVIDIA") {
      EXPECT_NEAR(s["score_minutes"].get<double>(), 27.39, 0.005);
      continue;
    }
    EXPECT_EQ(s["org"], "Intel_Corp");
    ASSERT_EQ(s["runs"].size(), 2u);
    EXPECT_NEAR(s["runs"][0]["minutes"].get<double>(), 746.014 / 60, 1e-6);
    EXPECT_NEAR(s["runs"][1]["minutes"].get<double>(), 749.586 / 60, 1e-6);
    EXPECT_THAT(s["runs"][0]["note"].get<std::string>(), HasSubstr("Python-dict metadata read as JSON"));
  }
  const std::string text = Podbench("score " + nvidia + " " + intel, &rc);
  EXPECT_THAT(text, HasSubstr("minigo: Google ran no MiniGo in MLPerf v0.6"));

  // podbench's v0.6 rules and the official minigo.yaml: NVIDIA's pass;
  // Intel's fail, their Python-dict lines unparsable (so every key they
  // hold counts as missing).
  for (const std::string& extra :
       {std::string(), "--ruleset 0.6.0 --rules-dir " + rules + " --config training_0.6.0/minigo.yaml"}) {
    SCOPED_TRACE(extra);
    std::string out = Podbench("check --quiet " + extra + " " + nvidia, &rc);
    EXPECT_EQ(rc, 0) << out;
    out = Podbench("check " + extra + " " + intel + "/result_0.txt", &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_THAT(out, HasSubstr("Log lines had parsing errors"));
    EXPECT_THAT(out, HasSubstr("'eval_result' but found 0"));
  }
  // The official checker's default entry (common.yaml), as the verdicts in
  // the fixtures were made: every one of the 12 logs fails, with the keys
  // the official checker names.
  std::map<std::string, std::vector<std::string>> official;
  std::ifstream verdicts(*shared / "fixtures/expected/official-verdicts.jsonl");
  for (std::string line; std::getline(verdicts, line);) {
    const nlohmann::json v = nlohmann::json::parse(line);
    const std::string log = v["log"];
    if (log.rfind("v0.6/", 0) != 0 || log.find("/minigo/") == std::string::npos) continue;
    official[log] = v["error_keys"].get<std::vector<std::string>>();
  }
  ASSERT_EQ(official.size(), 12u);
  for (const auto& [log, keys] : official) {
    SCOPED_TRACE(log);
    const std::string out = Podbench(
        "check --format json --ruleset 0.6.0 --rules-dir " + rules + " " + (*shared / "fixtures/logs" / log).string(),
        &rc);
    EXPECT_EQ(rc, 1) << out;
    std::vector<std::string> got = nlohmann::json::parse(out)["logs"][0]["error_keys"];
    std::sort(got.begin(), got.end());
    std::vector<std::string> want = keys;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
  }
}

}  // namespace
}  // namespace podbench::testing
