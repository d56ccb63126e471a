// The projection layer against hand computations (a matmul, a convolution,
// an LSTM step and attention through the layer; a spatially partitioned
// convolution's halo), weight-update sharding against the replicated update
// on a Transformer-sized parameter set (expectations from topology's own
// functions), the categories adding up, and bad layouts refused.
//
// Default CoreSpec where hand numbers are checked: MXU peak 2 x 128 x 128 x
// 2 x 940e6 = 61.60384 TFLOP/s, vector unit 962.56 Gop/s, HBM 450 GB/s, no
// efficiency loss and no op overhead.
#include "workloads/projection/projection.h"

#include <cmath>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernels/cost/tpu_cost.h"
#include "topology/collectives.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projection/host.h"
#include "workloads/projection/op_cost.h"
#include "workloads/projection/overrides.h"

namespace podbench::projection {
namespace {

using ::testing::HasSubstr;

constexpr double kMxuPeak = 61.60384e12, kVecPeak = 962.56e9, kHbm = 450e9;

// The built-in system with an ideal core (efficiency 1, no overhead), so
// that hand numbers are exact.
topology::SystemSpec IdealSystem() {
  topology::SystemSpec s = topology::DefaultSystem();
  s.core = kernels::CoreSpec{};
  return s;
}

Param P(std::string name, std::vector<int64_t> shape) {
  Param p;
  p.name = std::move(name);
  p.shape = std::move(shape);
  return p;
}

Op MakeOp(std::string name, OpAttrs attrs, std::vector<std::string> params = {}) {
  Op op;
  op.name = std::move(name);
  op.attrs = std::move(attrs);
  op.params = std::move(params);
  return op;
}

ConvAttrs Conv(int64_t h, int64_t c, int64_t oc, int64_t k, int64_t stride = 1) {
  ConvAttrs a;
  a.h = a.w = h;
  a.c = c;
  a.oc = oc;
  a.kh = a.kw = k;
  a.stride = stride;
  a.pad = (k - 1) / 2;
  return a;
}

StepConfig DataParallel(int64_t cores, int64_t batch) {
  StepConfig c;
  c.layout.replicas = cores;
  c.per_replica_batch = batch;
  c.eval_per_replica_batch = batch;
  return c;
}

// ---------------------------------------------------------------- hand-computed ops

TEST(ProjectionOpTest, MatMulByHand) {
  // [256 x 1024] x [1024 x 4096] per example, 2 examples: 512 rows.
  MatMulAttrs m;
  m.m = 256;
  m.k = 1024;
  m.n = 4096;
  const OpPasses c = PriceOp(MakeOp("ffn", m, {"w"}), 2, true, kernels::CoreSpec{}, true);
  EXPECT_DOUBLE_EQ(c.forward.flops, 2.0 * 512 * 1024 * 4096);
  EXPECT_DOUBLE_EQ(c.forward.padded_flops, 2.0 * 512 * 1024 * 4096);
  EXPECT_NEAR(c.forward.mxu_s, 4294967296.0 / kMxuPeak, 1e-15);
  EXPECT_NEAR(c.forward.hbm_s, 2.0 * (512 * 1024 + 1024 * 4096 + 512 * 4096) / kHbm, 1e-15);
  EXPECT_STREQ(c.forward.bound(), "mxu");
  // Backward: dX [512 x 4096] x [4096 x 1024] and dW [1024 x 512] x [512 x 4096].
  ASSERT_TRUE(c.has_backward);
  EXPECT_DOUBLE_EQ(c.backward.padded_flops, 2 * 4294967296.0);
  EXPECT_NEAR(c.backward.total_s(), 2 * 4294967296.0 / kMxuPeak, 1e-12);
  // No trainable weight and no input gradient: no backward pass.
  Op frozen = MakeOp("ffn", m);
  frozen.needs_input_grad = false;
  EXPECT_FALSE(PriceOp(frozen, 2, false, kernels::CoreSpec{}, true).has_backward);
}

TEST(ProjectionOpTest, ConvolutionByHand) {
  // 3x3, 28x28x128 -> 28x28x128, 2 images: 1,568 rows, contraction 9 x 128,
  // 128 outputs; every dimension fills the tiles.
  const OpPasses c = PriceOp(MakeOp("conv", Conv(28, 128, 128, 3), {"k"}), 2, true, kernels::CoreSpec{}, true);
  const double flops = 2.0 * 1568 * 1152 * 128;
  EXPECT_DOUBLE_EQ(c.forward.padded_flops, flops);
  EXPECT_NEAR(c.forward.mxu_s, flops / kMxuPeak, 1e-15);
  EXPECT_NEAR(c.forward.hbm_s, 2.0 * (1568 * 128 + 1152 * 128 + 1568 * 128) / kHbm, 1e-15);
  EXPECT_STREQ(c.forward.bound(), "mxu");
  // Backward: the input gradient is the same shape; the filter gradient
  // streams the 1,152 filter rows and contracts over the 1,568 positions,
  // padded to 1,664 (13 tiles).
  EXPECT_DOUBLE_EQ(c.backward.padded_flops, flops + 2.0 * 1152 * 1664 * 128);
  EXPECT_NEAR(c.backward.mxu_s, (flops + 2.0 * 1152 * 1664 * 128) / kMxuPeak, 1e-15);
}

TEST(ProjectionOpTest, LstmStepByHand) {
  // One step of a 1024-unit layer over 8 sequences: [8 x 2048] x [2048 x 4096].
  LstmAttrs l;
  l.steps = 1;
  l.input = 1024;
  l.hidden = 1024;
  const OpPasses c = PriceOp(MakeOp("lstm", l, {"w"}), 8, true, kernels::CoreSpec{}, true);
  EXPECT_DOUBLE_EQ(c.forward.padded_flops, 2.0 * 8 * 2048 * 4096);
  EXPECT_NEAR(c.forward.mxu_s, 2.0 * 8 * 2048 * 4096 / kMxuPeak, 1e-15);
  // Cell: bias 4, 5 transcendentals x 4, update 3, output 1 = 28 ops per unit.
  EXPECT_NEAR(c.forward.vector_s, 8.0 * 1024 * 28 / kVecPeak, 1e-15);
  // W, [x, h] and the gates (bf16), c in and out (fp32), the gates saved.
  const double bytes = 2.0 * (8 * 2048 + 2048 * 4096 + 8 * 4096) + 8 * 1024 * 8 + 8 * 4096 * 2;
  EXPECT_DOUBLE_EQ(c.forward.hbm_bytes, bytes);
  EXPECT_NEAR(c.forward.total_s(), bytes / kHbm, 1e-15);
  EXPECT_STREQ(c.forward.bound(), "hbm");  // 8 rows cannot hide the weights' 16 MiB
  // Ten steps cost ten times one (a step is an op of its own).
  l.steps = 10;
  const OpPasses ten = PriceOp(MakeOp("lstm", l, {"w"}), 8, true, kernels::CoreSpec{}, true);
  EXPECT_NEAR(ten.forward.total_s(), 10 * c.forward.total_s(), 1e-15);
  // Backward of one step: d[x, h] per step, then dW over all steps (its
  // contraction of 8 rows pads to 128), written in fp32.
  const double dw_padded = 2.0 * 2048 * 128 * 4096;
  EXPECT_DOUBLE_EQ(c.backward.padded_flops, 2.0 * 8 * 4096 * 2048 + dw_padded);
  // A loop that stopped after 10 steps of a 48-step state buffer, whose
  // weight gradient reads the whole buffer: dW contracts over 47 x 8 = 376
  // rows (padded to 384); the per-step work is the 10 steps'.
  l.weight_grad_steps = 47;
  const OpPasses buffered = PriceOp(MakeOp("lstm", l, {"w"}), 8, true, kernels::CoreSpec{}, true);
  EXPECT_DOUBLE_EQ(buffered.forward.padded_flops, ten.forward.padded_flops);
  EXPECT_DOUBLE_EQ(buffered.backward.padded_flops, 10 * 2.0 * 8 * 4096 * 2048 + 2.0 * 2048 * 384 * 4096);
}

TEST(ProjectionOpTest, AttentionByHand) {
  // 16 heads of 64, 256 x 256, 2 sequences: 32 head-sequences.
  AttentionAttrs a;
  a.heads = 16;
  a.tq = a.tk = 256;
  a.head_dim = 64;
  const OpPasses c = PriceOp(MakeOp("attn", a), 2, false, kernels::CoreSpec{}, true);
  // QK^T: 256 rows, contraction 64 -> 128, 256 outputs; PV: contraction
  // 256, 64 outputs -> 128. Half the padded MXU work is padding.
  const double padded = 32 * (2.0 * 256 * 128 * 256 + 2.0 * 256 * 256 * 128);
  EXPECT_DOUBLE_EQ(c.forward.padded_flops, padded);
  EXPECT_DOUBLE_EQ(c.forward.mxu_utilisation(), 0.5);
  EXPECT_NEAR(c.forward.mxu_s, padded / kMxuPeak, 1e-15);
  // Softmax and scale: 1 + 4 + one transcendental (4) per score.
  EXPECT_NEAR(c.forward.vector_s, 32.0 * 256 * 256 * 9 / kVecPeak, 1e-15);
  // Q, K, V, O and the probabilities written and read, bf16.
  const double bytes = 32.0 * (4 * 256) * 64 * 2 + 2 * 32.0 * 256 * 256 * 2;
  EXPECT_DOUBLE_EQ(c.forward.hbm_bytes, bytes);
  EXPECT_NEAR(c.forward.total_s(), bytes / kHbm, 1e-15);
  // Backward: four batched matmuls of the same padded size each as a forward one.
  EXPECT_DOUBLE_EQ(c.backward.padded_flops, 2 * padded);
  // A causal mask adds one op per score.
  a.causal = true;
  const OpPasses causal = PriceOp(MakeOp("attn", a), 2, false, kernels::CoreSpec{}, true);
  EXPECT_NEAR(causal.forward.vector_s - c.forward.vector_s, 32.0 * 256 * 256 / kVecPeak, 1e-15);
}

// A decoder's steps attend to the same keys and values: each step's backward
// adds its dK and dV to the sums of the later steps, reading both sums.
TEST(ProjectionOpTest, SequentialAttentionSumsItsKeyAndValueGradients) {
  AttentionAttrs a;
  a.tq = 1;
  a.tk = 48;
  a.head_dim = 1024;
  a.additive = true;
  Op once = MakeOp("attn", a);
  Op steps = once;
  steps.sequential_steps = 30;
  const OpPasses one = PriceOp(once, 8, false, kernels::CoreSpec{}, true);
  const OpPasses per_step = PriceOp(steps, 8, false, kernels::CoreSpec{}, true);
  const double sums = 2.0 * 8 * 48 * 1024 * 2;  // dK and dV read, bf16
  EXPECT_DOUBLE_EQ(per_step.backward.hbm_bytes, 30 * (one.backward.hbm_bytes + sums));
  EXPECT_DOUBLE_EQ(per_step.forward.hbm_bytes, 30 * one.forward.hbm_bytes);
}

TEST(ProjectionOpTest, FusedOpsKeepOnlyTheirVectorWork) {
  ElementwiseAttrs e;
  e.elements = 1000;
  Op relu = MakeOp("relu", e);
  relu.fused = true;
  const OpPasses fused = PriceOp(relu, 4, false, topology::DefaultSystem().core, true);
  EXPECT_DOUBLE_EQ(fused.forward.hbm_s, 0);
  EXPECT_DOUBLE_EQ(fused.forward.overhead_s, 0);
  EXPECT_GT(fused.forward.vector_s, 0);
  const OpPasses own = PriceOp(relu, 4, false, topology::DefaultSystem().core, false);
  EXPECT_GT(own.forward.total_s(), fused.forward.total_s());
}

// ---------------------------------------------------------------- spatial partitioning

// One 3x3 convolution on 64x64x256 images split 4 ways along h on tpu-v3-32
// (8 replicas of 4 cores = 2 chips each), 2 images a replica.
TEST(ProjectionSpatialTest, PartitionedConvolutionHaloByHand) {
  const topology::SystemSpec sys = IdealSystem();
  auto slice = topology::Slice::FromName("tpu-v3-32", sys);
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "one_conv";
  g.params = {P("k", {3, 3, 256, 256})};
  g.train = {MakeOp("conv", Conv(64, 256, 256, 3), {"k"})};
  StepConfig c = DataParallel(8, 2);
  c.layout.cores_per_replica = 4;
  c.layout.split = SplitDim::kHeight;
  auto step = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(step.ok()) << step.status().ToString();

  // Each core computes 16 of the 64 output rows from 16 + 2 halo rows.
  ConvAttrs share = Conv(64, 256, 256, 3);
  share.h = 16;
  const OpPasses per_core = PriceOp(MakeOp("conv", share, {"k"}), 2, true, sys.core, true);
  EXPECT_DOUBLE_EQ(step->ops[0].forward_s, per_core.forward.total_s());
  EXPECT_DOUBLE_EQ(step->ops[0].backward_s, per_core.backward.total_s());

  // Halo: one row of 64 x 256 bf16 values a side per image, 2 images:
  // 65,536 bytes. Cores 0-1 share a chip (core link: 0.1 us + bytes / 450
  // GB/s); cores 1-2 are one ICI hop apart (1 us + bytes / 82 GB/s), the
  // slowest pair. The input gradient needs one row of dy (64 x 256) too.
  const double side = 1.0 * 64 * 256 * 2 * 2;
  EXPECT_DOUBLE_EQ(side, 65536);
  const double hand = std::max(0.1e-6 + side / 450e9, 1e-6 + side / 82e9);
  auto replica = topology::LogicalTopology::ReplicaGroups(*slice, 4, 1);
  ASSERT_TRUE(replica.ok());
  auto topo = topology::CollectiveTime("halo_exchange", 4 * side, *replica);
  ASSERT_TRUE(topo.ok());
  EXPECT_NEAR(*topo, hand, 1e-15);
  EXPECT_NEAR(step->ops[0].halo_s, 2 * hand, 1e-15);
  EXPECT_NEAR(step->time[Category::kHalo], 2 * hand, 1e-15);
  // The gradients are summed over the 8 replicas by one all-reduce over all
  // 32 cores (each replica's 4 cores hold partial sums of their strips).
  auto all = topology::LogicalTopology::ReplicaGroups(*slice, 4, 8);
  ASSERT_TRUE(all.ok());
  auto grads = topology::CollectiveTime("torus2d", 3.0 * 3 * 256 * 256 * 4, *all);
  ASSERT_TRUE(grads.ok());
  EXPECT_DOUBLE_EQ(step->time[Category::kGradients], *grads);
  // Overlapped with the convolution, the halo is hidden.
  ProjectionOptions hidden;
  hidden.overlap.halo_with_compute = true;
  auto overlapped = ProjectTrainStep(g, c, *slice, hidden);
  ASSERT_TRUE(overlapped.ok());
  EXPECT_EQ(overlapped->time[Category::kHalo], 0);
  EXPECT_NEAR(overlapped->step_s(), step->step_s() - 2 * hand, 1e-12);
}

// Ops pinned to core 0 run whole there; the other three cores idle.
TEST(ProjectionSpatialTest, PinnedOpsIdleTheOtherCores) {
  auto slice = topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "pinned";
  g.params = {P("k", {3, 3, 64, 64})};
  g.train = {MakeOp("conv", Conv(32, 64, 64, 3), {"k"})};
  SoftmaxXentAttrs x;
  x.rows = 8732;
  x.classes = 81;
  Op loss = MakeOp("loss", x);
  loss.placement = Placement::kPinnedCore0;
  g.train.push_back(loss);
  StepConfig c = DataParallel(8, 4);
  c.layout.cores_per_replica = 4;
  c.layout.split = SplitDim::kHeight;
  auto step = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  // The loss is priced whole (4 images x 8732 rows), on one core.
  const kernels::OpCost whole = kernels::SoftmaxXentCost(slice->system().core, 4 * 8732, 81);
  EXPECT_DOUBLE_EQ(step->ops[1].forward_s, whole.total_s());
  EXPECT_NEAR(step->time[Category::kIdle], 0.75 * whole.total_s(), 1e-15);
  // Per op and per category, the step adds up.
  double ops = 0;
  for (const OpRow& r : step->ops) ops += r.forward_s + r.backward_s + r.halo_s;
  const CategoryTimes& t = step->time;
  EXPECT_NEAR(ops, t.compute_s() + t[Category::kIdle] + t[Category::kHalo], 1e-15);
  double sum = 0;
  for (Category cat : AllCategories()) sum += t[cat];
  EXPECT_DOUBLE_EQ(sum, step->step_s());
}

// A recomputed op (Op::recomputed) is its forward pass run in the step's
// backward: the same seconds, timed as backward, so that gradient sums
// overlapped with the backward can hide under it.
TEST(ProjectionStepTest, RecomputedOpsAreTimedInTheBackward) {
  auto slice = topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "recompute";
  g.params = {P("w", {4096, 4096})};
  MatMulAttrs m;
  m.m = 64;
  m.k = 4096;
  m.n = 4096;
  g.train = {MakeOp("dense", m, {"w"})};
  Op again = MakeOp("dense.again", m);
  again.needs_input_grad = false;
  g.train.push_back(again);
  ModelGraph plain = g;
  g.train[1].recomputed = true;
  const StepConfig c = DataParallel(32, 8);
  auto step = ProjectTrainStep(g, c, *slice);
  auto before = ProjectTrainStep(plain, c, *slice);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_GT(before->ops[1].forward_s, 0);
  EXPECT_DOUBLE_EQ(step->ops[1].forward_s, 0);
  EXPECT_DOUBLE_EQ(step->ops[1].backward_s, before->ops[1].forward_s);
  EXPECT_DOUBLE_EQ(step->step_s(), before->step_s());
  // With the gradient sum overlapped with the backward, the recomputation
  // hides more of it.
  ProjectionOptions o;
  o.overlap.gradients_with_backward = true;
  auto hid = ProjectTrainStep(g, c, *slice, o);
  auto hid_before = ProjectTrainStep(plain, c, *slice, o);
  ASSERT_TRUE(hid.ok() && hid_before.ok());
  ASSERT_GT(hid_before->time[Category::kGradients], 0);
  EXPECT_LT(hid->time[Category::kGradients], hid_before->time[Category::kGradients]);
}

// Consecutive ops pinned to different cores of a replica run side by side
// (Mask R-CNN's heads): the run takes its busiest core's time, and the
// other cores' work is no longer charged as idle on top of it.
TEST(ProjectionSpatialTest, PinnedOpsOnDifferentCoresRunSideBySide) {
  auto slice = topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "two-heads";
  SoftmaxXentAttrs x;
  x.rows = 8732;
  x.classes = 81;
  Op a = MakeOp("head_a", x);
  a.placement = Placement::kPinnedCore0;
  Op b = MakeOp("head_b", x);
  b.placement = Placement::kPinnedCore0;
  g.train = {a, b};
  StepConfig c = DataParallel(8, 4);
  c.layout.cores_per_replica = 4;
  c.layout.split = SplitDim::kHeight;
  auto same = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  g.train[1].pinned_core = 2;
  auto apart = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(apart.ok()) << apart.status().ToString();
  const double one = same->ops[0].forward_s;
  EXPECT_DOUBLE_EQ(same->ops[1].forward_s, one);
  EXPECT_EQ(apart->ops[1].pinned_core, 2);
  // Both on core 0: one after the other. On cores 0 and 2: side by side.
  EXPECT_NEAR(same->step_s() - apart->step_s(), one, 1e-15);
  // One op's time on the wall, of which each op's quarter of the replica is useful.
  EXPECT_NEAR(same->time[Category::kIdle], 1.5 * one, 1e-15);
  EXPECT_NEAR(apart->time[Category::kIdle], 0.5 * one, 1e-15);
  double sum = 0;
  for (Category cat : AllCategories()) sum += apart->time[cat];
  EXPECT_DOUBLE_EQ(sum, apart->step_s());
}

// A split convolution with fewer output rows than the replica's cores (SSD's
// 3x3 and 1x1 extra layers at k = 4) runs padded, as XLA pads an uneven
// sharding: every core computes a 1-row shard and exchanges its halo; the
// shards of padding only are idle time.
TEST(ProjectionSpatialTest, FewerRowsThanCoresRunPadded) {
  const topology::SystemSpec sys = IdealSystem();
  auto slice = topology::Slice::FromName("tpu-v3-32", sys);
  ASSERT_TRUE(slice.ok());
  for (const int64_t rows : {3, 1}) {
    ModelGraph g;
    g.name = "small_conv";
    g.params = {P("k", {3, 3, 128, 256})};
    ConvAttrs a = Conv(rows, 128, 256, 3);  // 'same': rows output rows
    g.train = {MakeOp("conv", a, {"k"})};
    StepConfig c = DataParallel(8, 4);
    c.layout.cores_per_replica = 4;
    c.layout.split = SplitDim::kHeight;
    auto step = ProjectTrainStep(g, c, *slice);
    ASSERT_TRUE(step.ok()) << rows << ": " << step.status().ToString();
    // Each core: one output row of its 1-row shard ('same' padding; the
    // neighbours' rows come by the halo exchange).
    ConvAttrs share = a;
    share.h = 1;
    const OpPasses per_core = PriceOp(MakeOp("conv", share, {"k"}), 4, true, sys.core, true);
    const double op_s = per_core.forward.total_s() + per_core.backward.total_s();
    EXPECT_DOUBLE_EQ(step->ops[0].forward_s, per_core.forward.total_s()) << rows;
    EXPECT_DOUBLE_EQ(step->ops[0].backward_s, per_core.backward.total_s()) << rows;
    const double useful = double(rows) / 4.0;
    EXPECT_DOUBLE_EQ(SplitUsefulFraction(g.train[0], 4), useful);
    EXPECT_NEAR(step->time[Category::kIdle], (1 - useful) * op_s, 1e-15) << rows;
    EXPECT_NEAR(step->time.compute_s(), useful * op_s, 1e-15) << rows;
    EXPECT_GT(step->ops[0].halo_s, 0) << rows;
  }
}

// Distributed BN per trainable BN layer: forward the mean and the variance
// (two all-reduces of C fp32 values, or one of 2C when the model concatenates
// them, as Google's SSD did), backward one of 2C.
TEST(ProjectionBnSyncTest, TwoOrThreeAllReducesPerLayer) {
  auto slice = topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  for (const bool concat : {false, true}) {
    ModelGraph g;
    g.name = "bn";
    g.params = {P("k", {3, 3, 64, 256}), P("gamma", {256}), P("beta", {256})};
    g.train = {MakeOp("conv", Conv(16, 64, 256, 3), {"k"})};
    NormAttrs n;
    n.rows = 16 * 16;
    n.channels = 256;
    n.concat_stats = concat;
    g.train.push_back(MakeOp("bn", n, {"gamma", "beta"}));
    StepConfig c = DataParallel(32, 4);
    c.layout.bn_group = 8;
    auto step = ProjectTrainStep(g, c, *slice);
    ASSERT_TRUE(step.ok()) << step.status().ToString();
    auto groups = topology::LogicalTopology::ReplicaGroups(*slice, 1, 8);
    ASSERT_TRUE(groups.ok());
    auto one = topology::CollectiveTime("ring", 256 * 4.0, *groups);
    auto two = topology::CollectiveTime("ring", 2 * 256 * 4.0, *groups);
    ASSERT_TRUE(one.ok() && two.ok());
    EXPECT_DOUBLE_EQ(step->time[Category::kBnSync], concat ? 2 * *two : 2 * *one + *two) << concat;
  }
}

// ---------------------------------------------------------------- weight-update sharding

// About 210 M parameters (Transformer big's order), 21 tensors of 10 M.
ModelGraph TransformerSized() {
  ModelGraph g;
  g.name = "transformer_sized";
  for (int i = 0; i < 21; ++i) {
    const std::string name = "w" + std::to_string(i);
    g.params.push_back(P(name, {1000, 10000}));
    MatMulAttrs m;
    m.m = 256;
    m.k = 1000;
    m.n = 10000;
    g.train.push_back(MakeOp("proj" + std::to_string(i), m, {name}));
  }
  return g;
}

TEST(ProjectionShardingTest, WeightUpdateShardingAgainstTheReplicatedUpdate) {
  const ModelGraph g = TransformerSized();
  ASSERT_EQ(g.TrainableParams(), 210000000);
  auto slice = topology::Slice::FromName("tpu-v3-2048", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  const kernels::CoreSpec& core = slice->system().core;
  StepConfig replicated = DataParallel(2048, 1);
  replicated.optimizer = OptimizerKind::kAdam;
  StepConfig sharded = replicated;
  sharded.layout.weight_update_sharding = true;
  auto a = ProjectTrainStep(g, replicated, *slice);
  auto b = ProjectTrainStep(g, sharded, *slice);
  ASSERT_TRUE(a.ok() && b.ok());

  // Optimizer: all 210 M on every core, or 1/2048 of them (102,540).
  const double full = kernels::OptimizerCost(core, 210000000, kernels::Optimizer::kAdam).total_s();
  const double shard = kernels::OptimizerCost(core, 102540, kernels::Optimizer::kAdam).total_s();
  EXPECT_DOUBLE_EQ(a->time[Category::kOptimizer], full);
  EXPECT_DOUBLE_EQ(b->time[Category::kOptimizer], shard);
  // Beyond the fixed op overhead, the sharded update is 1/2048 of the whole.
  EXPECT_NEAR((shard - core.op_overhead_s) / (full - core.op_overhead_s), 102540.0 / 210000000, 1e-9);

  // Gradients: one 2-D all-reduce of the fp32 gradients, or the 2-D
  // reduce-scatter of them and the all-gather of the fp32 weights.
  const topology::LogicalTopology all = topology::LogicalTopology::WholeSlice(*slice);
  auto ar = topology::CollectiveTime("torus2d", 210e6 * 4, all);
  auto pair = topology::ShardedPairOf("torus2d");
  ASSERT_TRUE(ar.ok() && pair.ok());
  auto rs = topology::CollectiveTime(pair->reduce_scatter, 210e6 * 4, all);
  auto ag = topology::CollectiveTime(pair->all_gather, 210e6 * 4, all);
  ASSERT_TRUE(rs.ok() && ag.ok());
  EXPECT_DOUBLE_EQ(a->time[Category::kGradients], *ar);
  EXPECT_DOUBLE_EQ(b->time[Category::kGradients], *rs + *ag);
  // The pair moves the all-reduce's bytes over the same rings: within 10%;
  // the optimizer saving dominates, so the sharded step is faster.
  EXPECT_NEAR(*rs + *ag, *ar, 0.1 * *ar);
  EXPECT_LT(b->step_s(), a->step_s());
  EXPECT_DOUBLE_EQ(a->time.compute_s(), b->time.compute_s());

  // bf16 gradients halve the reduce-scatter's bytes, not the weights'.
  sharded.layout.gradient_dtype = DType::kBf16;
  auto c = ProjectTrainStep(g, sharded, *slice);
  ASSERT_TRUE(c.ok());
  auto rs16 = topology::CollectiveTime(pair->reduce_scatter, 210e6 * 2, all);
  ASSERT_TRUE(rs16.ok());
  EXPECT_DOUBLE_EQ(c->time[Category::kGradients], *rs16 + *ag);

  // Sharded LARS also all-reduces two partial norms per tensor (21 tensors).
  sharded.layout.gradient_dtype = DType::kF32;
  sharded.optimizer = OptimizerKind::kLars;
  auto d = ProjectTrainStep(g, sharded, *slice);
  ASSERT_TRUE(d.ok());
  auto norms = topology::CollectiveTime("torus2d", 2.0 * 21 * 4, all);
  ASSERT_TRUE(norms.ok());
  EXPECT_DOUBLE_EQ(d->time[Category::kGradients], *rs + *ag + *norms);
}

TEST(ProjectionShardingTest, LazyAdamUpdatesOnlyTheTouchedRows) {
  auto slice = topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "embedding";
  Param table = P("table", {33708, 1024});
  table.sparse_gradient = true;
  g.params = {table};
  EmbeddingAttrs e;
  e.tokens = 256;
  e.vocab = 33708;
  e.dim = 1024;
  g.train = {MakeOp("embed", e, {"table"})};
  StepConfig c = DataParallel(32, 1);  // 32 x 256 = 8,192 tokens: at most 8,192 rows
  c.optimizer = OptimizerKind::kLazyAdam;
  const kernels::CoreSpec& core = slice->system().core;
  auto lazy = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(lazy.ok());
  EXPECT_DOUBLE_EQ(lazy->time[Category::kOptimizer],
                   kernels::OptimizerCost(core, 8192 * 1024, kernels::Optimizer::kAdam).total_s());
  c.optimizer = OptimizerKind::kAdam;  // dense: every row
  auto dense = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(dense.ok());
  EXPECT_DOUBLE_EQ(dense->time[Category::kOptimizer],
                   kernels::OptimizerCost(core, 33708 * 1024, kernels::Optimizer::kAdam).total_s());
  // Used by a matmul too (a shared softmax weight), the gradient is dense.
  MatMulAttrs m;
  m.m = 256;
  m.k = 1024;
  m.n = 33708;
  g.train.push_back(MakeOp("logits", m, {"table"}));
  c.optimizer = OptimizerKind::kLazyAdam;
  auto shared = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(shared.ok());
  EXPECT_DOUBLE_EQ(shared->time[Category::kOptimizer], dense->time[Category::kOptimizer]);
  EXPECT_EQ(shared->ops[1].params, 0);  // the shared table is counted at its first op
}

// ---------------------------------------------------------------- host side

TEST(ProjectionHostTest, InputOverlapsTheDeviceUnlessSwitchedOff) {
  topology::SystemSpec sys = topology::DefaultSystem();
  sys.host.input_bytes_per_s = 1e6;  // 1 MB/s: the host binds
  auto slice = topology::Slice::FromName("tpu-v3-8", sys);  // one host
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "host_bound";
  g.params = {P("w", {128, 128})};
  MatMulAttrs m;
  m.m = 1;
  m.k = m.n = 128;
  g.train = {MakeOp("fc", m, {"w"})};
  g.host.infeed_bytes = 1000;
  const StepConfig c = DataParallel(8, 16);  // 128 examples a host: 0.128 s
  auto step = ProjectTrainStep(g, c, *slice);
  ASSERT_TRUE(step.ok());
  EXPECT_DOUBLE_EQ(step->host_input_s, 0.128);
  EXPECT_NEAR(step->step_s(), 0.128, 1e-12);
  EXPECT_NEAR(step->time[Category::kInput], 0.128 - step->time.device_s(), 1e-12);
  ProjectionOptions serial;
  serial.overlap.input_with_device = false;
  auto s2 = ProjectTrainStep(g, c, *slice, serial);
  ASSERT_TRUE(s2.ok());
  EXPECT_NEAR(s2->step_s(), 0.128 + step->time.device_s(), 1e-12);
}

TEST(ProjectionHostTest, EvaluationScoringSerialOrOverlapped) {
  topology::SystemSpec sys = topology::DefaultSystem();
  auto slice = topology::Slice::FromName("tpu-v3-8", sys);
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "scored";
  g.params = {P("w", {128, 128})};
  MatMulAttrs m;
  m.m = 1;
  m.k = m.n = 128;
  g.train = {MakeOp("fc", m, {"w"})};
  g.eval = g.train;
  g.host.outfeed_bytes = 512;
  g.host.score_ops = 1e6;  // per example
  g.host.scoring_processes = 10;
  const StepConfig c = DataParallel(8, 4);  // 32 examples an eval step
  auto e = ProjectEvaluation(g, c, *slice, 100);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->steps, 4);  // 100 examples padded to 4 steps of 32
  // 100 x 1e6 ops at 1e9 ops/s in 10 processes.
  EXPECT_NEAR(e->scoring_s, 100 * 1e6 / (sys.host.scoring_ops_per_s * 10), 1e-12);
  EXPECT_DOUBLE_EQ(e->device_s, 4 * e->step.step_s());
  // Outfeed: 8 examples a chip at 16 GB/s.
  EXPECT_DOUBLE_EQ(e->step.time[Category::kInput], 8 * 512 / 16e9);
  EXPECT_DOUBLE_EQ(e->exposed_s(1.0), e->device_s);                         // hidden by the next block
  EXPECT_DOUBLE_EQ(e->exposed_s(0.001), e->device_s + e->scoring_s - 0.001);  // outlasts it
  ProjectionOptions serial;
  serial.overlap.eval_scoring_with_training = false;
  auto s = ProjectEvaluation(g, c, *slice, 100, serial);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->exposed_s(1.0), s->device_s + s->scoring_s);
}

// Scoring in worker processes, then a serial part in one (Mask R-CNN: 16
// workers paste and encode masks, then one process runs COCOeval).
TEST(ProjectionHostTest, ScoringHasASerialPartAfterTheWorkers) {
  topology::SystemSpec sys = topology::DefaultSystem();
  auto slice = topology::Slice::FromName("tpu-v3-8", sys);
  ASSERT_TRUE(slice.ok());
  HostWork h;
  h.score_ops = 1.6e6;
  h.scoring_processes = 16;
  EXPECT_NEAR(HostScoringSeconds(h, 100, *slice), 100 * 1e5 / sys.host.scoring_ops_per_s, 1e-12);
  h.serial_score_ops = 5e5;
  EXPECT_NEAR(HostScoringSeconds(h, 100, *slice), 100 * (1e5 + 5e5) / sys.host.scoring_ops_per_s, 1e-12);
}

// ---------------------------------------------------------------- refusals

TEST(ProjectionValidationTest, BadLayoutsAreRefusedNamingTheField) {
  auto slice = topology::Slice::FromName("tpu-v3-32", topology::DefaultSystem());
  ASSERT_TRUE(slice.ok());
  ModelGraph g;
  g.name = "one_conv";
  g.params = {P("k", {3, 3, 16, 16})};
  g.train = {MakeOp("conv", Conv(8, 16, 16, 3), {"k"})};
  auto refused = [&](const StepConfig& c, const std::string& what) {
    auto st = ProjectTrainStep(g, c, *slice);
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_EQ(st.status().code(), Status::Code::kInvalidArgument) << what;
    EXPECT_THAT(st.status().message(), HasSubstr(what));
  };
  StepConfig c = DataParallel(32, 4);
  c.layout.replicas = 16;  // 16 x 1 != 32
  refused(c, "must equal the slice's 32 cores");
  c = DataParallel(32, 4);
  c.layout.bn_group = 3;
  refused(c, "bn_group 3");
  c = DataParallel(32, 4);
  c.layout.allreduce = "butterfly";
  refused(c, "allreduce 'butterfly'");
  c.layout.allreduce = "torus2d_reduce_scatter";  // registered, but not an all-reduce
  refused(c, "allreduce 'torus2d_reduce_scatter'");
  c = DataParallel(32, 0);
  refused(c, "per_replica_batch 0");
  c = DataParallel(4, 4);
  c.layout.cores_per_replica = 8;  // split, but no split dimension given
  refused(c, "split 'none'");
  c.layout.split = SplitDim::kHeight;
  c.layout.cores_per_replica = 16;  // 8 output rows over 16 cores: padded, not refused
  c.layout.replicas = 2;
  EXPECT_TRUE(ProjectTrainStep(g, c, *slice).ok());
  g.train[0].params = {"missing"};
  refused(DataParallel(32, 4), "unknown parameter 'missing'");
}

TEST(ProjectionValidationTest, OverridesAreCheckedAndNamed) {
  StepConfig c = DataParallel(32, 4);
  ProjectionOptions o;
  ASSERT_TRUE(ApplyOverride("cores_per_replica=4", 32, &c, &o).ok());
  EXPECT_EQ(c.layout.replicas, 8);
  EXPECT_EQ(c.layout.split, SplitDim::kHeight);
  ASSERT_TRUE(ApplyOverride("gradient_dtype=bf16", 32, &c, &o).ok());
  EXPECT_EQ(c.layout.gradient_dtype, DType::kBf16);
  ASSERT_TRUE(ApplyOverride("overlap.gradients_with_backward=true", 32, &c, &o).ok());
  EXPECT_TRUE(o.overlap.gradients_with_backward);
  ASSERT_TRUE(ApplyOverride("optimizer=lazy_adam", 32, &c, &o).ok());
  EXPECT_EQ(c.optimizer, OptimizerKind::kLazyAdam);
  const StepConfig before = c;
  for (const char* bad : {"cores_per_replica=3", "cores_per_replica=0", "weight_update_sharding=yes",
                          "gradient_dtype=fp16", "per_replica_batch=-1", "per_replica_batch=1048577",
                          "eval_per_replica_batch=99999999999", "optimizer=adagrad", "novalue", "colour=blue"}) {
    Status st = ApplyOverride(bad, 32, &c, &o);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_THAT(st.message(), HasSubstr(std::string("--set ") + bad)) << bad;
    EXPECT_EQ(c.layout.replicas, before.layout.replicas);
  }
  EXPECT_THAT(ApplyOverride("colour=blue", 32, &c, &o).message(), HasSubstr("known: cores_per_replica"));
}

}  // namespace
}  // namespace podbench::projection
