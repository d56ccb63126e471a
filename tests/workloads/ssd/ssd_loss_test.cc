// The SSD loss: hand-computed values, mining, and its gradient against
// finite differences.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "workloads/ssd/ssd_loss.h"

namespace podbench::ssd {
namespace {

TEST(SsdLossTest, HandComputedSmoothL1CrossEntropyAndMining) {
  // 4 anchors, 2 classes (background + 1), width 6.
  const std::vector<float> pred = {
      0, 0, 0.5f, -2, 0, 0,  // positive: logits equal -> CE log 2; offsets 0.5 and -2 from 0
      2, 0, 0, 0, 0, 0,      // easy negative: CE log(1 + e^-2)
      0, 3, 0, 0, 0, 0,      // hard negative: CE log(1 + e^3)
      0, 1, 0, 0, 0, 0,      // negative: CE log(1 + e)
  };
  const std::vector<int32_t> labels = {1, 0, 0, 0};
  const std::vector<float> targets(16, 0.f);
  std::vector<float> d(24);
  const SsdLossParts r = SsdImageLoss(pred.data(), 6, 2, labels.data(), targets.data(), 4, 1, 1.f, d.data());
  EXPECT_EQ(r.positives, 1);
  EXPECT_EQ(r.negatives, 1);  // 1 x positives: the hardest one only
  const double box = 0.5 * 0.25 + (2 - 0.5);
  const double cls = std::log(2.0) + std::log(1 + std::exp(3.0));
  EXPECT_NEAR(r.box, box, 1e-9);
  EXPECT_NEAR(r.cls, cls, 1e-6);
  EXPECT_NEAR(r.loss, box + cls, 1e-6);
  EXPECT_FLOAT_EQ(d[2], 0.5f);   // smooth L1 slope inside |x| < 1
  EXPECT_FLOAT_EQ(d[3], -1.f);   // and its sign outside
  EXPECT_FLOAT_EQ(d[0], 0.5f);   // softmax 0.5 - 0 for the background logit
  EXPECT_EQ(d[6], 0.f);          // the easy negative is not mined
  EXPECT_NEAR(d[13], 1 / (1 + std::exp(-3.0)), 1e-6);
  // Three negatives per positive takes all three.
  EXPECT_EQ(SsdImageLoss(pred.data(), 6, 2, labels.data(), targets.data(), 4, 3, 1.f, nullptr).negatives, 3);
  // No positive: no loss.
  const std::vector<int32_t> none = {0, 0, 0, 0};
  EXPECT_EQ(SsdImageLoss(pred.data(), 6, 2, none.data(), targets.data(), 4, 3, 1.f, d.data()).loss, 0.0);
}

TEST(SsdLossTest, GradientMatchesFiniteDifferences) {
  std::mt19937 rng(5);
  std::normal_distribution<float> n(0.f, 1.f);
  const int A = 30, C = 4, W = C + 4;
  std::vector<float> pred(A * W), targets(A * 4);
  std::vector<int32_t> labels(A, 0);
  for (auto& v : pred) v = n(rng);
  for (auto& v : targets) v = n(rng);
  for (int a = 0; a < A; a += 7) labels[static_cast<size_t>(a)] = 1 + a % (C - 1);
  std::vector<float> d(pred.size());
  const float scale = 0.25f;
  SsdImageLoss(pred.data(), W, C, labels.data(), targets.data(), A, 3, scale, d.data());
  for (size_t i = 0; i < pred.size(); ++i) {
    const float keep = pred[i], h = 1e-3f;
    pred[i] = keep + h;
    const double up = SsdImageLoss(pred.data(), W, C, labels.data(), targets.data(), A, 3, scale, nullptr).loss;
    pred[i] = keep - h;
    const double down = SsdImageLoss(pred.data(), W, C, labels.data(), targets.data(), A, 3, scale, nullptr).loss;
    pred[i] = keep;
    EXPECT_NEAR(d[i], scale * (up - down) / (2 * h), 2e-3) << "element " << i;
  }
}

}  // namespace
}  // namespace podbench::ssd
