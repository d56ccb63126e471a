// Every model of the zoo: its graph builds and is well formed (unique op
// names, only declared parameters, each declared once and used), and every
// preset it names yields layouts that pass ParallelLayout::Validate on their
// slice.
#include "workloads/model_zoo.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace podbench::workloads {
namespace {

// The slices podbench knows (tpu-v3-N, N cores).
constexpr int64_t kSliceCores[] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048};

TEST(ModelZooTest, HoldsTheV06BenchmarksSortedByName) {
  std::vector<std::string> names;
  for (const ModelEntry& m : AllModels()) names.push_back(m.name);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* name : {"gnmt", "maskrcnn", "minigo", "ssd", "transformer"}) {
    const ModelEntry* m = FindModel(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->name, name);
    EXPECT_FALSE(m->summary.empty()) << name;
    EXPECT_FALSE(m->source.empty()) << name;
  }
  EXPECT_EQ(FindModel("bert"), nullptr);
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

TEST(ModelZooTest, EveryGraphIsWellFormed) {
  for (const ModelEntry& m : AllModels()) {
    SCOPED_TRACE(m.name);
    ASSERT_NE(m.graph, nullptr);
    const projection::ModelGraph g = m.graph();
    EXPECT_EQ(g.name, m.name);
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
    // The graph is deterministic.
    const projection::ModelGraph again = m.graph();
    EXPECT_EQ(again.TotalParams(), g.TotalParams());
    EXPECT_EQ(again.ForwardMacs(), g.ForwardMacs());
    EXPECT_EQ(again.train.size(), g.train.size());
  }
}

TEST(ModelZooTest, EveryPresetValidatesOnItsSlices) {
  for (const ModelEntry& m : AllModels()) {
    SCOPED_TRACE(m.name);
    ASSERT_NE(m.preset, nullptr);
    ASSERT_FALSE(m.presets.empty());
    for (const std::string& preset : m.presets) {
      int slices = 0;
      for (int64_t cores : kSliceCores) {
        const std::string slice = "tpu-v3-" + std::to_string(cores);
        Result<projection::StepConfig> c = m.preset(preset, slice, cores);
        if (!c.ok()) {
          EXPECT_EQ(c.status().code(), Status::Code::kInvalidArgument) << preset << " " << slice;
          continue;
        }
        ++slices;
        EXPECT_TRUE(c->layout.Validate(cores).ok()) << preset << " " << slice << ": "
                                                    << c->layout.Validate(cores).ToString();
        EXPECT_GE(c->per_replica_batch, 1) << preset << " " << slice;
        EXPECT_GE(c->eval_per_replica_batch, 1) << preset << " " << slice;
      }
      EXPECT_GT(slices, 0) << preset << " has values for no slice";
    }
    EXPECT_EQ(m.preset("no-such-preset", "tpu-v3-32", 32).status().code(), Status::Code::kNotFound);
  }
}

}  // namespace
}  // namespace podbench::workloads
