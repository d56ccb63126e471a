// Projected ResNet-50 through the shared projection layer and composition:
// the fidelity against Google's v0.6 block times and scores, the first
// epoch's extra, and the ablations of the seed papers' techniques.
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/cost/tpu_cost.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projection/host.h"
#include "workloads/projection/projection.h"
#include "workloads/resnet/google_v06.h"
#include "workloads/projected_runs.h"
#include "workloads/resnet/resnet_graph.h"

namespace podbench::resnet {
namespace {

using projection::Category;
using projection::ProjectionOptions;
using projection::StepConfig;
using projection::StepProjection;

const std::vector<Layer>& Net() {
  static const std::vector<Layer> layers = BuildResNet(ResNetConfig::ResNet50());
  return layers;
}

const projection::ModelGraph& Graph() {
  static const projection::ModelGraph g = ResNet50Graph();
  return g;
}

// One replica a core on `slice_name`, LARS, the 2-D torus, local BN.
StepConfig Config(const std::string& slice_name, int64_t per_core) {
  auto slice = topology::Slice::FromName(slice_name, topology::DefaultSystem());
  EXPECT_TRUE(slice.ok());
  StepConfig c;
  c.layout.replicas = slice->num_cores();
  c.optimizer = projection::OptimizerKind::kLars;
  c.per_replica_batch = per_core;
  c.eval_per_replica_batch = per_core;
  return c;
}

StepProjection Step(const std::string& slice_name, const StepConfig& config, const ProjectionOptions& opt = {},
                    const topology::SystemSpec& sys = topology::DefaultSystem()) {
  auto slice = topology::Slice::FromName(slice_name, sys);
  EXPECT_TRUE(slice.ok());
  auto step = projection::ProjectTrainStep(Graph(), config, *slice, opt);
  EXPECT_TRUE(step.ok()) << step.status().ToString();
  return step.ok() ? *step : StepProjection{};
}

TEST(ResNetProjectionTest, FirstEpochExtraIsStartupPlusCacheFillBeyondTheDevice) {
  topology::SystemSpec sys = topology::DefaultSystem();
  sys.host.startup_s = 2;
  sys.host.startup_s_per_host = 0;
  sys.host.cache_fill_bytes_per_s = 1000;
  auto slice = topology::Slice::FromName("tpu-v3-32", sys);  // 16 chips, 4 hosts
  ASSERT_TRUE(slice.ok());
  ASSERT_EQ(slice->num_hosts(), 4);
  projection::HostWork work;
  work.infeed_bytes = 1;  // one byte an example: the fill rate is 1,000 examples/s
  StepConfig plain, cached;
  cached.cache_decoded_examples = true;
  // Without a decoded-example cache only the start-up is extra.
  EXPECT_DOUBLE_EQ(projection::FirstEpochExtraS(work, plain, 0.1, 10, 4000, *slice), 2);
  // With it: 1,000 examples a host at 1,000/s = 1 s, the device's 10 steps
  // take 1 s: nothing beyond the start-up; at 20,000 examples, 5 s - 1 s.
  EXPECT_DOUBLE_EQ(projection::FirstEpochExtraS(work, cached, 0.1, 10, 4000, *slice), 2);
  EXPECT_DOUBLE_EQ(projection::FirstEpochExtraS(work, cached, 0.1, 10, 20000, *slice), 2 + 4);
  // Shards round up: 4,001 examples give one host 1,001.
  EXPECT_NEAR(projection::FirstEpochExtraS(work, cached, 0.1, 1, 4001, *slice), 2 + 1.001 - 0.1, 1e-12);
  // The start-up grows with the slice's hosts.
  sys.host.startup_s_per_host = 0.5;
  EXPECT_DOUBLE_EQ(projection::FirstEpochExtraS(work, plain, 0.1, 10, 4000, *slice), 2 + 0.5 * 4);
  // The fill decodes stored bytes where the model states them.
  sys.host.startup_s_per_host = 0;
  work.decode_bytes = 2;
  EXPECT_DOUBLE_EQ(projection::FirstEpochExtraS(work, cached, 0.1, 10, 20000, *slice), 2 + 10 - 1);
  // GNMT's runner feeds the whole batch from 2 hosts taking turns: a step's
  // 4096 examples come through one host and one chip, every other step.
  sys.host.input_bytes_per_s = 1000;
  sys.host.pcie_bandwidth_bytes_per_s_per_chip = 1e9;
  auto fed = topology::Slice::FromName("tpu-v3-32", sys);
  ASSERT_TRUE(fed.ok());
  projection::HostWork two;
  two.infeed_bytes = 1;
  EXPECT_DOUBLE_EQ(projection::HostInputSeconds(two, 4096, *fed), 1.024);  // 1,024 a host of 4
  two.infeed_hosts = 2;
  EXPECT_DOUBLE_EQ(projection::HostInputSeconds(two, 4096, *fed), 2.048);  // 2,048 a host of 2
  sys.host.input_bytes_per_s = 1e12;
  sys.host.pcie_bandwidth_bytes_per_s_per_chip = 1000;
  auto slow_pcie = topology::Slice::FromName("tpu-v3-32", sys);
  ASSERT_TRUE(slow_pcie.ok());
  two.infeed_hosts = 0;
  EXPECT_DOUBLE_EQ(projection::HostInputSeconds(two, 4096, *slow_pcie), 0.256);  // 256 a chip of 16
  two.infeed_hosts = 2;
  EXPECT_DOUBLE_EQ(projection::HostInputSeconds(two, 4096, *slow_pcie), 2.048);  // all through one chip
  // A functional-size image is priced at its own bytes: 32x32 is 1/49 of 224x224.
  ResNetConfig small;
  small.image_size = 32;
  EXPECT_DOUBLE_EQ(ResNetGraph(small).host.infeed_bytes, 32.0 * 32 * 3 * 2 + 4);
  EXPECT_DOUBLE_EQ(ResNetGraph(small).host.decode_bytes, 107500.0 / 49);
}

// Every slice's block (the median gap between evaluations) and score (the
// olympic mean over the published convergence) within 15% of Google's
// published figures, through the composition every projected run uses.
TEST(ResNetFidelityTest, EveryBlockAndScoreWithin15PercentOfPublished) {
  for (const auto& c : GoogleV06Configs()) {
    auto run = workloads::ModelProjectedRun("resnet", "google-v0.6", c.slice, topology::DefaultSystem());
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    auto p = workloads::PredictRow(*run);
    ASSERT_TRUE(p.ok());
    EXPECT_LT(std::fabs(p->median_gap_s / c.published_block_s - 1), 0.15) << c.slice << ": " << p->median_gap_s
                                                                         << " s vs " << c.published_block_s;
    EXPECT_LT(std::fabs(p->score_s / 60 / c.published_score_min - 1), 0.15) << c.slice;
    // The run pays its last top-1 scoring (50,000 argmaxes over 1,000 logits on host 0).
    EXPECT_NEAR(p->split.tail_s, 50000.0 * 1000 / topology::DefaultSystem().host.scoring_ops_per_s, 1e-9);
  }
}

// The first block of a run carries the first epoch's extra: at tpu-v3-32
// (decoded-image cache) the start-up and the fill, at tpu-v3-2048 the
// start-up alone.
TEST(ResNetProjectionTest, FirstBlocksCarryTheStartupAndTheCacheFill) {
  const topology::SystemSpec& sys = topology::DefaultSystem();
  auto small = workloads::ModelProjectedRun("resnet", "google-v0.6", "tpu-v3-32", sys);
  auto large = workloads::ModelProjectedRun("resnet", "google-v0.6", "tpu-v3-2048", sys);
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_TRUE(small->step.config.cache_decoded_examples);
  EXPECT_FALSE(large->step.config.cache_decoded_examples);
  const double startup_2048 = sys.host.startup_s + sys.host.startup_s_per_host * 256;
  EXPECT_NEAR(large->pricing.first_epoch_extra_s, startup_2048, 1e-9);
  EXPECT_GT(small->pricing.first_epoch_extra_s, sys.host.startup_s + 30);
  // Within 15% of the published first-block extras (68.12 s and 5.33 s).
  EXPECT_NEAR(small->pricing.first_epoch_extra_s, 68.12, 0.15 * 68.12);
  EXPECT_NEAR(large->pricing.first_epoch_extra_s, 5.33, 0.15 * 5.33);
}

TEST(ResNetAblationTest, TwoDimensionalGradientSummationBeatsTheRing) {
  StepConfig two_d = Config("tpu-v3-2048", 16), ring = two_d;
  ring.layout.allreduce = "ring";
  StepProjection a = Step("tpu-v3-2048", two_d);
  StepProjection b = Step("tpu-v3-2048", ring);
  EXPECT_LT(a.time[Category::kGradients], b.time[Category::kGradients]);
  EXPECT_EQ(a.time.compute_s(), b.time.compute_s());
  // On the full pod the 2-D torus saves well over a third of the ring's time.
  EXPECT_GT(b.time[Category::kGradients] / a.time[Category::kGradients], 1.5);
}

TEST(ResNetAblationTest, DistributedBatchNormCostsSyncOnlyWithGroups) {
  StepConfig local = Config("tpu-v3-2048", 16), grouped = local;
  grouped.layout.bn_group = 8;
  EXPECT_EQ(Step("tpu-v3-2048", local).time[Category::kBnSync], 0);
  StepProjection g = Step("tpu-v3-2048", grouped);
  EXPECT_GT(g.time[Category::kBnSync], 0);
  // 53 BN layers, three latency-bound all-reduces each: well under the compute.
  EXPECT_LT(g.time[Category::kBnSync], 0.2 * g.time.compute_s());
  grouped.layout.bn_group = 3;  // does not divide 2048 replicas into chip rectangles
  auto slice = topology::Slice::FromName("tpu-v3-2048", topology::DefaultSystem());
  EXPECT_FALSE(projection::ProjectTrainStep(Graph(), grouped, *slice).ok());
}

TEST(ResNetAblationTest, WeightUpdateShardingSplitsTheOptimizer) {
  StepConfig plain = Config("tpu-v3-2048", 16), sharded = plain;
  sharded.layout.weight_update_sharding = true;
  StepProjection a = Step("tpu-v3-2048", plain);
  StepProjection b = Step("tpu-v3-2048", sharded);
  // 1/2048 of the parameters each: what is left is mostly the per-op overhead.
  EXPECT_LT(b.time[Category::kOptimizer], a.time[Category::kOptimizer] / 20);
  // The 2-D reduce-scatter and all-gather move what the 2-D all-reduce
  // moves (plus two on-chip shard copies); the layer norms add one small,
  // latency-bound all-reduce. The step still gets faster.
  EXPECT_GT(b.time[Category::kGradients], a.time[Category::kGradients]);
  EXPECT_LT(b.time[Category::kGradients], a.time[Category::kGradients] * 1.1);
  EXPECT_LT(b.step_s(), a.step_s());
  // With the 1-D ring the sharded pair is the 1-D one.
  plain.layout.allreduce = sharded.layout.allreduce = "ring";
  StepProjection c = Step("tpu-v3-2048", plain);
  StepProjection d = Step("tpu-v3-2048", sharded);
  EXPECT_GT(d.time[Category::kGradients], c.time[Category::kGradients]);
  EXPECT_LT(d.time[Category::kGradients], c.time[Category::kGradients] * 1.5);
  EXPECT_GT(d.time[Category::kGradients], b.time[Category::kGradients] * 1.5);
}

TEST(ResNetProjectionTest, FusionRemovesElementwiseHbmTraffic) {
  ProjectionOptions unfused;
  unfused.fuse_elementwise = false;
  const StepConfig c = Config("tpu-v3-32", 128);
  EXPECT_LT(Step("tpu-v3-32", c).time.compute_s(), Step("tpu-v3-32", c, unfused).time.compute_s());
}

TEST(ResNetProjectionTest, StepGrowsWithPerCoreBatchAndInputCanBind) {
  StepProjection s16 = Step("tpu-v3-2048", Config("tpu-v3-2048", 16));
  StepProjection s128 = Step("tpu-v3-2048", Config("tpu-v3-2048", 128));
  EXPECT_GT(s128.time.compute_s(), 6 * s16.time.compute_s());
  EXPECT_EQ(s16.time[Category::kInput], 0);
  topology::SystemSpec slow_hosts = topology::DefaultSystem();
  slow_hosts.host.input_bytes_per_s = 1000 * Graph().host.infeed_bytes;  // 1,000 images/s
  StepProjection st = Step("tpu-v3-32", Config("tpu-v3-32", 128), {}, slow_hosts);
  // 1,024 images a host at 1,000 images/s: the host needs 1.024 s a step.
  EXPECT_NEAR(st.step_s(), 1.024, 1e-9);
  EXPECT_NEAR(st.time[Category::kInput], 1.024 - st.time.device_s(), 1e-9);
}

TEST(ResNetProjectionTest, OpTableCoversEveryLayer) {
  StepProjection st = Step("tpu-v3-2048", Config("tpu-v3-2048", 16));
  ASSERT_EQ(st.ops.size(), Net().size());
  EXPECT_EQ(st.ops.front().name, "stem.conv");
  EXPECT_GT(st.ops.front().backward_s, 0);
  int64_t params = 0;
  for (const auto& r : st.ops) {
    EXPECT_GE(r.forward_s, 0) << r.name;
    EXPECT_GT(r.mxu_utilisation, 0) << r.name;
    params += r.params;
  }
  EXPECT_EQ(params, 25557032);
  EXPECT_EQ(Graph().TotalParams(), 25557032);
  EXPECT_NEAR(Graph().ForwardMacs(), 4.09e9, 0.01e9);
}

// One row per convolution of `rows` (the op table at `batch`), then totals:
// the table docs/kernels.md quotes.
std::string ConvTable(const std::vector<projection::OpRow>& rows, int64_t batch, const kernels::CoreSpec& core) {
  std::string t = fmt::format(
      "ResNet-50 v1.5 convolutions, batch {} per core, TPU-v3 core ({:.1f} TFLOP/s bf16, {:.0f} GB/s HBM)\n",
      batch, core.mxu_peak_flops() / 1e12, core.hbm_bandwidth / 1e9);
  t += fmt::format("{:<28} {:>9} {:>5} {:>5} {:>3} {:>8} {:>6} {:>6} {:>9} {:>9} {:>9}\n", "layer", "in", "c",
                   "oc", "k/s", "GFLOP", "util", "bound", "fwd us", "bwd us", "total us");
  double gflop = 0, fwd = 0, bwd = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (Net()[i].kind != LayerKind::kConv) continue;
    const kernels::Conv2dShape s = ConvShapeOf(Net()[i], batch);
    const projection::OpRow& r = rows[i];
    t += fmt::format("{:<28} {:>9} {:>5} {:>5} {:>1}/{:<1} {:>8.2f} {:>5.0f}% {:>6} {:>9.1f} {:>9.1f} {:>9.1f}\n",
                     r.name, fmt::format("{}x{}", s.h, s.w), s.c, s.oc, s.kh, s.stride,
                     kernels::Conv2dFlops(s) / 1e9, 100 * r.mxu_utilisation, r.bound, r.forward_s * 1e6,
                     r.backward_s * 1e6, (r.forward_s + r.backward_s) * 1e6);
    gflop += kernels::Conv2dFlops(s) / 1e9;
    fwd += r.forward_s;
    bwd += r.backward_s;
  }
  t += fmt::format("{:<28} {:>9} {:>5} {:>5} {:>3} {:>8.2f} {:>6} {:>6} {:>9.1f} {:>9.1f} {:>9.1f}\n", "total", "",
                   "", "", "", gflop, "", "", fwd * 1e6, bwd * 1e6, (fwd + bwd) * 1e6);
  return t;
}

// ResNet-50's convolutions as the kernels see them (ConvShapeOf) and as the
// projection layer prices them (its op table), with the default CoreSpec.
TEST(ResNetProjectionTest, ConvolutionsOfResNet50) {
  std::vector<size_t> convs;
  for (size_t i = 0; i < Net().size(); ++i) {
    if (Net()[i].kind == LayerKind::kConv) convs.push_back(i);
  }
  ASSERT_EQ(convs.size(), 53u);  // stem + 16 bottlenecks x 3 + 4 projections
  const Layer& first = Net()[convs.front()];
  const Layer& last = Net()[convs.back()];
  EXPECT_EQ(first.name, "stem.conv");
  EXPECT_EQ(ConvShapeOf(first, 1).OutH(), 112);
  EXPECT_EQ(last.name, "stage4.block2.conv3");
  EXPECT_EQ(ConvShapeOf(last, 1).h, 7);
  EXPECT_EQ(ConvShapeOf(last, 1).oc, 2048);
  double flops = 0;
  for (size_t i : convs) flops += kernels::Conv2dFlops(ConvShapeOf(Net()[i], 1));
  // About 4.1 G multiply-adds per 224 x 224 image, nearly all in convolutions.
  EXPECT_GT(flops, 7.6e9);
  EXPECT_LT(flops, 8.4e9);

  topology::SystemSpec sys = topology::DefaultSystem();
  sys.core = kernels::CoreSpec{};
  const kernels::CoreSpec& core = sys.core;
  const auto rows = Step("tpu-v3-32", Config("tpu-v3-32", 32), {}, sys).ops;
  ASSERT_EQ(rows.size(), Net().size());
  EXPECT_NEAR(rows[convs[0]].mxu_utilisation, 147.0 * 64 / (256 * 128), 1e-12);  // 7x7x3 folded
  auto filter_only_s = [&](size_t i) {
    return kernels::Conv2dBackwardFilterCost(core, ConvShapeOf(Net()[i], 32)).total_s();
  };
  // The input images need no gradient: the stem's backward is its filter gradient alone.
  EXPECT_DOUBLE_EQ(rows[convs[0]].backward_s, filter_only_s(convs[0]));
  EXPECT_GT(rows[convs[1]].backward_s, filter_only_s(convs[1]));
  std::cout << ConvTable(rows, 32, core);
}

}  // namespace
}  // namespace podbench::resnet
