// workloads/detection/mask_loss.h: mask targets cropped from a padded 112 x
// 112 ground-truth mask (known answers where the bin centres fall on cells),
// and the per-class sigmoid cross entropy: known answers, its normalisation
// over masked ROIs, and its gradient against finite differences.
#include "workloads/detection/mask_loss.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/grad_check.h"

namespace podbench::detection {
namespace {

constexpr int kG = 112, kP = kG + 4, kS = 28;

// A random binary G x G mask in a zero border of 2.
std::vector<float> PaddedMask(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> m(kP * kP, 0.0f);
  for (int y = 0; y < kG; ++y)
    for (int x = 0; x < kG; ++x) m[static_cast<size_t>((y + 2) * kP + x + 2)] = float(rng() % 2);
  return m;
}

float At(const std::vector<float>& padded, int y, int x) { return padded[static_cast<size_t>(y * kP + x)]; }

TEST(MaskTarget, RoiEqualToTheGtBoxSamplesEveryFourthCell) {
  const std::vector<float> m = PaddedMask(1);
  const Box gt = Box::FromXywh(30, 40, 56, 84);
  std::vector<float> t(kS * kS);
  ASSERT_TRUE(MaskTarget(m.data(), kP, gt, gt, kS, t.data()).ok());
  // Bin centre (i + 0.5) * 112 / 28 + 2 = 4 i + 4 to within the 1e-8 epsilon: the cell itself.
  for (int i = 0; i < kS; ++i)
    for (int j = 0; j < kS; ++j) ASSERT_EQ(t[static_cast<size_t>(i * kS + j)], At(m, 4 * i + 4, 4 * j + 4)) << i << "," << j;
}

TEST(MaskTarget, LeftHalfRoiAndOutsideRoi) {
  const std::vector<float> m = PaddedMask(2);
  const Box gt = Box::FromXywh(10, 10, 112, 112);
  std::vector<float> t(kS * kS);
  // The left half: x centres (j + 0.5) * 56 / 28 + 2 = 2 j + 3.
  ASSERT_TRUE(MaskTarget(m.data(), kP, gt, Box::FromXywh(10, 10, 56, 112), kS, t.data()).ok());
  for (int i = 0; i < kS; ++i)
    for (int j = 0; j < kS; ++j) ASSERT_EQ(t[static_cast<size_t>(i * kS + j)], At(m, 4 * i + 4, 2 * j + 3)) << i << "," << j;
  // An ROI wholly right of the gt box reads the zero border.
  ASSERT_TRUE(MaskTarget(m.data(), kP, gt, Box::FromXywh(200, 10, 50, 50), kS, t.data()).ok());
  for (float v : t) ASSERT_EQ(v, 0.0f);
}

TEST(MaskTarget, BinarisesAtOneHalf) {
  // A 2 x 2 mask (padded 6 x 6) whose right column (cell 3) is 1: a 4-bin
  // target over the box samples x at 2.25, 2.75, 3.25, 3.75, which read
  // 0.25, 0.75, 0.75, 0.25 of it (cells 2 and 4 are 0): binarised 0 1 1 0.
  std::vector<float> m(36, 0.0f);
  m[2 * 6 + 3] = m[3 * 6 + 3] = 1.0f;
  std::vector<float> t(16);
  const Box gt = Box::FromXywh(0, 0, 2, 2);
  ASSERT_TRUE(MaskTarget(m.data(), 6, gt, gt, 4, t.data()).ok());
  EXPECT_EQ(std::vector<float>(t.begin() + 4, t.begin() + 8), (std::vector<float>{0, 1, 1, 0}));
}

TEST(MaskTarget, BadInputsAreNamed) {
  std::vector<float> m(16, 0.0f), t(4);
  const Box b = Box::FromXywh(0, 0, 4, 4);
  EXPECT_NE(MaskTarget(m.data(), 4, b, b, 2, t.data()).message().find("padded gt mask"), std::string::npos);
  EXPECT_FALSE(MaskTarget(m.data(), 6, b, b, 0, t.data()).ok());
  EXPECT_NE(MaskTarget(m.data(), 6, b, Box{0, 0, INFINITY, 1}, 2, t.data()).message().find("ROI"),
            std::string::npos);
}

// f(y, x) = 10 y + x on a 5 x 5 mask.
std::vector<float> Field5() {
  std::vector<float> m(25);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x) m[static_cast<size_t>(y * 5 + x)] = float(10 * y + x);
  return m;
}

TEST(CropGtMask, TensorFlowCropAndResizeInsideAZeroBorder) {
  const std::vector<float> m = Field5();
  // The whole 5 x 5 image at gt_size 5: output (i, j) reads cell (i, j).
  std::vector<float> p(9 * 9, -1.0f);
  ASSERT_TRUE(CropGtMask(m.data(), 5, 5, Box{0, 0, 5, 5}, 5, p.data()).ok());
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      const bool inside = i >= 2 && i < 7 && j >= 2 && j < 7;
      ASSERT_EQ(p[static_cast<size_t>(i * 9 + j)], inside ? float(10 * (i - 2) + (j - 2)) : 0.0f) << i << "," << j;
    }
  // The top-left half box: rows and columns at 0, 0.5, ..., 2 (bilinear on a
  // linear field is exact).
  ASSERT_TRUE(CropGtMask(m.data(), 5, 5, Box{0, 0, 2.5, 2.5}, 5, p.data()).ok());
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) ASSERT_FLOAT_EQ(p[static_cast<size_t>((i + 2) * 9 + j + 2)], float(5 * i + 0.5 * j));
  // A box twice the image's width: columns 0, 2, 4, 6, 8; past 4 is 0.
  ASSERT_TRUE(CropGtMask(m.data(), 5, 5, Box{0, 0, 10, 5}, 5, p.data()).ok());
  EXPECT_FLOAT_EQ(p[2 * 9 + 2 + 2], 4.0f);
  EXPECT_EQ(p[2 * 9 + 2 + 3], 0.0f);
  EXPECT_EQ(p[2 * 9 + 2 + 4], 0.0f);
  EXPECT_FALSE(CropGtMask(m.data(), 0, 5, Box{0, 0, 1, 1}, 5, p.data()).ok());
  EXPECT_NE(CropGtMask(m.data(), 5, 5, Box{0, 0, 1, 1}, 0, p.data()).message().find("gt_size"), std::string::npos);
}

TEST(MaskTarget, FromAnImageMaskThroughItsPaddedCrop) {
  // A 64 x 64 image whose instance fills [16, 48) x [8, 40): cropped over its
  // own box to 112 x 112 it is all 1, so an ROI inside the box has an all-1
  // target and one half outside it a half-1 one.
  std::vector<float> image(64 * 64, 0.0f);
  for (int y = 8; y < 40; ++y)
    for (int x = 16; x < 48; ++x) image[static_cast<size_t>(y * 64 + x)] = 1.0f;
  const Box gt{16, 8, 48, 40};
  std::vector<float> padded(kP * kP), t(kS * kS);
  ASSERT_TRUE(CropGtMask(image.data(), 64, 64, gt, kG, padded.data()).ok());
  ASSERT_TRUE(MaskTarget(padded.data(), kP, gt, Box{20, 12, 40, 30}, kS, t.data()).ok());
  for (float v : t) ASSERT_EQ(v, 1.0f);
  ASSERT_TRUE(MaskTarget(padded.data(), kP, gt, Box{32, 8, 64, 40}, kS, t.data()).ok());
  int ones = 0;
  for (float v : t) ones += v == 1.0f;
  EXPECT_EQ(ones, kS * kS / 2);
}

TEST(MaskLoss, KnownAnswersScoreOnlyTheRoiClassOfMaskedRois) {
  // 3 ROIs, S = 2, 3 classes; ROI 1 is not a mask ROI (class 0).
  MaskLossShape s{3, 2, 3};
  std::vector<float> logits(3 * 4 * 3, 50.0f);  // huge on every channel ...
  for (int p = 0; p < 4; ++p) {
    logits[static_cast<size_t>((0 * 4 + p) * 3 + 2)] = 0.0f;  // ... but ROI 0's class 2
    logits[static_cast<size_t>((2 * 4 + p) * 3 + 1)] = 0.0f;  // and ROI 2's class 1
  }
  const std::vector<float> targets(12, 1.0f);
  std::vector<int> cls = {2, 0, 1};
  std::vector<float> d(logits.size());
  Result<double> l = MaskLoss(s, logits.data(), targets.data(), cls, d.data());
  ASSERT_TRUE(l.ok());
  EXPECT_NEAR(l.value(), std::log(2.0), 1e-12);  // every scored logit is 0
  // d = (sigmoid(0) - 1) / (2 ROIs x 4 pixels) on the scored channels only.
  for (size_t i = 0; i < d.size(); ++i) {
    const bool scored = (i < 12 && i % 3 == 2) || (i >= 24 && i % 3 == 1);
    EXPECT_FLOAT_EQ(d[i], scored ? -0.5f / 8 : 0.0f) << i;
  }
  // A confident right answer costs ~0, a confident wrong one ~|logit|.
  std::vector<float> z1(4, 1.0f), z0(4, 0.0f);
  std::vector<int> c1 = {1};
  EXPECT_NEAR(MaskLoss({1, 2, 2}, std::vector<float>(8, 20.0f).data(), z1.data(), c1, nullptr).value(), 0.0, 1e-8);
  EXPECT_NEAR(MaskLoss({1, 2, 2}, std::vector<float>(8, 20.0f).data(), z0.data(), c1, nullptr).value(), 20.0, 1e-6);
}

TEST(MaskLoss, NoMaskedRoiIsZeroWithZeroGradient) {
  std::vector<float> logits(2 * 4 * 2, 3.0f), targets(8, 1.0f), d(16, 7.0f);
  std::vector<int> cls = {0, 0};
  Result<double> l = MaskLoss({2, 2, 2}, logits.data(), targets.data(), cls, d.data());
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l.value(), 0.0);
  for (float v : d) EXPECT_EQ(v, 0.0f);
}

TEST(MaskLoss, BadInputsAreNamed) {
  std::vector<float> logits(16), targets(8);
  std::vector<int> cls = {0, 2};
  Result<double> l = MaskLoss({2, 2, 2}, logits.data(), targets.data(), cls, nullptr);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("ROI 1 has class 2"), std::string::npos) << l.status().message();
  std::vector<int> short_cls = {1};
  EXPECT_FALSE(MaskLoss({2, 2, 2}, logits.data(), targets.data(), short_cls, nullptr).ok());
  EXPECT_FALSE(MaskLoss({2, 0, 2}, logits.data(), targets.data(), cls, nullptr).ok());
}

TEST(MaskLoss, GradientMatchesFiniteDifferences) {
  const MaskLossShape s{5, 28, 4};
  std::vector<float> logits = kernels::testing::RandomVec(static_cast<size_t>(5 * 28 * 28 * 4), 7, -4, 4);
  std::vector<float> targets(5 * 28 * 28);
  const std::vector<float> pad = PaddedMask(3);
  const Box gt = Box::FromXywh(0, 0, 100, 80);
  for (int r = 0; r < 5; ++r)  // targets from shifted ROIs over one gt mask
    ASSERT_TRUE(MaskTarget(pad.data(), kP, gt, Box::FromXywh(5.0 * r, 3.0 * r, 90, 70), kS,
                           targets.data() + r * kS * kS).ok());
  const std::vector<int> cls = {1, 0, 3, 2, 3};
  std::vector<float> d(logits.size());
  ASSERT_TRUE(MaskLoss(s, logits.data(), targets.data(), cls, d.data()).ok());
  auto loss = [&] { return MaskLoss(s, logits.data(), targets.data(), cls, nullptr).value(); };
  kernels::testing::ExpectGradientMatches(logits, d, loss, "dlogits", 1e-2, 1e-3, 200);
  // The sampled coordinates above stride over every channel; check the
  // scored ones of each masked ROI too.
  for (int r : {0, 2, 3, 4}) {
    const size_t at = (static_cast<size_t>(r) * 784 + 391) * 4 + static_cast<size_t>(cls[static_cast<size_t>(r)]);
    const float keep = logits[at];
    logits[at] = keep + 1e-2f;
    const double up = loss();
    logits[at] = keep - 1e-2f;
    const double down = loss();
    logits[at] = keep;
    EXPECT_NEAR(d[at], (up - down) / 2e-2, 1e-3 * std::abs(d[at]) + 1e-9) << "roi " << r;
  }
}

}  // namespace
}  // namespace podbench::detection
