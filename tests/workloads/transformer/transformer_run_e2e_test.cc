// Drives the real binary: a short functional Transformer run on 8 emulated
// cores (weight-update sharding, bf16 gradient summation) trains for real to
// a lowered BLEU target, and its log passes podbench's v0.6 rules and the
// official 0.6.0 transformer rules; projected runs of Google's six slices
// pass both too and come within 15% of the published scores and block
// times; bad hyperparameters are refused with the rule quoted.
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/log_checks.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

TEST(TransformerRunE2eTest, ShortFunctionalRunReachesItsTargetAndPassesBothRuleSets) {
  TempDir dir;
  const std::string db = (dir / "t.db").string(), log = (dir / "t.log").string();
  int rc = 0;
  std::string out = Podbench(
      "run transformer --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 3 "
      "--set functional_target=25 --set max_epochs=10 --set functional_train_sentences=2048 "
      "--set functional_eval_sentences=48 --set functional_layers=1 --set functional_filter=128 "
      "--set global_batch_size=16 --set opt_learning_rate_warmup_steps=100 --set opt_base_learning_rate=3 "
      "--set weight_update_sharding=true --set gradient_allreduce_dtype=bf16 --db " + db + " --log " + log,
      &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("functional mode"));
  EXPECT_THAT(out, HasSubstr("success"));
  EXPECT_THAT(out, HasSubstr("passes the v0.6 rules"));
  const std::string text = ReadText(log);
  // Real BLEU values, rising to the target.
  const std::string key = "eval_accuracy: {\"value\":";
  std::vector<double> bleu;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    bleu.push_back(std::stod(text.substr(at + key.size())));
  }
  ASSERT_FALSE(bleu.empty()) << text;
  EXPECT_GE(bleu.back(), 25.0);
  EXPECT_LT(bleu.front(), 100.0);
  // The v0.6 hyperparameter keys, once each.
  ExpectEachKeyOnce(text, {"global_batch_size:", "max_sequence_length:", "opt_name:", "opt_base_learning_rate:",
                        "opt_learning_rate_warmup_steps:", "opt_adam_beta_1:", "opt_adam_beta_2:",
                        "opt_adam_epsilon:"});
  std::string check = Podbench("check --quiet " + log, &rc);
  EXPECT_EQ(rc, 0) << check;
  if (auto shared = SharedDir()) {  // the official 0.6.0 rule files
    check = Podbench("check --quiet --ruleset 0.6.0 --rules-dir " +
                         (*shared / "fixtures" / "mlperf-logging-rules").string() + " " + log,
                     &rc);
    EXPECT_EQ(rc, 0) << check;
  }
  std::string show = Podbench("show 1 --db " + db, &rc);
  EXPECT_EQ(rc, 0) << show;
  EXPECT_THAT(show, HasSubstr("\"weight_update_sharding\":true"));
  EXPECT_THAT(show, HasSubstr("\"gradient_allreduce_dtype\":\"bf16\""));
}

TEST(TransformerRunE2eTest, ProjectedRunsPassBothRuleSetsAndMatchPublished) {
  TempDir dir;
  const std::string db = (dir / "p.db").string();
  int rc = 0;
  for (const char* slice : {"tpu-v3-32", "tpu-v3-128", "tpu-v3-256", "tpu-v3-512", "tpu-v3-1024", "tpu-v3-2048"}) {
    const std::string log = (dir / (std::string(slice) + ".log")).string();
    std::string out = Podbench(std::string("run transformer --mode projected --slice ") + slice +
                                   " --preset google-v0.6 --seed 11 --label " + slice + " --db " + db + " --log " + log,
                               &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_THAT(out, HasSubstr("10 runs"));  // the v0.6 rule for translation
    EXPECT_THAT(out, HasSubstr("passes the v0.6 rules"));
    EXPECT_THAT(out, ::testing::Not(HasSubstr("FAILS")));
    const std::string first = (dir / (std::string(slice) + "_0.log")).string();
    const std::string text = ReadText(first);
    ExpectEachKeyOnce(text, {"global_batch_size:", "max_sequence_length:", "opt_name:", "opt_base_learning_rate:",
                          "opt_learning_rate_warmup_steps:", "opt_adam_beta_1:", "opt_adam_beta_2:",
                          "opt_adam_epsilon:"});
    EXPECT_THAT(text, HasSubstr("\\\"mode\\\":\\\"projected\\\""));  // the BLEU values are modelled
    ExpectLogPassesBothRuleSets(first);
  }
  std::string json = Podbench("scaling transformer --preset google-v0.6 --format json --db " + db, &rc);
  ASSERT_EQ(rc, 0) << json;
  int checked = 0;
  const nlohmann::json rows = nlohmann::json::parse(json)["rows"];
  for (const auto& row : rows) {
    ASSERT_FALSE(row["predicted_min"].is_null()) << row.dump();
    ASSERT_FALSE(row["block_s"].is_null()) << row.dump();
    EXPECT_LT(std::abs(row["error_pct"].get<double>()), 15.0) << row.dump();
    EXPECT_LT(std::abs(row["block_error_pct"].get<double>()), 15.0) << row.dump();
    ++checked;
  }
  EXPECT_EQ(checked, 6);
  // An ablation through --set: without weight-update sharding every core
  // runs Adam over all the weights, a regression the gate catches. One run
  // against ten is too few for the U test: the gate fails on the threshold,
  // and says the row was not tested.
  std::string off = Podbench("run transformer --mode projected --slice tpu-v3-2048 --preset google-v0.6 --seed 11 "
                             "--runs 1 --label no_wus --set weight_update_sharding=false --db " + db, &rc);
  ASSERT_EQ(rc, 0) << off;
  std::string gate = Podbench("compare label:tpu-v3-2048 label:no_wus --max-regression 5 --db " + db, &rc);
  EXPECT_EQ(rc, 1) << gate;
  EXPECT_THAT(gate, ::testing::ContainsRegex("time_to_train +10 +1 .* over threshold, not tested"));
  EXPECT_THAT(gate, HasSubstr("FAIL: over threshold, not tested (10 against 1 run; "));
}

TEST(TransformerRunE2eTest, BadHyperparametersAreRefusedWithTheRule) {
  TempDir dir;
  const std::string db = " --db " + (dir / "r.db").string();
  const std::string base = "run transformer --mode functional --slice tpu-v3-8 ";
  // (arguments, what the message must say)
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--preset functional --set opt_adam_beta_1=0.95", "training_0.6.0/transformer.yaml"},
      {"--preset functional --set opt_adam_beta_2=0.95", "opt_adam_beta_2"},
      {"--preset functional --set label_smoothing=0.2", "label smoothing, 0.1"},
      {"--preset functional --set dropout=0", "dropout, 0.1"},
      {"--preset functional --set eval_beam_size=8", "beam 4"},
      {"--preset functional --set opt_name=sgd", "Adam or LazyAdam"},
      {"--preset functional --set opt_name=lazy_adam", "every gradient is dense"},
      {"--preset functional --set global_batch_size=12", "does not split evenly"},
      {"--preset functional --set max_sequence_length=100", "functional_packed_length"},
      {"--preset functional --set functional_target=20", "functional_target"},
      {"--preset functional --set functional_heads=3", "heads"},
      {"", "--preset functional"},  // Google's batch of 512 sequences
  };
  int rc = 0;
  for (const auto& [args, says] : cases) {
    const std::string out = Podbench(base + args + db, &rc);
    EXPECT_EQ(rc, 2) << args << ": " << out;
    EXPECT_THAT(out, HasSubstr(says)) << args;
  }
  const std::string out =
      Podbench("run transformer --mode projected --slice tpu-v3-8 --preset google-v0.6" + db, &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("tpu-v3-32 to tpu-v3-2048"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.db"));
}

}  // namespace
}  // namespace podbench::testing
