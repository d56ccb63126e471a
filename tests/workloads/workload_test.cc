// The workload contract: hyperparameter resolution against closed-division
// constraints, evaluation cadences, the description's own checks (eval
// logging, parallel layout against the slice), the static registry, and the
// layouts the built-in workloads describe.
#include "workloads/registry.h"
#include "workloads/workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace podbench::workloads {
namespace {

using ::testing::HasSubstr;

std::vector<HyperparameterSpec> Specs() {
  std::vector<HyperparameterSpec> s(4);
  s[0].name = "global_batch_size";
  s[0].default_value = int64_t{32};
  s[0].min = 1;
  s[1].name = "opt_base_learning_rate";
  s[1].default_value = 0.1;
  s[1].min = 1e-6;
  s[1].max = 10;
  s[2].name = "opt_name";
  s[2].default_value = std::string("lars");
  s[2].tunable = false;
  s[2].rule = "v0.6 allows LARS only as one package";
  s[3].name = "opt_kind";
  s[3].default_value = std::string("adam");
  s[3].choices = {"adam", "lazy_adam"};
  return s;
}

TEST(HyperparametersTest, DefaultsThenPresetThenOverrides) {
  auto hp = ResolveHyperparameters(Specs(), {{"global_batch_size", int64_t{64}}},
                                   {"opt_base_learning_rate=2.5", "opt_kind=lazy_adam"}, "w");
  ASSERT_TRUE(hp.ok()) << hp.status().ToString();
  EXPECT_EQ(hp->Int("global_batch_size"), 64);
  EXPECT_EQ(hp->Float("opt_base_learning_rate"), 2.5);
  EXPECT_EQ(hp->String("opt_name"), "lars");
  EXPECT_EQ(hp->String("opt_kind"), "lazy_adam");
  EXPECT_EQ(hp->Float("global_batch_size"), 64.0);
}

TEST(HyperparametersTest, RefusesBadValuesWithTheFlagInTheMessage) {
  struct Case {
    const char* set;
    const char* message;
  } cases[] = {
      {"global_batch_size=0", "--set global_batch_size=0: global_batch_size must be >= 1, got 0"},
      {"global_batch_size=1.5", "global_batch_size must be an integer, got '1.5'"},
      {"opt_base_learning_rate=11", "must be <= 10, got 11"},
      {"opt_base_learning_rate=nan", "must be a number"},
      {"opt_name=sgd", "opt_name is fixed to lars in the v0.6 closed division (v0.6 allows LARS"},
      {"opt_kind=sgd", "must be one of adam, lazy_adam, got 'sgd'"},
      {"momentum=0.9", "w has no hyperparameter 'momentum' (known: global_batch_size,"},
      {"global_batch_size", "expected key=value"},
  };
  for (const Case& c : cases) {
    auto hp = ResolveHyperparameters(Specs(), {}, {c.set}, "w");
    ASSERT_FALSE(hp.ok()) << c.set;
    EXPECT_EQ(hp.status().code(), Status::Code::kInvalidArgument) << c.set;
    EXPECT_THAT(hp.status().message(), HasSubstr(c.message)) << c.set;
  }
}

TEST(EvalCadenceTest, EveryNEpochsWithAnOffset) {
  EvalCadence c;
  c.every = 4;
  c.first = 4;
  c.max_epochs = 17;
  EXPECT_EQ(c.EvalEpochs(), (std::vector<int64_t>{4, 8, 12, 16}));
}

TEST(EvalCadenceTest, FixedEpochsAsSsdEvaluates) {
  EvalCadence c;
  c.at_epochs = {49, 33, 44, 60, 55, 65};
  c.max_epochs = 60;
  EXPECT_EQ(c.EvalEpochs(), (std::vector<int64_t>{33, 44, 49, 55, 60}));
}

TEST(QualityTargetTest, BothDirections) {
  EXPECT_TRUE((QualityTarget{"top1", 0.759, true}).Reached(0.759));
  EXPECT_FALSE((QualityTarget{"top1", 0.759, true}).Reached(0.7589));
  EXPECT_TRUE((QualityTarget{"loss", 2.0, false}).Reached(1.9));
}

TEST(HyperparametersTest, AnUnknownNameListsTheKnownOnesWithTheirHelp) {
  std::vector<HyperparameterSpec> specs = Specs();
  specs[1].help = "peak learning rate";
  auto hp = ResolveHyperparameters(specs, {}, {"lr=1"}, "w");
  ASSERT_FALSE(hp.ok());
  EXPECT_THAT(hp.status().message(),
              HasSubstr("w has no hyperparameter 'lr' (known: global_batch_size, opt_base_learning_rate, "
                        "opt_name, opt_kind)\n  opt_base_learning_rate: peak learning rate"));
}

// A description that passes: Mask R-CNN's two targets logged as a list, 4
// replicas of 2 cores on an 8-core slice.
WorkloadDescription TwoTargets() {
  WorkloadDescription d;
  d.benchmark = "maskrcnn";
  d.global_batch = 8;
  d.targets = {{"box_map", 0.377, true}, {"mask_map", 0.339, true}};
  d.eval_logging.shape = EvalValueShape::kList;
  d.cadence.max_epochs = 3;
  d.parallelism.replicas = 4;
  d.parallelism.cores_per_replica = 2;
  d.parallelism.split = projection::SplitDim::kHeight;
  return d;
}

TEST(TimeBreakdownTest, PerStepIsTheInverseOfOfInEveryCategory) {
  projection::CategoryTimes step;
  double v = 1;
  for (projection::Category c : projection::AllCategories()) step[c] = v++;
  const TimeBreakdown t = TimeBreakdown::Of(step, 4);
  EXPECT_DOUBLE_EQ(t.collectives_s, 4 * step[projection::Category::kGradients]);
  EXPECT_DOUBLE_EQ(t.idle_s, 4 * step[projection::Category::kIdle]);
  EXPECT_DOUBLE_EQ(t.total_s(), 4 * step.total_s());
  const projection::CategoryTimes back = t.PerStep(4);
  for (projection::Category c : projection::AllCategories()) {
    EXPECT_DOUBLE_EQ(back[c], step[c]) << projection::CategoryName(c);
  }
}

TEST(DescriptionTest, ValidateNamesTheFieldThatDoesNotFit) {
  const SliceInfo slice{"tpu-v3-8", 8, 4};
  ASSERT_TRUE(TwoTargets().Validate(slice).ok()) << TwoTargets().Validate(slice).ToString();
  struct Case {
    const char* what;
    void (*edit)(WorkloadDescription&);
    const char* message;
  } cases[] = {
      {"scalar of two", [](WorkloadDescription& d) { d.eval_logging.shape = EvalValueShape::kScalar; },
       "eval_logging: a scalar eval_accuracy holds one target, not 2"},
      {"dict names", [](WorkloadDescription& d) {
         d.eval_logging = {EvalValueShape::kDict, "accuracy", {"BBOX", "BBOX"}};
       }, "eval_logging: two targets are logged as 'BBOX'"},
      {"name count", [](WorkloadDescription& d) {
         d.eval_logging = {EvalValueShape::kDict, "", {"BBOX"}};
       }, "eval_logging: 1 names for 2 targets"},
      {"dict key on a list", [](WorkloadDescription& d) { d.eval_logging.dict_key = "accuracy"; },
       "eval_logging: names and dict_key are for the dict shape only"},
      {"same metric", [](WorkloadDescription& d) { d.targets[1].metric = "box_map"; },
       "targets: metric 'box_map' twice"},
      {"no target", [](WorkloadDescription& d) { d.targets.clear(); }, "targets: no quality target"},
      {"no eval", [](WorkloadDescription& d) { d.cadence.at_epochs = {5}; },
       "no evaluation happens within max_epochs 3"},
      {"batch", [](WorkloadDescription& d) { d.global_batch = 0; }, "global_batch 0 must be >= 1"},
      {"cores", [](WorkloadDescription& d) { d.parallelism.replicas = 2; },
       "parallel layout: replicas 2 x cores_per_replica 2 must equal the slice's 8 cores"},
      {"split", [](WorkloadDescription& d) { d.parallelism.split = projection::SplitDim::kNone; },
       "split 'none' with 2 cores per replica"},
      {"bn group", [](WorkloadDescription& d) { d.parallelism.bn_group = 3; },
       "bn_group 3 does not divide the 4 replicas"},
  };
  for (const Case& c : cases) {
    WorkloadDescription d = TwoTargets();
    c.edit(d);
    Status st = d.Validate(slice);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << c.what;
    EXPECT_THAT(st.message(), HasSubstr(c.message)) << c.what;
  }
  // A dict may name the values or use the metric names, nested or not; one
  // target may be a scalar.
  WorkloadDescription dict = TwoTargets();
  dict.eval_logging = {EvalValueShape::kDict, "accuracy", {"BBOX", "SEGM"}};
  EXPECT_TRUE(dict.Validate(slice).ok());
  EXPECT_EQ(dict.eval_logging.NameOf(dict.targets, 1), "SEGM");
  dict.eval_logging = {EvalValueShape::kDict, "", {}};
  EXPECT_TRUE(dict.Validate(slice).ok());
  EXPECT_EQ(dict.eval_logging.NameOf(dict.targets, 1), "mask_map");
  WorkloadDescription one = TwoTargets();
  one.targets.pop_back();
  one.eval_logging.shape = EvalValueShape::kScalar;
  EXPECT_TRUE(one.Validate(slice).ok());
}

// ResNet describes the layout its hyperparameters ask for, on every slice of
// Google's v0.6 configuration, and each passes the harness's check.
TEST(DescriptionTest, ResNetLayoutFollowsItsHyperparameters) {
  auto resnet = FindWorkload("resnet")->Create();
  for (int64_t cores : {32, 128, 512, 2048}) {
    SliceInfo slice{"tpu-v3-" + std::to_string(cores), cores, cores / 2};
    auto preset = resnet->Preset("google-v0.6", slice);
    ASSERT_TRUE(preset.ok()) << preset.status().ToString();
    for (bool distributed_bn : {true, false}) {
      std::vector<std::string> sets = {"allreduce=ring", "weight_update_sharding=true",
                                       std::string("distributed_bn=") + (distributed_bn ? "true" : "false")};
      auto hp = ResolveHyperparameters(resnet->HyperparameterSpecs(), *preset, sets, "resnet");
      ASSERT_TRUE(hp.ok()) << hp.status().ToString();
      ASSERT_TRUE(resnet->Validate(*hp, slice, Mode::kProjected).ok());
      auto d = resnet->Describe(*hp, slice, Mode::kProjected);
      ASSERT_TRUE(d.ok());
      EXPECT_TRUE(d->Validate(slice).ok()) << slice.name << ": " << d->Validate(slice).ToString();
      const projection::ParallelLayout& l = d->parallelism;
      EXPECT_EQ(l.replicas, cores);
      EXPECT_EQ(l.cores_per_replica, 1);
      EXPECT_EQ(l.allreduce, "ring");
      EXPECT_TRUE(l.weight_update_sharding);
      const int64_t per_core = hp->Int("global_batch_size") / cores;
      EXPECT_EQ(l.bn_group, distributed_bn ? hp->Int("model_bn_span") / per_core : 1) << slice.name;
      if (cores == 2048 && distributed_bn) {
        EXPECT_EQ(l.bn_group, 8);  // Google: 8 replicas per BN group
      }
    }
  }
}

TEST(RegistryTest, ToyIsRegisteredThroughTheObjectLibrary) {
  const ModelRegistration* toy = FindWorkload("toy");
  ASSERT_NE(toy, nullptr);
  EXPECT_TRUE(toy->Supports(Mode::kFunctional));
  EXPECT_TRUE(toy->Supports(Mode::kProjected));
  EXPECT_EQ(toy->scored_runs(), 5);
  EXPECT_EQ(FindWorkload("no-such"), nullptr);
  auto w = toy->Create();
  auto hp = ResolveHyperparameters(w->HyperparameterSpecs(), {}, {}, "toy");
  ASSERT_TRUE(hp.ok());
  SliceInfo slice{"tpu-v3-128", 128, 64};
  Status st = w->Validate(*hp, slice, Mode::kFunctional);
  EXPECT_THAT(st.message(), HasSubstr("does not split evenly over the 128 cores of tpu-v3-128"));
}

// Describe is told the mode: the same hyperparameters describe the
// functional network on generated data or the full ResNet-50 on ImageNet,
// whatever was validated before (the plugin keeps no state between calls).
TEST(ContractTest, DescribeIsGivenTheModeAndSaysWhetherItIsMlperf) {
  auto resnet = FindWorkload("resnet")->Create();
  SliceInfo slice{"tpu-v3-8", 8, 4};
  auto preset = resnet->Preset("functional", slice);
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  auto hp = ResolveHyperparameters(resnet->HyperparameterSpecs(), *preset, {}, "resnet");
  ASSERT_TRUE(hp.ok()) << hp.status().ToString();
  ASSERT_TRUE(resnet->Validate(*hp, slice, Mode::kFunctional).ok());
  auto projected = resnet->Describe(*hp, slice, Mode::kProjected);
  auto functional = resnet->Describe(*hp, slice, Mode::kFunctional);
  ASSERT_TRUE(projected.ok() && functional.ok());
  EXPECT_EQ(projected->model.name, "resnet50_v1.5");
  EXPECT_EQ(projected->data.name, "imagenet");
  EXPECT_EQ(functional->model.name, "resnet_v1.5_functional");
  EXPECT_EQ(functional->data.name, "generated_gratings");
  EXPECT_EQ(functional->data.train_examples, 4096);
  EXPECT_LT(functional->model.parameters, projected->model.parameters / 100);
  EXPECT_TRUE(functional->mlperf_benchmark);
  EXPECT_TRUE(projected->mlperf_benchmark);

  auto toy = FindWorkload("toy")->Create();
  auto toy_hp = ResolveHyperparameters(toy->HyperparameterSpecs(), {}, {}, "toy");
  ASSERT_TRUE(toy_hp.ok());
  auto toy_d = toy->Describe(*toy_hp, slice, Mode::kFunctional);
  ASSERT_TRUE(toy_d.ok());
  EXPECT_FALSE(toy_d->mlperf_benchmark);
}

TEST(ToyTest, FunctionalTrainingReallyLearns) {
  auto w = FindWorkload("toy")->Create();
  RunContext ctx;
  ctx.slice = {"tpu-v3-8", 8, 4};
  ctx.system = std::shared_ptr<const topology::SystemSpec>(std::shared_ptr<void>(), &topology::DefaultSystem());
  ctx.seed = 3;
  ctx.hp = *ResolveHyperparameters(w->HyperparameterSpecs(), {}, {}, "toy");
  ctx.description = *w->Describe(ctx.hp, ctx.slice, ctx.mode);
  auto session = w->Start(ctx);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Initialize().ok());
  double before = (*(*session)->Evaluate(0)).metrics.at("accuracy");
  auto block = (*session)->TrainBlock(1, 5);
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->steps, 5 * 8192 / 64);
  EXPECT_GT(block->time.mxu_s, 0);
  double after = (*(*session)->Evaluate(5)).metrics.at("accuracy");
  EXPECT_GE(after, ctx.description.targets[0].target);
  EXPECT_GT(after, before);
}

}  // namespace
}  // namespace podbench::workloads
