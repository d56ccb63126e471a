// Packing as tensor2tensor's pack_examples: first fit over a queue of open
// rows, spacing, segment ids and positions, nothing lost.
#include <gtest/gtest.h>

#include "workloads/translation/packing.h"

namespace podbench::translation {
namespace {

std::vector<int32_t> Seq(int n, int32_t base) {
  std::vector<int32_t> s;
  for (int i = 0; i < n; ++i) s.push_back(base + i);
  return s;
}

std::vector<int32_t> Row(const std::vector<int32_t>& v, int64_t r, int64_t length) {
  return {v.begin() + r * length, v.begin() + (r + 1) * length};
}

TEST(PackingTest, SegmentsPositionsAndSpacing) {
  // Lengths (source, target): (3,2), (2,4), (4,3) into rows of 10 with spacing 2.
  auto p = PackExamples({{Seq(3, 10), Seq(2, 20)}, {Seq(2, 30), Seq(4, 40)}, {Seq(4, 50), Seq(3, 60)}}, 10);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  // (1) and (2) share row 0 (3+2+2 <= 10 and 2+2+4 <= 10); (3) does not fit
  // there (7+2+4 > 10) and opens row 1.
  ASSERT_EQ(p->rows, 2);
  EXPECT_EQ(p->examples, 3);
  EXPECT_EQ(Row(p->inputs, 0, 10), (std::vector<int32_t>{10, 11, 12, 0, 0, 30, 31, 0, 0, 0}));
  EXPECT_EQ(Row(p->inputs_segmentation, 0, 10), (std::vector<int32_t>{1, 1, 1, 0, 0, 2, 2, 0, 0, 0}));
  EXPECT_EQ(Row(p->inputs_position, 0, 10), (std::vector<int32_t>{0, 1, 2, 0, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(Row(p->targets, 0, 10), (std::vector<int32_t>{20, 21, 0, 0, 40, 41, 42, 43, 0, 0}));
  EXPECT_EQ(Row(p->targets_segmentation, 0, 10), (std::vector<int32_t>{1, 1, 0, 0, 2, 2, 2, 2, 0, 0}));
  EXPECT_EQ(Row(p->targets_position, 0, 10), (std::vector<int32_t>{0, 1, 0, 0, 0, 1, 2, 3, 0, 0}));
  EXPECT_EQ(Row(p->inputs_segmentation, 1, 10), (std::vector<int32_t>{1, 1, 1, 1, 0, 0, 0, 0, 0, 0}));
}

TEST(PackingTest, FirstFitOverABoundedQueue) {
  // Rows of 8, no spacing: 5,5,5 open three rows; a 3 goes back to the first.
  std::vector<TokenPair> ex = {{Seq(5, 1), Seq(5, 1)}, {Seq(5, 1), Seq(5, 1)}, {Seq(5, 1), Seq(5, 1)},
                               {Seq(3, 1), Seq(3, 1)}};
  auto p = PackExamples(ex, 8, 0, 10);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->rows, 3);
  EXPECT_EQ(p->targets_segmentation[7], 2);  // row 0 got the fourth example
  // With a queue of 1 the first row is closed before the 3 arrives.
  p = PackExamples(ex, 8, 0, 1);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->rows, 3);
  EXPECT_EQ(p->targets_segmentation[7], 0);
  EXPECT_EQ(p->targets_segmentation[2 * 8 + 7], 2);  // the last row took it
}

TEST(PackingTest, EveryTokenKeptOnceAndGatherKeepsRows) {
  std::vector<TokenPair> ex;
  int64_t tokens = 0;
  for (int i = 0; i < 200; ++i) {
    ex.push_back({Seq(1 + i % 13, 3), Seq(1 + (i * 7) % 17, 3)});
    tokens += static_cast<int64_t>(ex.back().target.size());
  }
  auto p = PackExamples(ex, 32);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->examples, 200);
  int64_t nonzero = 0;
  for (int32_t s : p->targets_segmentation) nonzero += s > 0;
  EXPECT_EQ(nonzero, tokens);
  EXPECT_LT(p->rows, 200 / 2);  // several examples per row
  PackedRows g;
  p->Gather({2, 0}, 0, 2, &g);
  EXPECT_EQ(g.rows, 2);
  EXPECT_EQ(Row(g.targets, 0, 32), Row(p->targets, 2, 32));
  EXPECT_EQ(Row(g.inputs_position, 1, 32), Row(p->inputs_position, 0, 32));
}

TEST(PackingTest, RefusesExamplesLongerThanARow) {
  auto p = PackExamples({{Seq(9, 1), Seq(2, 1)}}, 8);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("example 0"), std::string::npos);
  EXPECT_FALSE(PackExamples({{{}, Seq(2, 1)}}, 8).ok());
  EXPECT_FALSE(PackExamples({}, 0).ok());
}

}  // namespace
}  // namespace podbench::translation
