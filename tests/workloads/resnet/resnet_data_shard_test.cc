// Under mpirun each rank of a functional ResNet run generates only its own
// shard of the data: the training-batch rows and held-out images of its
// cores (FunctionalResNet::IsLocalTrainRow / IsLocalEvalImage, as the
// session wires them into FunctionalData). A rank never generates another
// rank's examples, the ranks' shards are disjoint and together the whole
// set, and every row a rank does hold is bitwise the one-process row.
#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/stub_rank.h"
#include "topology/rank_group.h"
#include "workloads/resnet/resnet_functional.h"
#include "workloads/resnet/resnet_input.h"

namespace podbench::resnet {
namespace {

constexpr int kCores = 8;
constexpr int64_t kBatch = 32;    // 4 images a core
constexpr int64_t kTrain = 128;   // 4 steps an epoch: every image once
constexpr int64_t kEval = 40;     // chunks of 4: 10 chunks, cores 0 and 1 get two
constexpr int64_t kChunk = kBatch / kCores;

using podbench::testing::StubRank;

Result<std::unique_ptr<FunctionalResNet>> Net(std::shared_ptr<topology::RankGroup> ranks) {
  FunctionalConfig fc;
  fc.net.image_size = 32;
  fc.net.num_classes = 4;
  fc.net.width = 1;
  fc.net.expansion = 2;
  fc.net.blocks = {1, 1, 1, 1};
  fc.cores = kCores;
  fc.slice = "tpu-v3-8";
  fc.global_batch = kBatch;
  fc.ranks = std::move(ranks);
  return FunctionalResNet::Create(fc);
}

// The session's data configuration, sharded by `net` when given.
Result<std::unique_ptr<FunctionalData>> Data(const FunctionalResNet* net) {
  FunctionalDataConfig dc;
  dc.images.num_classes = 4;
  dc.images.height = dc.images.width = 32;
  dc.images.seed = 20190610;
  dc.train_examples = kTrain;
  dc.eval_examples = kEval;
  dc.global_batch = kBatch;
  dc.seed = 3;
  if (net != nullptr) {
    dc.train_row_needed = [net](int64_t row) { return net->IsLocalTrainRow(row); };
    dc.eval_image_needed = [net](int64_t i) { return net->IsLocalEvalImage(i, kChunk); };
  }
  return FunctionalData::Create(dc);
}

TEST(ResNetDataShardTest, EachRankGeneratesOnlyItsCoresImages) {
  auto one = Data(nullptr);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  const size_t img = 32 * 32 * 3;
  // One process: two epochs of batches.
  std::vector<std::vector<float>> ref_x;
  std::vector<std::vector<int32_t>> ref_y;
  std::set<int64_t> first_epoch;
  for (int epoch = 0; epoch < 2; ++epoch) {
    (*one)->StartEpoch();
    for (int64_t s = 0; s < kTrain / kBatch; ++s) {
      ref_x.emplace_back();
      ref_y.emplace_back();
      ASSERT_TRUE((*one)->Batch(s, &ref_x.back(), &ref_y.back()).ok());
    }
    if (epoch == 0) {
      const std::vector<int64_t> g = (*one)->GeneratedTrainImages();
      first_epoch.insert(g.begin(), g.end());
    }
  }
  ASSERT_EQ(first_epoch.size(), static_cast<size_t>(kTrain));
  ASSERT_EQ((*one)->GeneratedEvalImages().size(), static_cast<size_t>(kEval));

  for (int ranks : {2, 4}) {
    std::set<int64_t> train_union, eval_union;
    size_t train_total = 0, eval_total = 0;
    for (int r = 0; r < ranks; ++r) {
      const std::string what = "rank " + std::to_string(r) + " of " + std::to_string(ranks);
      auto net = Net(std::make_shared<StubRank>(r, ranks));
      ASSERT_TRUE(net.ok()) << what << ": " << net.status().ToString();
      const topology::CoreBlock block = (*net)->parallel().local_cores();
      EXPECT_EQ(block.begin, topology::CoresOfRank(kCores, ranks, r).begin) << what;
      auto data = Data(net->get());
      ASSERT_TRUE(data.ok()) << what << ": " << data.status().ToString();

      // Held-out images: exactly those of the chunks its cores evaluate,
      // bitwise the one-process images; the rest never generated (zeros).
      const std::vector<int64_t> ev = (*data)->GeneratedEvalImages();
      for (int64_t i = 0; i < kEval; ++i) {
        const bool mine = block.Holds(static_cast<int>((i / kChunk) % kCores));
        EXPECT_EQ(std::binary_search(ev.begin(), ev.end(), i), mine) << what << ", held-out image " << i;
        const float* got = (*data)->eval_images().data() + img * static_cast<size_t>(i);
        if (mine) {
          EXPECT_EQ(std::memcmp(got, (*one)->eval_images().data() + img * static_cast<size_t>(i), img * sizeof(float)), 0)
              << what << ", held-out image " << i;
          EXPECT_EQ((*data)->eval_labels()[static_cast<size_t>(i)], (*one)->eval_labels()[static_cast<size_t>(i)]);
        } else {
          EXPECT_TRUE(std::all_of(got, got + img, [](float v) { return v == 0.f; })) << what << ", image " << i;
        }
      }
      eval_total += ev.size();
      eval_union.insert(ev.begin(), ev.end());

      // Training batches: its cores' rows bitwise the one-process rows, the
      // other rows zeros.
      size_t step = 0;
      for (int epoch = 0; epoch < 2; ++epoch) {
        (*data)->StartEpoch();
        for (int64_t s = 0; s < kTrain / kBatch; ++s, ++step) {
          std::vector<float> x;
          std::vector<int32_t> y;
          ASSERT_TRUE((*data)->Batch(s, &x, &y).ok());
          ASSERT_EQ(x.size(), ref_x[step].size());
          for (int64_t k = 0; k < kBatch; ++k) {
            const bool mine = block.Holds(static_cast<int>(k / kChunk));
            EXPECT_EQ((*net)->IsLocalTrainRow(k), mine) << what << ", row " << k;
            const float* got = x.data() + img * static_cast<size_t>(k);
            if (mine) {
              EXPECT_EQ(std::memcmp(got, ref_x[step].data() + img * static_cast<size_t>(k), img * sizeof(float)), 0)
                  << what << ", step " << step << ", row " << k;
              EXPECT_EQ(y[static_cast<size_t>(k)], ref_y[step][static_cast<size_t>(k)]);
            } else {
              EXPECT_TRUE(std::all_of(got, got + img, [](float v) { return v == 0.f; }))
                  << what << ", step " << step << ", row " << k;
            }
          }
        }
        if (epoch == 0) {
          // One epoch uses every image once: this rank generated exactly
          // its cores' rows' images.
          const std::vector<int64_t> g = (*data)->GeneratedTrainImages();
          EXPECT_EQ(g.size(), static_cast<size_t>(kTrain / kBatch * kChunk * block.size())) << what;
          train_total += g.size();
          train_union.insert(g.begin(), g.end());
        }
      }
    }
    // Disjoint shards that together are the whole set.
    EXPECT_EQ(train_total, static_cast<size_t>(kTrain)) << ranks << " ranks";
    EXPECT_EQ(train_union, first_epoch) << ranks << " ranks";
    EXPECT_EQ(eval_total, static_cast<size_t>(kEval)) << ranks << " ranks";
    EXPECT_EQ(eval_union.size(), static_cast<size_t>(kEval)) << ranks << " ranks";
  }
}

}  // namespace
}  // namespace podbench::resnet
