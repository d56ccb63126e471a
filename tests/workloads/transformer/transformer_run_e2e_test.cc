// Drives the real binary: a short functional Transformer run on 8 emulated
// cores (weight-update sharding, bf16 gradient summation) trains for real to
// a lowered BLEU target, and its log passes podbench's v0.6 rules and the
// official 0.6.0 transformer rules; bad hyperparameters are refused with
// the rule quoted.
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int Count(const std::string& text, const std::string& key) {
  int n = 0;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) ++n;
  return n;
}

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
  const std::string text = Read(log);
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
  for (const char* k : {"global_batch_size:", "max_sequence_length:", "opt_name:", "opt_base_learning_rate:",
                        "opt_learning_rate_warmup_steps:", "opt_adam_beta_1:", "opt_adam_beta_2:",
                        "opt_adam_epsilon:"}) {
    EXPECT_EQ(Count(text, std::string(" ") + k), 1) << k;
  }
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
  const std::string out = Podbench("run transformer --mode projected --slice tpu-v3-32" + db, &rc);
  EXPECT_NE(rc, 0) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.db"));
}

}  // namespace
}  // namespace podbench::testing
