// Drives the real binary: a short functional SSD run reaches its mAP target
// and writes a log that passes podbench's v0.6 rules and the official 0.6.0
// ssd rules; bad requests are refused before anything runs.
#include <cstdio>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

// A reduced run (32x32 images of one class, a net of width 8, 128 training
// images in steps of 16: 8 steps an epoch, the first evaluation after 33
// epochs, mAP 0.28 there) with 2-way spatial partitioning and 50 crop tries,
// to MLPerf's own target 0.23; the default run is in the README.
TEST(SsdRunE2eTest, ShortFunctionalRunReachesItsTargetAndPassesBothRuleSets) {
  TempDir dir;
  const std::string db = (dir / "s.db").string(), log = (dir / "s.log").string();
  int rc = 0;
  std::string out = Podbench("run ssd --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 2 "
                             "--set functional_image_size=32 --set functional_classes=1 --set functional_width=8 "
                             "--set functional_train_examples=128 --set global_batch_size=16 --set model_bn_span=16 "
                             "--set functional_eval_examples=64 --set functional_target=0.23 "
                             "--set spatial_partitions=2 --set max_samples=50 --set lr_decay_epoch_1=70 "
                             "--set lr_decay_epoch_2=80 --db " + db + " --log " + log, &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("success"));
  EXPECT_THAT(out, HasSubstr("passes the v0.6 rules"));
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  // The v0.6 SSD keys, each once; the mAP of every evaluation is real.
  for (const char* key : {"global_batch_size", "model_bn_span", "opt_base_learning_rate", "opt_weight_decay",
                          "opt_learning_rate_warmup_steps", "opt_learning_rate_warmup_factor", "max_samples"}) {
    const std::string k = std::string(" ") + key + ": ";
    const size_t at = s.find(k);
    ASSERT_NE(at, std::string::npos) << key;
    EXPECT_EQ(s.find(k, at + 1), std::string::npos) << key << " logged twice";
  }
  EXPECT_THAT(s, HasSubstr("\"epoch_num\":33}"));
  std::string check = Podbench("check --quiet " + log, &rc);
  EXPECT_EQ(rc, 0) << check;
  if (auto shared = SharedDir()) {
    check = Podbench("check --quiet --ruleset 0.6.0 --rules-dir " +
                         (*shared / "fixtures" / "mlperf-logging-rules").string() + " " + log,
                     &rc);
    EXPECT_EQ(rc, 0) << check;
  } else {
    std::printf("../shared is absent: the official 0.6.0 rules were not run on the log\n");
  }
}

TEST(SsdRunE2eTest, BadRequestsAreRefusedBeforeAnythingRuns) {
  TempDir dir;
  const std::string db = " --db " + (dir / "r.db").string();
  int rc = 0;
  std::string out = Podbench("run ssd --mode functional --slice tpu-v3-8" + db, &rc);  // the COCO-scale default batch
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("--preset functional"));
  out = Podbench("run ssd --mode functional --slice tpu-v3-8 --preset functional --set spatial_partitions=3" + db, &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("spatial_partitions"));
  out = Podbench("run ssd --mode functional --slice tpu-v3-8 --preset functional --set functional_target=0.2" + db,
                 &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("0.23"));
  out = Podbench("run ssd --mode functional --slice tpu-v3-8 --preset functional --set opt_weight_decay=0" + db, &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("opt_weight_decay > 0"));
  // Projected mode without Google's preset: the default batch of 1024 does
  // not split over tpu-v3-2048's 2048 one-core replicas.
  out = Podbench("run ssd --mode projected --slice tpu-v3-2048" + db, &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_THAT(out, HasSubstr("global_batch_size 1024 does not split evenly"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.db"));
}

}  // namespace
}  // namespace podbench::testing
