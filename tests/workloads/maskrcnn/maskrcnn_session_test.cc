// The functional Mask R-CNN session's parts: under mpirun each rank renders
// only its cores' rows of every training batch (FunctionalMaskRcnn::
// IsLocalImage), bitwise the one-process rows, the ranks' rows disjoint and
// together the whole set; every rank holds the whole held-out set and scores
// the same AP as one process; the graph that prices the run has the model's
// parameters.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/stub_rank.h"
#include "topology/rank_group.h"
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

}  // namespace
}  // namespace podbench::maskrcnn
