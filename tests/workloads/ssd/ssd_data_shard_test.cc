// Under mpirun each rank of a functional SSD run renders only its own shard
// of the data: the training-batch rows of its cores' replicas and the
// held-out images of the chunks its cores predict (FunctionalSsd::
// IsLocalTrainRow / IsLocalEvalImage, as the session wires them into
// SsdDataConfig). A rank never renders another rank's images, the ranks'
// shards are disjoint (unpartitioned replicas) and together the whole set,
// every row a rank makes is bitwise the one-process row, and after the
// ranks share their held-out ground truth every rank scores predictions as
// one process does.
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/stub_rank.h"
#include "workloads/ssd/ssd_data.h"
#include "workloads/ssd/ssd_functional.h"

namespace podbench::ssd {
namespace {

using podbench::testing::StubRank;

constexpr int kCores = 8;
constexpr int64_t kBatch = 16;   // 2 images a core
constexpr int64_t kTrain = 32;   // 2 steps an epoch: every image once
constexpr int64_t kChunk = FunctionalSsd::kPredictChunk;
constexpr int64_t kEval = 8 * kChunk + 8;  // 9 chunks: core 0 predicts two

SsdConfig SmallNet() {
  SsdConfig c;
  c.image_size = 32;
  c.width = 4;
  c.classes = 3;
  return c;
}

Result<std::unique_ptr<FunctionalSsd>> Net(std::shared_ptr<topology::RankGroup> ranks, int partitions) {
  FunctionalConfig fc;
  fc.net = SmallNet();
  fc.slice = "tpu-v3-8";
  fc.partitions = partitions;
  fc.global_batch = kBatch;
  fc.ranks = std::move(ranks);
  return FunctionalSsd::Create(fc);
}

// The session's data configuration, sharded by `net` when given.
Result<std::unique_ptr<SsdData>> Data(const FunctionalSsd* net) {
  const SsdNet one = BuildSsdNet(SmallNet());
  SsdDataConfig dc;
  dc.shapes.height = dc.shapes.width = 32;
  dc.shapes.classes = 3;
  dc.shapes.min_size = 6;
  dc.shapes.max_size = 20;
  dc.shapes.seed = 20190610;
  dc.train_images = kTrain;
  dc.eval_images = kEval;
  dc.max_samples = 3;
  if (net != nullptr) {
    dc.train_row_needed = [net](int64_t row) { return net->IsLocalTrainRow(row); };
    dc.eval_image_needed = [net](int64_t i) { return net->IsLocalEvalImage(i); };
  }
  return SsdData::Create(one, dc);
}

// The global batches of one epoch: a fixed shuffle.
std::vector<std::vector<int64_t>> Epoch() {
  std::vector<int64_t> order(kTrain);
  for (int64_t i = 0; i < kTrain; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 rng(7);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::vector<int64_t>> steps;
  for (int64_t s = 0; s < kTrain / kBatch; ++s) steps.emplace_back(order.begin() + s * kBatch, order.begin() + (s + 1) * kBatch);
  return steps;
}

// Row `k` of `b` against row `k` of `ref`: bitwise equal, or zeros.
void ExpectRow(const DetectionBatch& b, const DetectionBatch& ref, int64_t k, bool mine, const std::string& what) {
  const size_t px = b.images.size() / kBatch, an = b.labels.size() / kBatch;
  const auto row = static_cast<size_t>(k);
  const float* img = b.images.data() + px * row;
  const int32_t* lab = b.labels.data() + an * row;
  const float* tgt = b.targets.data() + 4 * an * row;
  if (mine) {
    EXPECT_EQ(std::memcmp(img, ref.images.data() + px * row, px * sizeof(float)), 0) << what;
    EXPECT_EQ(std::memcmp(lab, ref.labels.data() + an * row, an * sizeof(int32_t)), 0) << what;
    EXPECT_EQ(std::memcmp(tgt, ref.targets.data() + 4 * an * row, 4 * an * sizeof(float)), 0) << what;
  } else {
    EXPECT_TRUE(std::all_of(img, img + px, [](float v) { return v == 0.f; })) << what;
    EXPECT_TRUE(std::all_of(lab, lab + an, [](int32_t v) { return v == 0; })) << what;
    EXPECT_TRUE(std::all_of(tgt, tgt + 4 * an, [](float v) { return v == 0.f; })) << what;
  }
}

TEST(SsdDataShardTest, EachRankRendersOnlyItsCoresImages) {
  auto one = Data(nullptr);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  const auto steps = Epoch();
  std::vector<DetectionBatch> ref(steps.size());
  for (size_t s = 0; s < steps.size(); ++s) (*one)->MakeBatch(steps[s], 100 + s, &ref[s]);
  ASSERT_EQ((*one)->GeneratedTrainImages().size(), static_cast<size_t>(kTrain));
  ASSERT_EQ((*one)->GeneratedEvalImages().size(), static_cast<size_t>(kEval));
  const size_t px = 32 * 32 * 3;

  // Predictions to score: deterministic noise.
  const SsdNet small = BuildSsdNet(SmallNet());
  const size_t A = static_cast<size_t>(small.anchors.NumAnchors()), P = static_cast<size_t>(small.pred_width());
  std::vector<float> pred(static_cast<size_t>(kEval) * A * P);
  std::mt19937 noise(3);
  std::normal_distribution<float> normal(0.f, 1.f);
  for (float& v : pred) v = normal(noise);
  auto ref_map = (*one)->Evaluate(pred);
  ASSERT_TRUE(ref_map.ok()) << ref_map.status().ToString();

  for (int ranks : {2, 4}) {
    std::set<int64_t> train_union, eval_union;
    size_t train_total = 0, eval_total = 0;
    std::vector<std::unique_ptr<SsdData>> shards;
    for (int r = 0; r < ranks; ++r) {
      const std::string what = "rank " + std::to_string(r) + " of " + std::to_string(ranks);
      auto net = Net(std::make_shared<StubRank>(r, ranks), 1);
      ASSERT_TRUE(net.ok()) << what << ": " << net.status().ToString();
      const topology::CoreBlock block = topology::CoresOfRank(kCores, ranks, r);
      auto data = Data(net->get());
      ASSERT_TRUE(data.ok()) << what << ": " << data.status().ToString();

      // Held-out images: exactly those of the chunks its cores predict,
      // bitwise the one-process pixels; the rest never rendered (zeros).
      const std::vector<int64_t> ev = (*data)->GeneratedEvalImages();
      for (int64_t i = 0; i < kEval; ++i) {
        const bool mine = block.Holds(static_cast<int>((i / kChunk) % kCores));
        EXPECT_EQ(std::binary_search(ev.begin(), ev.end(), i), mine) << what << ", held-out image " << i;
        const float* got = (*data)->eval_pixels().data() + px * static_cast<size_t>(i);
        if (mine) {
          EXPECT_EQ(std::memcmp(got, (*one)->eval_pixels().data() + px * static_cast<size_t>(i), px * sizeof(float)), 0)
              << what << ", held-out image " << i;
        } else {
          EXPECT_TRUE(std::all_of(got, got + px, [](float v) { return v == 0.f; })) << what << ", image " << i;
        }
      }
      eval_total += ev.size();
      eval_union.insert(ev.begin(), ev.end());
      // Without the other ranks' ground truth it cannot score.
      EXPECT_EQ((*data)->Evaluate(pred).status().code(), Status::Code::kFailedPrecondition) << what;

      // Training rows: its cores' rows bitwise the one-process rows, the
      // other rows zeros; the images it rendered are exactly its rows'.
      std::set<int64_t> expected;
      for (size_t s = 0; s < steps.size(); ++s) {
        DetectionBatch b;
        (*data)->MakeBatch(steps[s], 100 + s, &b);
        ASSERT_EQ(b.images.size(), ref[s].images.size());
        for (int64_t k = 0; k < kBatch; ++k) {
          const bool mine = block.Holds(static_cast<int>(k / (kBatch / kCores)));
          EXPECT_EQ((*net)->IsLocalTrainRow(k), mine) << what << ", row " << k;
          if (mine) expected.insert(steps[s][static_cast<size_t>(k)]);
          ExpectRow(b, ref[s], k, mine, what + ", step " + std::to_string(s) + ", row " + std::to_string(k));
        }
      }
      const std::vector<int64_t> g = (*data)->GeneratedTrainImages();
      EXPECT_EQ(std::set<int64_t>(g.begin(), g.end()), expected) << what;
      EXPECT_EQ(g.size(), static_cast<size_t>(kTrain / kCores * block.size())) << what;
      train_total += g.size();
      train_union.insert(g.begin(), g.end());
      shards.push_back(std::move(data).value());
    }
    // Disjoint shards that together are the whole set.
    EXPECT_EQ(train_total, static_cast<size_t>(kTrain)) << ranks << " ranks";
    EXPECT_EQ(train_union.size(), static_cast<size_t>(kTrain)) << ranks << " ranks";
    EXPECT_EQ(eval_total, static_cast<size_t>(kEval)) << ranks << " ranks";
    EXPECT_EQ(eval_union.size(), static_cast<size_t>(kEval)) << ranks << " ranks";

    // Shared ground truth: every rank scores as one process.
    for (int r = 0; r < ranks; ++r) {
      for (int q = 0; q < ranks; ++q) {
        if (q == r) continue;
        const Status added = shards[static_cast<size_t>(r)]->AddEvalTruth(shards[static_cast<size_t>(q)]->LocalEvalTruth());
        ASSERT_TRUE(added.ok()) << added.ToString();
      }
      auto map = shards[static_cast<size_t>(r)]->Evaluate(pred);
      ASSERT_TRUE(map.ok()) << map.status().ToString();
      EXPECT_EQ(map->ap(), ref_map->ap()) << "rank " << r << " of " << ranks;
    }
  }
}

// A spatially partitioned replica can span ranks: each of its ranks renders
// the replica's rows (its cores hold strips of those images), no others.
TEST(SsdDataShardTest, PartitionedReplicaRowsGoToEveryRankOfTheReplica) {
  constexpr int kRanks = 4, kPartitions = 4;  // replicas {0-3}, {4-7}; rank r holds cores 2r, 2r+1
  const auto steps = Epoch();
  for (int r = 0; r < kRanks; ++r) {
    auto net = Net(std::make_shared<StubRank>(r, kRanks), kPartitions);
    ASSERT_TRUE(net.ok()) << net.status().ToString();
    const int64_t replica = r / 2, per_replica = kBatch / 2;
    auto data = Data(net->get());
    ASSERT_TRUE(data.ok()) << data.status().ToString();
    std::set<int64_t> expected;
    DetectionBatch b;
    (*data)->MakeBatch(steps[0], 1, &b);
    for (int64_t k = 0; k < kBatch; ++k) {
      const bool mine = k / per_replica == replica;
      EXPECT_EQ((*net)->IsLocalTrainRow(k), mine) << "rank " << r << ", row " << k;
      if (mine) expected.insert(steps[0][static_cast<size_t>(k)]);
    }
    const std::vector<int64_t> g = (*data)->GeneratedTrainImages();
    EXPECT_EQ(std::set<int64_t>(g.begin(), g.end()), expected) << "rank " << r;
  }
}

TEST(SsdDataShardTest, MalformedGroundTruthIsRefused) {
  auto one = Data(nullptr);
  ASSERT_TRUE(one.ok());
  std::string truth = (*one)->LocalEvalTruth();
  EXPECT_EQ((*one)->AddEvalTruth(std::string_view(truth).substr(0, truth.size() - 3)).code(), Status::Code::kCorruption);
  std::string far(sizeof(int64_t) + sizeof(int32_t), '\0');
  const int64_t index = kEval;
  std::memcpy(far.data(), &index, sizeof index);
  const Status s = (*one)->AddEvalTruth(far);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.ToString().find("out of range"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace podbench::ssd
