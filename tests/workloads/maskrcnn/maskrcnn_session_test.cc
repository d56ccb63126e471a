// The functional Mask R-CNN session's parts: under mpirun each rank renders
// only its cores' rows of every training batch (FunctionalMaskRcnn::
// IsLocalImage), bitwise the one-process rows, the ranks' rows disjoint and
// together the whole set; every rank holds the whole held-out set and scores
// the same AP as one process; the graph that prices the run has the model's
// parameters and is priced on the run's layout (spatial_partitions).
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/run/settings.h"
#include "tests/testing/stub_rank.h"
#include "topology/rank_group.h"
#include "workloads/maskrcnn/maskrcnn_graph.h"
#include "workloads/maskrcnn/maskrcnn_session.h"

namespace podbench::maskrcnn {
namespace {

using podbench::testing::StubRank;

constexpr int kCores = 8;
constexpr int64_t kBatch = 16;  // 2 images a core
constexpr int64_t kTrain = 32;  // 2 steps an epoch: every image once
constexpr int64_t kEval = 4;

FunctionalConfig SmallNet(std::shared_ptr<topology::RankGroup> ranks) {
  FunctionalConfig c;
  c.image_size = 64;
  c.classes = 2;
  c.width = 2;
  c.fpn_channels = 4;
  c.slice = "tpu-v3-8";
  c.global_batch = kBatch;
  c.ranks = std::move(ranks);
  return c;
}

Result<std::unique_ptr<ShapesData>> Data(const FunctionalMaskRcnn* net) {
  ShapesDataConfig dc;
  dc.shapes.height = dc.shapes.width = 64;
  dc.shapes.classes = 2;
  dc.shapes.max_objects = 3;
  dc.shapes.seed = 20190610;
  dc.train_images = kTrain;
  dc.eval_images = kEval;
  if (net != nullptr) dc.row_needed = [net](int64_t row) { return net->IsLocalImage(row); };
  return ShapesData::Create(dc, SmallNet(nullptr));
}

// The global batches of one epoch: a fixed shuffle.
std::vector<std::vector<int64_t>> Epoch() {
  std::vector<int64_t> order(kTrain);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(7);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::vector<int64_t>> steps;
  for (int64_t s = 0; s < kTrain / kBatch; ++s) steps.emplace_back(order.begin() + s * kBatch, order.begin() + (s + 1) * kBatch);
  return steps;
}

TEST(MaskRcnnSessionTest, EachRankRendersOnlyItsCoresImagesAndScoresAsOneProcess) {
  auto one_net = FunctionalMaskRcnn::Create(SmallNet(nullptr));
  ASSERT_TRUE(one_net.ok()) << one_net.status().ToString();
  auto one = Data(nullptr);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  const auto steps = Epoch();
  std::vector<MaskBatch> ref(steps.size());
  for (size_t s = 0; s < steps.size(); ++s) ASSERT_TRUE((*one)->MakeBatch(steps[s], &ref[s]).ok());
  ASSERT_EQ((*one)->RenderedTrainImages().size(), static_cast<size_t>(kTrain));
  auto ref_ap = (*one)->Evaluate(**one_net);
  ASSERT_TRUE(ref_ap.ok()) << ref_ap.status().ToString();
  const size_t px = 64 * 64 * 3;

  for (int ranks : {2, 4}) {
    std::set<int64_t> train_union;
    size_t train_total = 0;
    for (int r = 0; r < ranks; ++r) {
      const std::string what = "rank " + std::to_string(r) + " of " + std::to_string(ranks);
      auto net = FunctionalMaskRcnn::Create(SmallNet(std::make_shared<StubRank>(r, ranks)));
      ASSERT_TRUE(net.ok()) << what << ": " << net.status().ToString();
      const topology::CoreBlock block = topology::CoresOfRank(kCores, ranks, r);
      auto data = Data(net->get());
      ASSERT_TRUE(data.ok()) << what << ": " << data.status().ToString();
      std::set<int64_t> expected;
      for (size_t s = 0; s < steps.size(); ++s) {
        MaskBatch b;
        ASSERT_TRUE((*data)->MakeBatch(steps[s], &b).ok());
        ASSERT_EQ(b.images.size(), ref[s].images.size());
        ASSERT_EQ(b.truth.size(), ref[s].truth.size());
        for (int64_t k = 0; k < kBatch; ++k) {
          const std::string at = what + ", step " + std::to_string(s) + ", row " + std::to_string(k);
          const bool mine = block.Holds(static_cast<int>(k / (kBatch / kCores)));
          EXPECT_EQ((*net)->IsLocalImage(k), mine) << at;
          const auto row = static_cast<size_t>(k);
          const float* got = b.images.data() + px * row;
          const GroundTruth& t = b.truth[row];
          if (mine) {
            expected.insert(steps[s][row]);
            EXPECT_EQ(std::memcmp(got, ref[s].images.data() + px * row, px * sizeof(float)), 0) << at;
            const GroundTruth& rt = ref[s].truth[row];
            EXPECT_EQ(t.classes, rt.classes) << at;
            EXPECT_EQ(t.padded_masks, rt.padded_masks) << at;
            ASSERT_EQ(t.boxes.size(), rt.boxes.size()) << at;
            EXPECT_FALSE(t.boxes.empty()) << at;
          } else {
            EXPECT_TRUE(std::all_of(got, got + px, [](float v) { return v == 0.f; })) << at;
            EXPECT_TRUE(t.boxes.empty() && t.classes.empty() && t.padded_masks.empty()) << at;
          }
        }
      }
      const std::vector<int64_t> g = (*data)->RenderedTrainImages();
      EXPECT_EQ(std::set<int64_t>(g.begin(), g.end()), expected) << what;
      EXPECT_EQ(g.size(), static_cast<size_t>(kTrain / kCores * block.size())) << what;
      train_total += g.size();
      train_union.insert(g.begin(), g.end());
      // The whole held-out set on every rank, the same weights: the same AP.
      auto ap = (*data)->Evaluate(**net);
      ASSERT_TRUE(ap.ok()) << what << ": " << ap.status().ToString();
      EXPECT_EQ(ap->box, ref_ap->box) << what;
      EXPECT_EQ(ap->mask, ref_ap->mask) << what;
    }
    EXPECT_EQ(train_total, static_cast<size_t>(kTrain)) << ranks << " ranks";
    EXPECT_EQ(train_union.size(), static_cast<size_t>(kTrain)) << ranks << " ranks";
  }
}

TEST(MaskRcnnSessionTest, BadSamplesAndSizesAreRefused) {
  auto d = Data(nullptr);
  ASSERT_TRUE(d.ok());
  MaskBatch b;
  const std::vector<int64_t> outside = {kTrain};
  const Status st = (*d)->MakeBatch(outside, &b);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("training sample 32"), std::string::npos) << st.message();
  ShapesDataConfig dc;
  dc.shapes.height = dc.shapes.width = 128;
  auto wrong = ShapesData::Create(dc, SmallNet(nullptr));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("functional_image_size 64"), std::string::npos) << wrong.status().message();
}

// The graph the emulated clock prices declares exactly the model's
// parameters, at the default sizes and at small ones.
TEST(MaskRcnnSessionTest, TheClocksGraphHasTheModelsParameters) {
  for (FunctionalConfig c : {FunctionalConfig{}, SmallNet(nullptr)}) {
    auto net = FunctionalMaskRcnn::Create(c);
    ASSERT_TRUE(net.ok()) << net.status().ToString();
    auto g = FunctionalMaskRcnnGraph(c);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(g->TotalParams(), static_cast<int64_t>((*net)->parameters().size())) << c.width << " " << c.fpn_channels;
    EXPECT_GT(g->ForwardMacs(), 0);
    EXPECT_GT(g->EvalMacs(), 0);
  }
}

// The clock's graph places its ops as the projected graph does: the first
// stage split, the second stage's heads pinned where Google pinned them.
TEST(MaskRcnnSessionTest, TheClocksGraphPinsTheSecondStageAsTheProjectedGraphDoes) {
  auto g = FunctionalMaskRcnnGraph(SmallNet(nullptr));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::map<std::string, const projection::Op*> op;
  for (const projection::Op& o : g->train) op[o.name] = &o;
  auto expect = [&](const char* name, projection::Placement placement, int64_t core) {
    ASSERT_TRUE(op.count(name)) << name;
    EXPECT_EQ(op[name]->placement, placement) << name;
    if (placement == projection::Placement::kPinnedCore0) {
      EXPECT_EQ(op[name]->pinned_core, core) << name;
    }
  };
  expect("conv0", projection::Placement::kSplit, 0);
  expect("fpn.post2", projection::Placement::kSplit, 0);
  expect("rpn.p6.out", projection::Placement::kSplit, 0);
  expect("rpn.loss", projection::Placement::kSplit, 0);
  expect("box.fc6", projection::Placement::kPinnedCore0, PinnedCore(SecondStagePart::kBoxHead));
  expect("box.class_loss", projection::Placement::kPinnedCore0, 2);
  expect("mask.targets", projection::Placement::kPinnedCore0, PinnedCore(SecondStagePart::kSamples));
  expect("mask.conv1", projection::Placement::kPinnedCore0, PinnedCore(SecondStagePart::kMaskHead));
  expect("mask.loss", projection::Placement::kPinnedCore0, 1);
}

// One training step of a tiny functional run through the session, on the
// clock: tpu-v3-8 at global batch 8, spatial_partitions k.
Result<workloads::TimeBreakdown> PricedStep(int k) {
  harness::RunRequest req;
  req.workload = "maskrcnn";
  req.mode = "functional";
  req.slice = "tpu-v3-8";
  req.preset = "functional";
  req.sets = {"functional_image_size=64", "functional_spread_area_ranges=false", "functional_classes=1",
              "functional_width=2", "functional_fpn_channels=4", "functional_train_examples=8",
              "functional_eval_examples=1", "spatial_partitions=" + std::to_string(k)};
  req.runs = 1;
  req.seed = 7;
  PODBENCH_ASSIGN_OR_RETURN(const harness::EffectiveRunSettings s, harness::Normalize(req));
  workloads::RunContext ctx{s.slice, s.system, s.mode, s.base_seed, s.hp, s.description};
  if (s.description.parallelism.cores_per_replica != k) {
    return Status::Internal("the run's layout has " + std::to_string(s.description.parallelism.cores_per_replica) +
                            " cores a replica");
  }
  PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<workloads::Session> session, s.workload->Start(ctx));
  PODBENCH_RETURN_IF_ERROR(session->Initialize().status());
  PODBENCH_ASSIGN_OR_RETURN(const workloads::BlockResult block, session->TrainBlock(1, 1));
  if (block.steps != 1) return Status::Internal("expected one step, got " + std::to_string(block.steps));
  return block.time;
}

// The run's layout reaches the clock. At the same global batch of 8 on 8
// cores, K = 2 runs 4 replicas of 2 images where K = 1 runs 8 of 1. Each
// core's share of the first stage is the same (half the rows of 2 images
// against all of 1), plus halo exchanges that K = 1 has none of; the second
// stage runs pinned, the box head on core 0 beside the mask head on core 1
// (2 images each), where K = 1 runs both heads one after the other on its
// core. At this size every op of the heads costs about its fixed overhead,
// so running them side by side saves more than the halos cost: the K = 2
// step is shorter (about 10%), its other cores idling while one runs a
// pinned op.
TEST(MaskRcnnSessionTest, TheClockPricesTheRunsPartitionedLayout) {
  auto one = PricedStep(1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  auto two = PricedStep(2);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(one->halo_s, 0.0);
  EXPECT_EQ(one->idle_s, 0.0);
  EXPECT_GT(two->halo_s, 0.0);
  EXPECT_GT(two->idle_s, 0.0);
  EXPECT_LT(two->total_s(), one->total_s());
  EXPECT_EQ(two->collectives_s, one->collectives_s) << "the same gradient all-reduce over all 8 cores";
}

}  // namespace
}  // namespace podbench::maskrcnn
