// The generated shapes dataset: deterministic, valid ground truth that
// matches the pixels, varied content.
#include <set>

#include <gtest/gtest.h>

#include "workloads/detection/shapes_data.h"

namespace podbench::detection {
namespace {

TEST(ShapesDataTest, SamplesArePureFunctionsOfSeedAndIndex) {
  ShapesSpec spec;
  const ShapesImage a = MakeShapesImage(spec, 17), b = MakeShapesImage(spec, 17), c = MakeShapesImage(spec, 18);
  EXPECT_EQ(a.image.pixels, b.image.pixels);
  ASSERT_EQ(a.objects.size(), b.objects.size());
  EXPECT_NE(a.image.pixels, c.image.pixels);
  spec.seed = 2;
  EXPECT_NE(MakeShapesImage(spec, 17).image.pixels, a.image.pixels);
}

TEST(ShapesDataTest, BoxesAndAreasDescribeTheVisiblePixels) {
  ShapesSpec spec;
  std::set<int> labels;
  int objects = 0, occluded = 0, multi = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    const ShapesImage s = MakeShapesImage(spec, i, /*with_masks=*/true);
    ASSERT_EQ(s.image.pixels.size(), 64u * 64u * 3u);
    ASSERT_GE(s.objects.size(), 1u);
    ASSERT_LE(s.objects.size(), 5u);
    multi += s.objects.size() > 1;
    for (const ShapeObject& o : s.objects) {
      ++objects;
      labels.insert(o.label);
      ASSERT_GE(o.label, 1);
      ASSERT_LE(o.label, spec.classes);
      int count = 0, x0 = 99, y0 = 99, x1 = -1, y1 = -1;
      for (int y = 0; y < 64; ++y) {
        for (int x = 0; x < 64; ++x) {
          if (!o.mask[static_cast<size_t>(y * 64 + x)]) continue;
          ++count;
          x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
        }
      }
      EXPECT_EQ(o.area, count);
      EXPECT_EQ(o.box.x0, x0);
      EXPECT_EQ(o.box.y1, y1 + 1);
      EXPECT_GE(o.box.width(), 3);
      // Visible pixels fill part of the box (rings and frames less).
      EXPECT_LE(o.area, o.box.Area());
      if (o.area < 0.99 * o.box.Area() && (o.label == 2)) ++occluded;  // a filled box partly hidden
    }
  }
  EXPECT_EQ(labels.size(), 6u);
  EXPECT_GT(multi, 100);
  EXPECT_GT(occluded, 3);
  EXPECT_GT(objects, 400);
}

TEST(ShapesDataTest, BadSpecsAreRefused) {
  ShapesSpec s;
  s.classes = 9;
  EXPECT_FALSE(s.Validate().ok());
  s = ShapesSpec{};
  s.max_size = 100;
  EXPECT_FALSE(s.Validate().ok());
  s = ShapesSpec{};
  s.max_occlusion = 1;
  EXPECT_FALSE(s.Validate().ok());
  EXPECT_TRUE(ShapesSpec{}.Validate().ok());
  EXPECT_STREQ(ShapeName(5), "ring");
}

}  // namespace
}  // namespace podbench::detection
