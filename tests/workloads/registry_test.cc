// The one registry: every model registers itself from its own folder, the
// zoo's graphs are well formed, every preset's layout validates on its
// slices, and `podbench model`'s step of a preset is the step a projected run
// of that preset prices (ModelRegistration::ZooStep against
// ModelProjectedRun), for every model and every slice its google-v0.6
// preset covers.
#include "workloads/registry.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projected_runs.h"

namespace podbench::workloads {
namespace {

// The slices podbench knows (tpu-v3-N, N cores).
constexpr int64_t kSliceCores[] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048};

SliceInfo Slice(int64_t cores) {
  auto s = topology::Slice::FromName("tpu-v3-" + std::to_string(cores), topology::DefaultSystem());
  return s.ok() ? SliceInfo{s->name(), s->num_cores(), s->num_chips()} : SliceInfo{"tpu-v3-" + std::to_string(cores), cores, cores / 2};
}

TEST(RegistryTest, HoldsTheV06BenchmarksSortedByName) {
  std::vector<std::string> names;
  for (const ModelRegistration* m : AllModels()) names.push_back(m->name());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* name : {"gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"}) {
    const ModelRegistration* m = FindModel(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->name(), name);
    EXPECT_TRUE(m->in_zoo()) << name;
    EXPECT_FALSE(m->zoo_description().empty()) << name;
    EXPECT_FALSE(m->zoo_source().empty()) << name;
    EXPECT_FALSE(m->presets().empty()) << name;
  }
  // The workloads are the models with a plugin; the toy is one, outside the zoo.
  for (const char* name : {"gnmt", "minigo", "resnet", "ssd", "transformer", "toy"}) EXPECT_NE(FindWorkload(name), nullptr) << name;
  for (const char* name : {"maskrcnn"}) EXPECT_EQ(FindWorkload(name), nullptr) << name;
  EXPECT_FALSE(FindModel("toy")->in_zoo());
  EXPECT_EQ(FindModel("bert"), nullptr);
  const auto zoo = ZooModels();
  EXPECT_EQ(zoo.size(), 6u);
}

void CheckOps(const projection::ModelGraph& g, const std::vector<projection::Op>& ops, const char* list,
              std::set<std::string>* used) {
  std::set<std::string> names;
  for (const projection::Op& op : ops) {
    SCOPED_TRACE(std::string(list) + " op " + op.name);
    EXPECT_FALSE(op.name.empty());
    EXPECT_TRUE(names.insert(op.name).second) << "duplicate op name";
    EXPECT_GE(op.instances, 1);
    EXPECT_GE(op.sequential_steps, 1);
    EXPECT_GE(op.pinned_core, 0);
    const double macs = projection::OpMacs(op);
    EXPECT_TRUE(std::isfinite(macs) && macs >= 0);
    for (const std::string& p : op.params) {
      EXPECT_GE(g.FindParam(p), 0) << "undeclared parameter " << p;
      used->insert(p);
    }
  }
}

TEST(RegistryTest, EveryZooGraphIsWellFormed) {
  for (const ModelRegistration* m : ZooModels()) {
    SCOPED_TRACE(m->name());
    // The first preset on the first slice it has values for.
    Result<projection::StepSpec> spec = Status::NotFound("no slice");
    for (int64_t cores : kSliceCores) {
      spec = m->ZooStep(m->presets().front(), Slice(cores));
      if (spec.ok()) break;
    }
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    const projection::ModelGraph& g = spec->graph;
    EXPECT_EQ(g.name, m->name());
    EXPECT_FALSE(g.description.empty());
    EXPECT_FALSE(g.example_unit.empty());
    ASSERT_FALSE(g.train.empty());
    ASSERT_FALSE(g.eval.empty());
    EXPECT_GT(g.ForwardMacs(), 0);
    EXPECT_GT(g.EvalMacs(), 0);
    EXPECT_GT(g.TrainableParams(), 0);
    std::set<std::string> declared;
    for (const projection::Param& p : g.params) {
      EXPECT_TRUE(declared.insert(p.name).second) << "parameter declared twice: " << p.name;
      EXPECT_GT(p.elements(), 0) << p.name;
    }
    std::set<std::string> used;
    CheckOps(g, g.train, "train", &used);
    CheckOps(g, g.eval, "eval", &used);
    EXPECT_EQ(used, declared) << "every declared parameter is read by some op";
  }
}

TEST(RegistryTest, EveryPresetValidatesOnItsSlicesAndRefusesOthers) {
  for (const ModelRegistration* m : ZooModels()) {
    SCOPED_TRACE(m->name());
    for (const std::string& preset : m->presets()) {
      if (preset == "functional") continue;  // a functional run's sizes, not a full-size layout
      int slices = 0;
      for (int64_t cores : kSliceCores) {
        Result<projection::StepSpec> s = m->ZooStep(preset, Slice(cores));
        if (!s.ok()) {
          EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument) << preset << " " << cores << ": "
                                                                         << s.status().ToString();
          continue;
        }
        ++slices;
        // Laid out for the slice, or for the sub-slice its step runs on (MiniGo's training cores).
        const int64_t step_cores = s->slice.empty() ? cores : std::stoll(s->slice.substr(s->slice.rfind('-') + 1));
        EXPECT_LE(step_cores, cores);
        EXPECT_TRUE(s->config.layout.Validate(step_cores).ok()) << preset << " " << cores << ": "
                                                                 << s->config.layout.Validate(step_cores).ToString();
        EXPECT_GE(s->config.per_replica_batch, 1);
        EXPECT_GE(s->config.eval_per_replica_batch, 1);
      }
      EXPECT_GT(slices, 0) << preset << " has values for no slice";
    }
    EXPECT_EQ(m->ZooStep("no-such-preset", Slice(32)).status().code(), Status::Code::kNotFound);
  }
}

// One preset, one step: what `podbench model M --preset google-v0.6` prices
// is what `podbench run M --mode projected --preset google-v0.6` prices, on
// every slice the preset covers, category by category.
TEST(RegistryTest, ModelAndProjectedRunPriceTheSameStepOnEveryPresetSlice) {
  const topology::SystemSpec& system = topology::DefaultSystem();
  int checked = 0;
  for (const ModelRegistration* m : ZooModels()) {
    if (!m->Supports(Mode::kProjected)) continue;
    for (int64_t cores : kSliceCores) {
      const SliceInfo slice = Slice(cores);
      Result<projection::StepSpec> zoo = m->ZooStep("google-v0.6", slice);
      Result<ProjectedRunModel> run = ModelProjectedRun(m->name(), "google-v0.6", slice.name, system);
      ASSERT_EQ(zoo.ok(), run.ok()) << m->name() << " " << slice.name << ": the zoo says "
                                    << zoo.status().ToString() << ", the run " << run.status().ToString();
      if (!zoo.ok()) continue;
      SCOPED_TRACE(m->name() + " " + slice.name);
      auto t = topology::Slice::FromName(slice.name, system);
      ASSERT_TRUE(t.ok());
      auto zoo_step = projection::TrainMixStep(*zoo, *t);  // GNMT's length buckets
      ASSERT_TRUE(zoo_step.ok()) << zoo_step.status().ToString();
      for (projection::Category c : projection::AllCategories()) {
        EXPECT_EQ(zoo_step->time[c], run->pricing.step.time[c]) << projection::CategoryName(c);
      }
      EXPECT_EQ(zoo_step->global_examples, run->pricing.step.global_examples);
      EXPECT_EQ(zoo->graph.TotalParams(), run->step.graph.TotalParams());
      EXPECT_EQ(zoo->graph.train.size(), run->step.graph.train.size());
      ++checked;
    }
  }
  EXPECT_EQ(checked, 23) << "ResNet, SSD and the Transformer each have six google-v0.6 slices, GNMT five";
}

}  // namespace
}  // namespace podbench::workloads
