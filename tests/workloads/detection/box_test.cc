// Boxes, SSD anchors, box encoding and anchor matching.
#include <cmath>

#include <gtest/gtest.h>

#include "workloads/detection/anchors.h"
#include "workloads/detection/box.h"
#include "workloads/detection/box_coder.h"
#include "workloads/detection/matching.h"

namespace podbench::detection {
namespace {

TEST(BoxTest, IouOfOverlappingDisjointAndEmptyBoxes) {
  const Box a{0, 0, 10, 10}, b{5, 0, 15, 10};
  EXPECT_DOUBLE_EQ(IntersectionArea(a, b), 50);
  EXPECT_DOUBLE_EQ(Iou(a, b), 50.0 / 150.0);
  EXPECT_DOUBLE_EQ(Iou(a, a), 1.0);
  EXPECT_EQ(Iou(a, Box{10, 0, 20, 10}), 0.0);  // touching edges
  EXPECT_EQ(Iou(a, Box{3, 3, 3, 8}), 0.0);     // empty
  EXPECT_EQ(Box({5, 5, 2, 9}).Area(), 0.0);
  EXPECT_DOUBLE_EQ(Box::FromXywh(1, 2, 3, 4).x1, 4);
  const Box c = Clip(Box{-5, 2, 8, 20}, Box{0, 0, 10, 10});
  EXPECT_EQ(c.x0, 0);
  EXPECT_EQ(c.y1, 10);
}

TEST(AnchorsTest, Ssd300HasTheReferences8732BoxesInItsOrder) {
  const AnchorConfig c = AnchorConfig::Ssd300();
  ASSERT_TRUE(c.Validate().ok());
  EXPECT_EQ(c.NumAnchors(), 8732);
  const int per[] = {4, 6, 6, 6, 4, 4};
  for (int l = 0; l < 6; ++l) EXPECT_EQ(c.PerLocation(l), per[l]);
  EXPECT_EQ(c.LevelOffset(1), 38 * 38 * 4);
  const std::vector<Anchor> a = MakeAnchors(c);
  ASSERT_EQ(a.size(), 8732u);
  // Level 0, first shape (s0 x s0 = 21/300), row 0, column 0: centre 0.5 / 37.5.
  EXPECT_NEAR(a[0].cx, 0.5 / 37.5, 1e-12);
  EXPECT_NEAR(a[0].w, 0.07, 1e-12);
  // Column 1 comes next, then the second shape sqrt(s0 s1).
  EXPECT_NEAR(a[1].cx, 1.5 / 37.5, 1e-12);
  EXPECT_NEAR(a[38 * 38].w, std::sqrt(0.07 * 0.15), 1e-12);
  // Third shape: the wide box of ratio 2; fourth: the tall one.
  const size_t wide = static_cast<size_t>(c.Index(0, 2, 0, 0)), tall = static_cast<size_t>(c.Index(0, 3, 0, 0));
  EXPECT_NEAR(a[wide].w, 0.07 * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(a[wide].h, 0.07 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(a[tall].h, 0.07 * std::sqrt(2.0), 1e-12);
  // The last level's tall box, 0.87 * sqrt(2) high, is clipped to 1.
  EXPECT_EQ(a.back().h, 1.0);
  EXPECT_NEAR(a.back().w, 0.87 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(a.back().cx, 0.5, 1e-12);
  for (const Anchor& x : a) {
    EXPECT_TRUE(x.cx >= 0 && x.cx <= 1 && x.w > 0 && x.w <= 1);
  }
}

TEST(AnchorsTest, BadConfigsAreRefused) {
  AnchorConfig c = AnchorConfig::Ssd300();
  c.scales.pop_back();
  EXPECT_FALSE(c.Validate().ok());
  c = AnchorConfig::Ssd300();
  c.aspect_ratios[2] = {0};
  EXPECT_FALSE(c.Validate().ok());
  EXPECT_FALSE(AnchorConfig{}.Validate().ok());
}

TEST(BoxCoderTest, EncodesWithTheReferenceVariancesAndDecodesBack) {
  const BoxCoder coder;
  const Anchor a{0.5, 0.5, 0.2, 0.4};
  const Box g = Box::FromCenter(0.52, 0.46, 0.3, 0.2);
  const auto t = coder.Encode(g, a);
  EXPECT_NEAR(t[0], 0.02 / 0.2 / 0.1, 1e-6);
  EXPECT_NEAR(t[1], -0.04 / 0.4 / 0.1, 1e-6);
  EXPECT_NEAR(t[2], std::log(1.5) / 0.2, 1e-6);
  EXPECT_NEAR(t[3], std::log(0.5) / 0.2, 1e-6);
  const Box d = coder.Decode(t.data(), a);
  EXPECT_NEAR(d.x0, g.x0, 1e-6);
  EXPECT_NEAR(d.y1, g.y1, 1e-6);
}

TEST(MatchingTest, ThresholdThenEveryBoxGetsItsBestAnchor) {
  const std::vector<Box> anchors = {{0, 0, 10, 10}, {0, 0, 12, 10}, {50, 50, 60, 60}, {80, 80, 90, 90}, {85, 80, 95, 90}};
  const std::vector<Box> truth = {{0, 0, 11, 10}, {52, 52, 58, 58}, {200, 200, 210, 210}};
  const std::vector<int> m = MatchAnchors(anchors, truth, 0.5);
  EXPECT_EQ(m[0], 0);   // IoU 10/11
  EXPECT_EQ(m[1], 0);   // IoU 11/12
  EXPECT_EQ(m[2], 1);   // IoU 0.36 < 0.5, but it is box 1's best anchor
  EXPECT_EQ(m[3], -1);  // overlaps nothing
  EXPECT_EQ(m[4], -1);
  // Box 2 overlaps no anchor: it claims none.
  // An anchor two boxes both prefer goes to the later box.
  const std::vector<Box> two = {{0, 0, 10, 10}, {1, 0, 10, 10}};
  EXPECT_EQ(MatchAnchors({{0, 0, 10, 10}}, two, 0.5)[0], 1);
}

}  // namespace
}  // namespace podbench::detection
