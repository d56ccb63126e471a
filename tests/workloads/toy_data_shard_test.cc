// Under mpirun each rank of a functional toy run makes only its own shard of
// the data: its cores' part of every batch and of the held-out set
// (PartOfCores, as the toy's session reads them). A rank never makes
// another rank's examples, the ranks' shards are disjoint and together the
// whole set, and every example a rank makes is bitwise the one-process one.
#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "topology/rank_group.h"
#include "workloads/toy/toy_data.h"

namespace podbench::workloads {
namespace {

constexpr int kCores = 8;
constexpr int64_t kBatch = 64;
constexpr int64_t kTrain = 512;  // 8 steps an epoch: every example once
constexpr int64_t kEval = 200;   // not a multiple of the cores
constexpr uint64_t kSeed = 20190610;

TEST(ToyDataShardTest, EachRankMakesOnlyItsCoresExamples) {
  ToyData one(kSeed, kTrain, kEval);
  std::vector<int64_t> order(kTrain);
  for (int64_t i = 0; i < kTrain; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 rng(5);
  std::shuffle(order.begin(), order.end(), rng);
  const size_t bytes = kToyFeatures * sizeof(double);

  for (int ranks : {2, 4}) {
    std::set<int64_t> train_union, eval_union;
    size_t train_total = 0, eval_total = 0;
    for (int r = 0; r < ranks; ++r) {
      const std::string what = "rank " + std::to_string(r) + " of " + std::to_string(ranks);
      const topology::CoreBlock block = topology::CoresOfRank(kCores, ranks, r);
      ToyData mine(kSeed, kTrain, kEval);
      std::set<int64_t> expected_train, expected_eval;
      const auto [first, last] = PartOfCores(kBatch, block, kCores);
      EXPECT_EQ(last - first, kBatch / kCores * block.size()) << what;
      for (int64_t s = 0; s < kTrain / kBatch; ++s) {
        for (int64_t k = first; k < last; ++k) {
          const int64_t i = order[static_cast<size_t>(s * kBatch + k)];
          expected_train.insert(i);
          EXPECT_EQ(std::memcmp(mine.TrainFeatures(i), one.TrainFeatures(i), bytes), 0) << what << ", example " << i;
          EXPECT_EQ(mine.TrainLabel(i), one.TrainLabel(i)) << what << ", example " << i;
        }
      }
      const auto [efirst, elast] = PartOfCores(kEval, block, kCores);
      for (int64_t i = efirst; i < elast; ++i) {
        expected_eval.insert(i);
        EXPECT_EQ(std::memcmp(mine.EvalFeatures(i), one.EvalFeatures(i), bytes), 0) << what << ", held-out " << i;
        EXPECT_EQ(mine.EvalLabel(i), one.EvalLabel(i)) << what << ", held-out " << i;
      }
      const std::vector<int64_t> t = mine.MadeTrain(), e = mine.MadeEval();
      EXPECT_EQ(std::set<int64_t>(t.begin(), t.end()), expected_train) << what;
      EXPECT_EQ(std::set<int64_t>(e.begin(), e.end()), expected_eval) << what;
      train_total += t.size();
      eval_total += e.size();
      train_union.insert(t.begin(), t.end());
      eval_union.insert(e.begin(), e.end());
    }
    EXPECT_EQ(train_total, static_cast<size_t>(kTrain)) << ranks << " ranks";
    EXPECT_EQ(train_union.size(), static_cast<size_t>(kTrain)) << ranks << " ranks";
    EXPECT_EQ(eval_total, static_cast<size_t>(kEval)) << ranks << " ranks";
    EXPECT_EQ(eval_union.size(), static_cast<size_t>(kEval)) << ranks << " ranks";
  }
}

// The data is the seed's alone: the training and held-out sets are
// independent streams (a held-out example does not move when the training
// set grows), and the labels agree with the teacher about 95% of the time
// (both classes present).
TEST(ToyDataShardTest, ExamplesArePureFunctionsOfSeedAndIndex) {
  ToyData small(kSeed, 16, kEval), large(kSeed, 4096, kEval), other(kSeed + 1, 16, kEval);
  const size_t bytes = kToyFeatures * sizeof(double);
  int ones = 0;
  for (int64_t i = 0; i < kEval; ++i) {
    EXPECT_EQ(std::memcmp(large.EvalFeatures(i), small.EvalFeatures(i), bytes), 0) << i;
    ones += small.EvalLabel(i);
  }
  for (int64_t i = 0; i < 16; ++i) {
    EXPECT_EQ(std::memcmp(large.TrainFeatures(i), small.TrainFeatures(i), bytes), 0) << i;
    EXPECT_NE(std::memcmp(other.TrainFeatures(i), small.TrainFeatures(i), bytes), 0) << i;
    EXPECT_NE(std::memcmp(small.EvalFeatures(i), small.TrainFeatures(i), bytes), 0) << i;
  }
  EXPECT_GT(ones, kEval / 4);
  EXPECT_LT(ones, 3 * kEval / 4);
}

}  // namespace
}  // namespace podbench::workloads
