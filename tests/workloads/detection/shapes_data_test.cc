// The generated shapes dataset: deterministic, valid ground truth that
// matches the pixels, varied content.
#include <algorithm>
#include <array>
#include <cstdio>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "base/hash.h"
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

// The bytes of samples 0..n-1 with masks: pixels, then per object its label,
// box, area and mask.
std::string SampleBytes(const ShapesSpec& spec, int n) {
  std::string b;
  for (int i = 0; i < n; ++i) {
    const ShapesImage s = MakeShapesImage(spec, static_cast<uint64_t>(i), /*with_masks=*/true);
    b.append(reinterpret_cast<const char*>(s.image.pixels.data()), s.image.pixels.size());
    for (const ShapeObject& o : s.objects) {
      const double v[6] = {static_cast<double>(o.label), o.box.x0, o.box.y0, o.box.x1, o.box.y1, o.area};
      b.append(reinterpret_cast<const char*>(v), sizeof v);
      b.append(reinterpret_cast<const char*>(o.mask.data()), o.mask.size());
    }
  }
  return b;
}

// The options added for Mask R-CNN leave the defaults' samples (SSD's data)
// byte for byte as they were before them (fingerprints taken then).
TEST(ShapesDataTest, DefaultSamplesAreByteForByteUnchanged) {
  EXPECT_EQ(FingerprintOf(SampleBytes(ShapesSpec{}, 20)), "fnv1a64:b5e09e57e9f9b19b");
  ShapesSpec ssd;  // as SSD's functional mode sets it
  ssd.height = ssd.width = 96;
  ssd.classes = 8;
  ssd.max_objects = 6;
  ssd.min_size = 10;
  ssd.max_size = 72;
  ssd.seed = 20190610;
  EXPECT_EQ(FingerprintOf(SampleBytes(ssd, 20)), "fnv1a64:f1d46a80a13a85ea");
}

// Mask R-CNN's data: an instance mask per object that matches its box and
// area, overlapping objects of every class, all three COCO area ranges.
TEST(ShapesDataTest, SpreadAreaRangesGiveMasksInAllThreeCocoRanges) {
  ShapesSpec spec;
  spec.height = spec.width = 128;
  spec.classes = 8;
  spec.max_objects = 6;
  spec.min_size = 8;
  spec.max_size = 128;
  spec.spread_area_ranges = true;
  ASSERT_TRUE(spec.Validate().ok());
  const size_t npix = 128 * 128;
  std::array<int, 3> in_range{};  // small, medium, large by COCO's limits
  std::set<int> labels;
  int objects = 0, overlapping = 0;
  for (uint64_t i = 0; i < 120; ++i) {
    const ShapesImage s = MakeShapesImage(spec, i, /*with_masks=*/true);
    std::vector<int> owners(npix, 0);
    for (size_t j = 0; j < s.objects.size(); ++j) {
      const ShapeObject& o = s.objects[j];
      ++objects;
      labels.insert(o.label);
      ASSERT_EQ(o.mask.size(), npix);
      int count = 0, x0 = 1 << 20, y0 = 1 << 20, x1 = -1, y1 = -1;
      for (int y = 0; y < 128; ++y) {
        for (int x = 0; x < 128; ++x) {
          const size_t p = static_cast<size_t>(y * 128 + x);
          if (!o.mask[p]) continue;
          ++count;
          ++owners[p];
          x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
        }
      }
      EXPECT_EQ(o.area, count) << "image " << i << " object " << j;  // area = the mask's pixel count
      EXPECT_EQ(o.box.x0, x0);
      EXPECT_EQ(o.box.y0, y0);
      EXPECT_EQ(o.box.x1, x1 + 1);
      EXPECT_EQ(o.box.y1, y1 + 1);
      in_range[o.area < 32 * 32 ? 0 : o.area > 96 * 96 ? 2 : 1] += 1;
      for (size_t k = 0; k < j; ++k) {
        const Box& b = s.objects[k].box;
        overlapping += std::min(o.box.x1, b.x1) > std::max(o.box.x0, b.x0) &&
                       std::min(o.box.y1, b.y1) > std::max(o.box.y0, b.y0);
      }
    }
    EXPECT_LE(*std::max_element(owners.begin(), owners.end()), 1) << "image " << i << ": masks overlap";
  }
  EXPECT_EQ(labels.size(), 8u);
  EXPECT_GT(overlapping, objects / 4);
  for (int r = 0; r < 3; ++r) EXPECT_GT(in_range[static_cast<size_t>(r)], objects / 20) << "area range " << r;
  std::printf("%d objects: %d small, %d medium, %d large; %d overlapping pairs\n", objects, in_range[0], in_range[1],
              in_range[2], overlapping);
  // A pure function of (seed, index), masks included.
  EXPECT_EQ(SampleBytes(spec, 3), SampleBytes(spec, 3));
  ShapesSpec other = spec;
  other.seed = 2;
  EXPECT_NE(SampleBytes(spec, 3), SampleBytes(other, 3));
  EXPECT_NE(MakeShapesImage(spec, 5).image.pixels, MakeShapesImage(spec, 6).image.pixels);
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
  s = ShapesSpec{};
  s.spread_area_ranges = true;  // max_size 36 cannot make large objects
  EXPECT_NE(s.Validate().message().find("spread_area_ranges"), std::string::npos);
  EXPECT_TRUE(ShapesSpec{}.Validate().ok());
  EXPECT_STREQ(ShapeName(5), "ring");
}

}  // namespace
}  // namespace podbench::detection
