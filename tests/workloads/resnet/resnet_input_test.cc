// Functional ResNet fed from the JPEG input pipeline (--set input=jpeg): the
// generated set is written once as an ImageNet-format tree, training steps
// take their global batches from the pipeline, evaluation reads the held-out
// tree, and a corrupt file stops training with its name.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "topology/system.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::workloads {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

Result<std::unique_ptr<Session>> JpegSession(const fs::path& cache) {
  const ModelRegistration* reg = FindWorkload("resnet");
  if (reg == nullptr) return Status::NotFound("resnet is not registered");
  auto w = reg->Create();
  RunContext ctx;
  ctx.slice = {"tpu-v3-8", 8, 4};
  ctx.system = std::shared_ptr<const topology::SystemSpec>(&topology::DefaultSystem(),
                                                           [](const topology::SystemSpec*) {});
  ctx.mode = Mode::kFunctional;
  ctx.seed = 5;
  PODBENCH_ASSIGN_OR_RETURN(auto preset, w->Preset("functional", ctx.slice));
  PODBENCH_ASSIGN_OR_RETURN(ctx.hp, ResolveHyperparameters(w->HyperparameterSpecs(), preset,
                                                           {"input=jpeg", "functional_data_dir=" + cache.string(),
                                                            "functional_train_examples=256",
                                                            "functional_eval_examples=64"},
                                                           "resnet"));
  PODBENCH_RETURN_IF_ERROR(w->Validate(ctx.hp, ctx.slice, ctx.mode));
  PODBENCH_ASSIGN_OR_RETURN(ctx.description, w->Describe(ctx.hp, ctx.slice, ctx.mode));
  return w->Start(ctx);
}

TEST(ResNetJpegInputTest, TrainsAFewStepsFromTheJpegTree) {
  podbench::testing::TempDir dir;
  auto session = JpegSession(dir.path());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto init = (*session)->Initialize();
  ASSERT_TRUE(init.ok()) << init.status().ToString();
  // One cached copy: 256 training and 64 held-out JPEGs in class folders.
  std::vector<fs::path> copies;
  for (const auto& e : fs::directory_iterator(dir.path())) copies.push_back(e.path());
  ASSERT_EQ(copies.size(), 1u);
  int train = 0, val = 0;
  for (const auto& e : fs::recursive_directory_iterator(copies[0] / "train")) train += e.path().extension() == ".JPEG";
  for (const auto& e : fs::recursive_directory_iterator(copies[0] / "val")) val += e.path().extension() == ".JPEG";
  EXPECT_EQ(train, 256);
  EXPECT_EQ(val, 64);
  // Two epochs of two global batches of 128, priced on the emulated clock.
  auto block = (*session)->TrainBlock(1, 2);
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  EXPECT_EQ(block->steps, 4);
  EXPECT_GT(block->time.total_s(), 0);
  auto ev = (*session)->Evaluate(2);
  ASSERT_TRUE(ev.ok()) << ev.status().ToString();
  const double top1 = ev->metrics.at("top1");
  EXPECT_GE(top1, 0.0);
  EXPECT_LE(top1, 1.0);
  // 64 held-out images: the accuracy is a whole number of them.
  EXPECT_DOUBLE_EQ(top1 * 64, std::round(top1 * 64));
}

TEST(ResNetJpegInputTest, ACorruptJpegStopsTrainingWithItsName) {
  podbench::testing::TempDir dir;
  {
    auto first = JpegSession(dir.path());
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    ASSERT_TRUE((*first)->Initialize().ok());
  }
  fs::path victim;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
    if (e.path().extension() == ".JPEG" && e.path().string().find("/train/") != std::string::npos) {
      victim = e.path();
      break;
    }
  }
  ASSERT_FALSE(victim.empty());
  { std::ofstream(victim, std::ios::trunc) << "not a jpeg"; }
  auto session = JpegSession(dir.path());  // reuses the cached (now damaged) tree
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Initialize().ok());
  auto block = (*session)->TrainBlock(1, 1);
  ASSERT_FALSE(block.ok());
  EXPECT_THAT(block.status().message(), HasSubstr(victim.filename().string()));
}

}  // namespace
}  // namespace podbench::workloads
