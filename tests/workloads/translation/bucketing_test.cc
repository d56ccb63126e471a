// Length bucketing as Google's v0.6 GNMT pipeline does it: the bucket id
// from the lengths, one bucket per global batch on every core, examples
// waiting across passes, a rank's cores' batches computed without the other
// cores' examples, and batches padded to their own longest sequence.
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "workloads/translation/bucketing.h"

namespace podbench::translation {
namespace {

TEST(BucketingTest, BucketIdIsGooglesFormula) {
  const BucketSpec google;  // max 48, 5 buckets
  EXPECT_EQ(google.width(), 10);  // (48 + 5 - 1) / 5
  EXPECT_EQ(google.BucketOf(3, 9), 0);
  EXPECT_EQ(google.BucketOf(10, 2), 1);
  EXPECT_EQ(google.BucketOf(12, 39), 3);
  EXPECT_EQ(google.BucketOf(48, 48), 4);  // lengths <= 48: ids 0 to 4
  const BucketSpec narrow{20, 2};
  EXPECT_EQ(narrow.BucketOf(20, 1), 2) << "min(buckets, ...): id `buckets` itself occurs";
}

std::vector<TokenPair> Pairs(int n) {
  std::vector<TokenPair> v;
  for (int i = 0; i < n; ++i) {
    const int s = 1 + (i * 7) % 30, t = 1 + (i * 11) % 30;
    v.push_back({std::vector<int32_t>(static_cast<size_t>(s), 5), std::vector<int32_t>(static_cast<size_t>(t), 6)});
  }
  return v;
}

// The bucket ids of `examples` and their count per id (ids 0..buckets).
struct Buckets {
  std::vector<int> ids;
  std::vector<int64_t> counts;
};
Buckets Of(const std::vector<TokenPair>& examples, const BucketSpec& spec) {
  auto ids = BucketsOf(examples, spec);
  EXPECT_TRUE(ids.ok()) << ids.status().ToString();
  Buckets b{*ids, std::vector<int64_t>(static_cast<size_t>(spec.buckets) + 1, 0)};
  for (int id : b.ids) ++b.counts[static_cast<size_t>(id)];
  return b;
}

TEST(BucketingTest, EveryBatchHoldsOneBucketAndEveryExampleComesOnce) {
  const auto ex = Pairs(200);
  const BucketSpec spec{30, 3};
  const Buckets one = Of(ex, spec);
  auto b = BucketedBatches::Create(spec, 8, {one.counts}, 0, {one.ids}, 7);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->batches_per_pass(), 25);
  // The first pass: every bucket's full batches.
  int64_t first_pass = 0;
  for (int64_t n : one.counts) first_pass += n / 8;
  std::multiset<int64_t> seen;
  for (int64_t k = 0; k < first_pass; ++k) {
    const BucketedBatches::Batch batch = b->Next();
    ASSERT_EQ(batch.examples.size(), 1u);
    ASSERT_EQ(batch.examples[0].size(), 8u);
    for (int64_t e : batch.examples[0]) {
      EXPECT_EQ(one.ids[static_cast<size_t>(e)], batch.bucket);
      seen.insert(e);
    }
  }
  for (int64_t e : seen) EXPECT_EQ(seen.count(e), 1u) << "within a pass an example comes once";
  // Later passes: what waited comes first, every batch still one bucket.
  for (int k = 0; k < 60; ++k) {
    const BucketedBatches::Batch batch = b->Next();
    for (int64_t e : batch.examples[0]) EXPECT_EQ(one.ids[static_cast<size_t>(e)], batch.bucket);
  }
}

// Four cores, each with its own examples: every global batch takes one
// bucket on every core, and a process holding cores [2, 4) only (an mpirun
// rank, given every core's counts but no other core's examples) gets the
// same buckets and, for its cores, the same examples.
TEST(BucketingTest, EveryCoreTakesTheSameBucketAndARankSeesItsCoresAlone) {
  const BucketSpec spec{30, 3};
  std::vector<std::vector<TokenPair>> core_examples;
  std::vector<Buckets> per;
  std::vector<std::vector<int64_t>> counts;
  std::vector<std::vector<int>> ids;
  for (int c = 0; c < 4; ++c) {
    auto all = Pairs(200 + 7 * c);
    core_examples.emplace_back(all.begin() + 3 * c, all.end());  // unequal cores
    per.push_back(Of(core_examples.back(), spec));
    counts.push_back(per.back().counts);
    ids.push_back(per.back().ids);
  }
  auto whole = BucketedBatches::Create(spec, 2, counts, 0, ids, 11);
  auto rank = BucketedBatches::Create(spec, 2, counts, 2, {ids[2], ids[3]}, 11);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_TRUE(rank.ok()) << rank.status().ToString();
  int64_t total = 0;
  for (const auto& n : counts) total += std::accumulate(n.begin(), n.end(), int64_t{0});
  EXPECT_EQ(whole->batches_per_pass(), total / 8);
  std::set<int> buckets_seen;
  for (int k = 0; k < 300; ++k) {
    const auto w = whole->Next();
    const auto r = rank->Next();
    ASSERT_EQ(w.examples.size(), 4u);
    ASSERT_EQ(r.examples.size(), 2u);
    EXPECT_EQ(r.bucket, w.bucket) << "batch " << k;
    EXPECT_EQ(r.examples[0], w.examples[2]) << "batch " << k;
    EXPECT_EQ(r.examples[1], w.examples[3]) << "batch " << k;
    buckets_seen.insert(w.bucket);
    for (size_t c = 0; c < 4; ++c) {
      ASSERT_EQ(w.examples[c].size(), 2u);
      for (int64_t e : w.examples[c]) EXPECT_EQ(per[c].ids[static_cast<size_t>(e)], w.bucket);
    }
  }
  EXPECT_GT(buckets_seen.size(), 1u);
}

TEST(BucketingTest, PadBatchRunsToTheLongestSequence) {
  const std::vector<TokenPair> ex = {{{4, 1}, {5, 6, 7, 1}}, {{4, 4, 4, 1}, {5, 1}}};
  const PackedRows r = PadBatch(ex, {0, 1});
  EXPECT_EQ(r.rows, 2);
  EXPECT_EQ(r.length, 4);
  EXPECT_EQ(r.inputs, (std::vector<int32_t>{4, 1, 0, 0, 4, 4, 4, 1}));
  EXPECT_EQ(r.targets_segmentation, (std::vector<int32_t>{1, 1, 1, 1, 1, 1, 0, 0}));
}

TEST(BucketingTest, BadInputsAreErrors) {
  const BucketSpec spec{30, 3};
  const Buckets ten = Of(Pairs(10), spec);
  EXPECT_FALSE(BucketedBatches::Create(spec, 0, {ten.counts}, 0, {ten.ids}, 1).ok()) << "per_core 0";
  EXPECT_FALSE(BucketedBatches::Create(spec, 1, {{1, 2}}, 0, {}, 1).ok()) << "counts of another shape";
  EXPECT_FALSE(BucketedBatches::Create(spec, 1, {ten.counts}, 0, {{0}}, 1).ok()) << "ids not matching counts";
  auto none = BucketedBatches::Create(spec, 7, {ten.counts}, 0, {ten.ids}, 1);  // the fullest bucket has 6
  ASSERT_FALSE(none.ok()) << "no bucket fills a share";
  EXPECT_NE(none.status().ToString().find("no length bucket has 7 examples"), std::string::npos)
      << none.status().ToString();
  auto r = BucketsOf(Pairs(10), {5, 3});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("longer than max_length 5"), std::string::npos);
}

}  // namespace
}  // namespace podbench::translation
