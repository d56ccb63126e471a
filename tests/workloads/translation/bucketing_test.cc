// Length bucketing as Google's v0.6 GNMT pipeline does it: the bucket id
// from the lengths, one bucket per batch, examples waiting across passes,
// and batches padded to their own longest sequence.
#include <set>
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

TEST(BucketingTest, EveryBatchHoldsOneBucketAndEveryExampleComesOnce) {
  const auto ex = Pairs(200);
  auto b = BucketedBatches::Create(ex, {30, 3}, 8, 7);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->batches_per_pass(), 25);
  std::multiset<int64_t> seen;
  for (int k = 0; k < 20; ++k) {
    const std::vector<int64_t> batch = b->Next();
    ASSERT_EQ(batch.size(), 8u);
    for (int64_t e : batch) {
      EXPECT_EQ(b->bucket_of(e), b->bucket_of(batch[0]));
      seen.insert(e);
    }
  }
  for (int64_t e : seen) EXPECT_EQ(seen.count(e), 1u) << "within a pass an example comes once";
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
  EXPECT_FALSE(BucketedBatches::Create(Pairs(10), {30, 3}, 0, 1).ok());
  EXPECT_FALSE(BucketedBatches::Create({}, {30, 3}, 4, 1).ok());
  auto r = BucketedBatches::Create(Pairs(10), {5, 3}, 4, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("longer than max_length 5"), std::string::npos);
}

}  // namespace
}  // namespace podbench::translation
