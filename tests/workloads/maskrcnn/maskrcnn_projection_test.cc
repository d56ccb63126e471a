// The projected Mask R-CNN through the shared composition
// (maskrcnn_projection.h, workloads/projected_runs.h) on the built-in
// (calibrated, not fitted to Mask R-CNN) system: Google's three slices
// against the published score and block time, the parts of Google's run the
// issue names (the model, the layouts, the host's evaluation), and the
// claims' what-ifs.
#include "workloads/maskrcnn/maskrcnn_projection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "results/published_v06.h"
#include "tests/workloads/projection/priced_run.h"
#include "topology/system.h"
#include "workloads/maskrcnn/maskrcnn_google_v06.h"
#include "workloads/maskrcnn/maskrcnn_graph.h"
#include "workloads/projected_runs.h"
#include "workloads/projection/host.h"
#include "workloads/registry.h"

namespace podbench::maskrcnn {
namespace {

using workloads::testing::ScoreS;

workloads::ProjectedRunModel Priced(const std::string& slice, const std::vector<std::string>& sets = {}) {
  return workloads::testing::Priced("maskrcnn", slice, sets);
}

double DeviceStepS(const workloads::ProjectedRunModel& run) { return run.pricing.step.time.device_s(); }

// The fidelity table's three Mask R-CNN rows. None comes within 15% of
// Google's: the priced step is 0.24 / 0.095 / 0.054 s at 32 / 128 / 256
// cores where the logs' block gaps imply about 0.45 / 0.24 / 0.146 s
// (maskrcnn-v0.6.md §4). The cost model prices the first stage's
// convolutions near the MXU's rate and the second stage's ROIAlign, top-k,
// NMS and sampling as dense bandwidth-bound ops; Google's TPU code does
// those with gathers, sorts and while loops that no public TPU-v3 figure
// prices, and its partitioned step scales worse than the halo and pinning
// model says (1.85x from 32 to 128 cores in the logs, 2.5x here). No
// parameter is fitted to close the gap. The bounds below hold what stands
// so that a change in either direction is seen.
TEST(MaskRcnnFidelityTest, ThreeSlicesAgainstGooglesPublishedRows) {
  struct Bound {
    const char* slice;
    double min_err_pct, max_err_pct;  // predicted against published, score and block
  };
  for (const Bound& b : {Bound{"tpu-v3-32", -50, -40}, Bound{"tpu-v3-128", -65, -55}, Bound{"tpu-v3-256", -61, -51}}) {
    SCOPED_TRACE(b.slice);
    const workloads::ProjectedRunModel run = Priced(b.slice);
    auto row = workloads::PredictRow(run);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    const auto published = results::FindPublishedV06("maskrcnn", b.slice);
    ASSERT_TRUE(published.has_value());
    const double score_err = (row->score_s / 60 - published->score_min) / published->score_min * 100;
    const double block_err = (row->median_gap_s - published->block_s) / published->block_s * 100;
    std::printf("%s: score %.2f min (%+.1f%%), block %.1f s (%+.1f%%), step %.4f s\n", b.slice, row->score_s / 60,
                score_err, row->median_gap_s, block_err, row->step_s);
    for (double err : {score_err, block_err}) {
      EXPECT_GT(err, b.min_err_pct);
      EXPECT_LT(err, b.max_err_pct);
    }
    // 15 blocks of 924 steps to the converging evaluation (§4).
    ASSERT_EQ(run.plan.convergence.points.size(), 1u);
    EXPECT_EQ(run.plan.convergence.points[0].label, 15);
    EXPECT_EQ(run.plan.convergence.total_runs(), 5);
    EXPECT_GT(row->score_s, 15 * 924 * row->step_s);
  }
}

TEST(MaskRcnnStepTest, GooglesModelAndLayoutsAsTheIssueNamesThem) {
  const workloads::ProjectedRunModel big = Priced("tpu-v3-256");
  const projection::ModelGraph& g = big.step.graph;
  // ~44.45 M parameters, ~44.18 M trained (§1); the fp32 all-reduce ~177 MB.
  EXPECT_NEAR(double(g.TotalParams()) / 1e6, 44.45, 0.1);
  EXPECT_NEAR(double(g.TrainableParams()) / 1e6, 44.18, 0.1);
  EXPECT_EQ(big.step.config.layout.gradient_dtype, projection::DType::kF32);
  // 4-way partitioning along H: 64 replicas of 2 images at 256 cores, 32 of
  // 4 at 128, none at 32 (32 replicas of 4) (§2).
  EXPECT_EQ(big.step.config.layout.replicas, 64);
  EXPECT_EQ(big.step.config.layout.cores_per_replica, 4);
  EXPECT_EQ(big.step.config.layout.split, projection::SplitDim::kHeight);
  EXPECT_EQ(big.step.config.per_replica_batch, 2);
  const workloads::ProjectedRunModel mid = Priced("tpu-v3-128");
  EXPECT_EQ(mid.step.config.layout.replicas, 32);
  EXPECT_EQ(mid.step.config.per_replica_batch, 4);
  const workloads::ProjectedRunModel small = Priced("tpu-v3-32");
  EXPECT_EQ(small.step.config.layout.cores_per_replica, 1);
  EXPECT_EQ(small.step.config.per_replica_batch, 4);
  // Partitioning has halos; the unpartitioned slice has none.
  EXPECT_GT(big.pricing.step.time[projection::Category::kHalo], 0);
  EXPECT_EQ(small.pricing.step.time[projection::Category::kHalo], 0);
  // The infeed carries the 279,279 anchors' targets beside the image.
  EXPECT_DOUBLE_EQ(g.host.infeed_bytes, 832.0 * 1344 * 3 * 2 + 279279.0 * 20 + 100 * (20 + 116.0 * 116 * 4));
}

TEST(MaskRcnnEvalTest, HostWorkPricedFromWhatItComputesOverlappingTheNextBlock) {
  const workloads::ProjectedRunModel run = Priced("tpu-v3-256");
  ASSERT_TRUE(run.pricing.eval.has_value());
  const projection::HostWork& h = run.step.graph.host;
  EXPECT_EQ(h.scoring_processes, 16);  // EVAL_WORKER_COUNT
  // At the system file's rate: 16 workers paste and encode, one process
  // runs COCOeval.
  const double rate = topology::DefaultSystem().host.scoring_ops_per_s;
  EXPECT_DOUBLE_EQ(run.pricing.eval->scoring_s, 5000 * (h.score_ops / 16 + h.serial_score_ops) / rate);
  // Google's logs: 50-57 s of host work an evaluation (§4); priced, not read.
  EXPECT_GT(run.pricing.eval->scoring_s, 40);
  EXPECT_LT(run.pricing.eval->scoring_s, 70);
  // Hidden behind the next block but for the last evaluation (the tail).
  EXPECT_DOUBLE_EQ(run.pricing.TailS(), run.pricing.eval->scoring_s);
  EXPECT_DOUBLE_EQ(run.pricing.EvalS(1000, false), run.pricing.eval->device_s);
  EXPECT_GT(ScoreS(Priced("tpu-v3-256", {"projected_eval_overlap=false"})), ScoreS(run));
}

TEST(MaskRcnnPlanTest, RefusesSlicesAndSchedulesGoogleDidNotRun) {
  EXPECT_FALSE(workloads::ModelProjectedRun("maskrcnn", "google-v0.6", "tpu-v3-512", topology::DefaultSystem()).ok());
  auto lr = workloads::ModelProjectedRun("maskrcnn", "google-v0.6", "tpu-v3-32", topology::DefaultSystem(),
                                         {"opt_base_learning_rate=0.2"});
  ASSERT_FALSE(lr.ok());
  EXPECT_THAT(lr.status().message(), ::testing::HasSubstr("opt_base_learning_rate"));
  auto k = workloads::ModelProjectedRun("maskrcnn", "google-v0.6", "tpu-v3-32", topology::DefaultSystem(),
                                        {"spatial_partitions=3"});
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), ::testing::HasSubstr("spatial_partitions 3"));
}

// The seed paper's claim and the partitioning ladder: every base arm is a
// what-if that changes the priced run, and each stage's distribution pays.
TEST(MaskRcnnClaimsTest, EachStagesDistributionPaysAndEveryBaseArmChangesTheRun) {
  const workloads::ModelRegistration* m = workloads::FindModel("maskrcnn");
  ASSERT_NE(m, nullptr);
  std::vector<std::string> ids;
  for (const workloads::ClaimSpec& c : m->claims()) ids.push_back(c.id);
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre("maskrcnn-first-stage-distribution",
                                                    "maskrcnn-second-stage-distribution", "maskrcnn-4way-vs-2way",
                                                    "maskrcnn-4way-vs-1way", "maskrcnn-distributed-eval"));
  for (const workloads::ClaimSpec& c : m->claims()) {
    SCOPED_TRACE(c.id);
    EXPECT_EQ(c.workload, "maskrcnn");
    const workloads::ProjectedRunModel base = Priced(c.base.slice, c.base.sets);
    const workloads::ProjectedRunModel variant = Priced(c.variant.slice, c.variant.sets);
    EXPECT_NE(ScoreS(base), ScoreS(variant));
    EXPECT_EQ(base.hp.Int("global_batch_size"), variant.hp.Int("global_batch_size"));
  }
  const double google = DeviceStepS(Priced("tpu-v3-256"));
  const double first_whole = DeviceStepS(Priced("tpu-v3-256", {"projected_partition_first_stage=false"}));
  const double heads_on_one = DeviceStepS(Priced("tpu-v3-256", {"projected_distribute_heads=false"}));
  std::printf("tpu-v3-256 device step: Google's %.4f s, first stage on one core %.4f s (%.2fx, buys %.0f%%), "
              "second stage on one core %.4f s (%.2fx, buys %.0f%%)\n",
              google, first_whole, first_whole / google, 100 * (1 - google / first_whole), heads_on_one,
              heads_on_one / google, 100 * (1 - google / heads_on_one));
  EXPECT_GT(first_whole, google);
  EXPECT_GT(heads_on_one, google);
  // At the same global batch of 128 on tpu-v3-128: three layouts, three
  // prices. With the second stage pinned to single cores, 4-way
  // partitioning is priced slower than 1 image a core (no verdict: the
  // paper gives no number).
  const double four = DeviceStepS(Priced("tpu-v3-128"));
  const double two = DeviceStepS(Priced("tpu-v3-128", {"spatial_partitions=2"}));
  const double one = DeviceStepS(Priced("tpu-v3-128", {"spatial_partitions=1"}));
  std::printf("tpu-v3-128 device step at batch 128: 4-way %.4f s, 2-way %.4f s, 1-way %.4f s\n", four, two, one);
  EXPECT_NE(four, two);
  EXPECT_NE(two, one);
}

// Consecutive ops pinned to different cores run side by side: the second
// stage on cores 0, 1 and 2 costs its busiest core's time, less than all of
// it on core 0, by the other cores' work.
TEST(MaskRcnnStepTest, PinnedHeadsOnDifferentCoresRunSideBySide) {
  const workloads::ProjectedRunModel spread = Priced("tpu-v3-256");
  const workloads::ProjectedRunModel one = Priced("tpu-v3-256", {"projected_distribute_heads=false"});
  double by_core[3] = {0, 0, 0}, total = 0;
  for (const projection::OpRow& r : spread.pricing.step.ops) {
    if (r.placement != projection::Placement::kPinnedCore0) continue;
    ASSERT_LT(r.pinned_core, 3) << r.name;
    by_core[r.pinned_core] += r.forward_s + r.backward_s;
    total += r.forward_s + r.backward_s;
  }
  const double busiest = std::max({by_core[0], by_core[1], by_core[2]});
  EXPECT_GT(by_core[1], 0);
  EXPECT_GT(by_core[2], 0);
  EXPECT_NEAR(one.pricing.step.step_s() - spread.pricing.step.step_s(), total - busiest, 1e-9);
}

}  // namespace
}  // namespace podbench::maskrcnn
