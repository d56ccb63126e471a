// `podbench model` end to end: the op table and the step by category for a
// zoo model, what-if layouts through --set, and bad input refused with exit
// code 2 naming the input.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

using ::testing::HasSubstr;

nlohmann::json ModelJson(const std::string& args) {
  int rc = 0;
  std::string out = Podbench("model " + args + " --format json", &rc);
  EXPECT_EQ(rc, 0) << out;
  return rc == 0 ? nlohmann::json::parse(out) : nlohmann::json();
}

double CategorySum(const nlohmann::json& step) {
  double s = 0;
  for (const auto& [name, v] : step["categories"].items()) s += v.get<double>();
  return s;
}

TEST(ModelCliTest, ListsTheZooAndPricesResNetPerOp) {
  int rc = 0;
  std::string list = Podbench("model", &rc);
  ASSERT_EQ(rc, 0) << list;
  EXPECT_THAT(list, HasSubstr("resnet"));
  std::string out = Podbench("model resnet --slice tpu-v3-2048 --preset google-v0.6", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("25557032 parameters"));
  EXPECT_THAT(out, HasSubstr("stage4.block2.conv3"));
  EXPECT_THAT(out, HasSubstr("training step: "));
  EXPECT_THAT(out, HasSubstr("bn_sync"));
  EXPECT_THAT(out, HasSubstr("evaluation step: "));
  EXPECT_THAT(out, HasSubstr("modelled"));

  nlohmann::json j = ModelJson("resnet --slice tpu-v3-2048");
  EXPECT_EQ(j["layout"]["replicas"], 2048);
  EXPECT_EQ(j["layout"]["bn_group"], 8);
  EXPECT_EQ(j["parameters"], 25557032);
  EXPECT_NEAR(CategorySum(j["train"]), j["train"]["step_s"].get<double>(), 1e-12);
  EXPECT_NEAR(CategorySum(j["eval"]), j["eval"]["step_s"].get<double>(), 1e-12);
  EXPECT_GT(j["train"]["categories"]["bn_sync"].get<double>(), 0);
  EXPECT_EQ(j["train"]["ops"].size(), 175u);
  EXPECT_EQ(j["eval"]["ops"].size(), 174u);  // no loss
}

TEST(ModelCliTest, SetChangesTheLayout) {
  nlohmann::json base = ModelJson("resnet --slice tpu-v3-2048");
  nlohmann::json split = ModelJson("resnet --slice tpu-v3-2048 --set cores_per_replica=4 --set bn_group=2");
  EXPECT_EQ(split["layout"]["replicas"], 512);
  EXPECT_EQ(split["layout"]["split"], "h");
  EXPECT_GT(split["train"]["categories"]["halo"].get<double>(), 0);
  EXPECT_EQ(base["train"]["categories"]["halo"].get<double>(), 0);
  nlohmann::json wus = ModelJson("resnet --slice tpu-v3-2048 --set weight_update_sharding=true");
  EXPECT_LT(wus["train"]["categories"]["optimizer"].get<double>(),
            base["train"]["categories"]["optimizer"].get<double>() / 20);
  nlohmann::json bf16 = ModelJson("resnet --slice tpu-v3-2048 --set gradient_dtype=bf16");
  EXPECT_LT(bf16["train"]["categories"]["gradients"].get<double>(),
            base["train"]["categories"]["gradients"].get<double>());
}

// A pinned op names the core it runs on: Mask R-CNN's heads run on cores 1
// and 2 of their replica (Google's core_assignment_utils.py), not on core 0.
TEST(ModelCliTest, PinnedOpsNameTheirCore) {
  nlohmann::json j = ModelJson("maskrcnn --slice tpu-v3-256");
  std::vector<std::string> places;
  for (const auto& op : j["train"]["ops"]) places.push_back(op["placement"]);
  EXPECT_THAT(places, ::testing::Contains("core1"));
  EXPECT_THAT(places, ::testing::Contains("core2"));
  EXPECT_THAT(places, ::testing::Contains("split"));
}

TEST(ModelCliTest, BadInputExitsTwoNamingIt) {
  struct Case {
    const char* args;
    const char* says;
  };
  for (const Case& c : {Case{"model nosuch", "unknown model 'nosuch' (known: gnmt, maskrcnn, minigo, resnet, ssd, transformer)"},
                        Case{"model resnet --slice tpu-v3-7", "--slice tpu-v3-7"},
                        Case{"model resnet --slice tpu-v3-8", "--preset google-v0.6"},
                        Case{"model resnet --preset mine", "--preset mine"},
                        Case{"model resnet --set colour=blue", "unknown key 'colour'"},
                        Case{"model resnet --set cores_per_replica=3", "--set cores_per_replica=3"},
                        Case{"model resnet --set bn_group=3", "bn_group 3"},
                        Case{"model resnet --set allreduce=butterfly", "allreduce 'butterfly'"},
                        Case{"model resnet --system /nonexistent.yaml", "/nonexistent.yaml"}}) {
    int rc = 0;
    std::string out = Podbench(c.args, &rc);
    EXPECT_EQ(rc, 2) << c.args << ": " << out;
    EXPECT_THAT(out, HasSubstr(c.says)) << c.args;
  }
}

// One preset, one step, through the two commands users type: what `podbench
// model M --slice S --preset google-v0.6` prices is what `podbench run M
// --mode projected` with the same preset prices, for every model with a
// projected workload and every slice its preset covers. The run's stored
// breakdown is its steps times the step in every category; its input also
// holds the first epoch's start-up, so the model's input times the steps is
// at most the run's.
TEST(ModelCliTest, ModelAndProjectedRunPriceTheSameStepOnEveryPresetSlice) {
  TempDir dir;
  const std::string db = (dir / "m.db").string();
  const std::vector<std::pair<const char*, const char*>> fields = {
      {"gradients", "collectives_s"}, {"halo", "halo_s"}, {"bn_sync", "bn_sync_s"}, {"optimizer", "optimizer_s"},
      {"idle", "idle_s"},             {"mxu", "mxu_s"},   {"vector", "vector_s"},   {"hbm", "hbm_s"}};
  int checked = 0, id = 0;
  for (const char* model : {"gnmt", "maskrcnn", "resnet", "ssd", "transformer"}) {
    for (const char* slice : {"tpu-v3-32", "tpu-v3-128", "tpu-v3-256", "tpu-v3-512", "tpu-v3-1024", "tpu-v3-2048"}) {
      if (std::string(model) == "gnmt" && std::string(slice) == "tpu-v3-2048") continue;  // Google ran 32-1024
      if (std::string(model) == "maskrcnn" && std::set<std::string>{"tpu-v3-512", "tpu-v3-1024", "tpu-v3-2048"}.count(slice)) {
        continue;  // Google ran 32-256
      }
      SCOPED_TRACE(std::string(model) + " " + slice);
      const nlohmann::json m = ModelJson(std::string(model) + " --slice " + slice + " --preset google-v0.6");
      ASSERT_TRUE(m.is_object());
      int rc = 0;
      const std::string run = Podbench(std::string("run ") + model + " --mode projected --slice " + slice +
                                           " --preset google-v0.6 --runs 1 --seed 1 --db " + db + " --format json",
                                       &rc);
      ASSERT_EQ(rc, 0) << run;
      ++id;
      const std::string shown = Podbench("show " + std::to_string(id) + " --db " + db + " --format json", &rc);
      ASSERT_EQ(rc, 0) << shown;
      const nlohmann::json b = nlohmann::json::parse(shown)["step_breakdown"];
      const double steps = b["steps"].get<double>();
      ASSERT_GT(steps, 0);
      for (const auto& [category, field] : fields) {
        const double per_step = m["train"]["categories"][category].get<double>();
        EXPECT_NEAR(b[field].get<double>(), per_step * steps, 1e-9 * std::max(1.0, per_step * steps)) << category;
      }
      EXPECT_GE(b["input_s"].get<double>() + 1e-9, m["train"]["categories"]["input"].get<double>() * steps);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 26);
}

}  // namespace
}  // namespace podbench::testing
