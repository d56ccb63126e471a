// Masks as COCO handles them, without fixtures: hand-made RLEs, strings and
// polygons, and every error path naming its input.
#include <cmath>

#include <gtest/gtest.h>

#include "workloads/detection/coco_eval.h"
#include "workloads/detection/coco_segmentation.h"
#include "workloads/detection/mask_polygon.h"
#include "workloads/detection/mask_rle.h"
#include "workloads/detection/mask_rle_string.h"

namespace podbench::detection {
namespace {

bool Mentions(const Status& s, const std::string& what) { return s.message().find(what) != std::string::npos; }

// A 4x3 mask (h 4, w 3), row-major:
//   0 1 0
//   1 1 0
//   1 0 0
//   0 0 1
// column-major: 0 1 1 0 | 1 1 0 0 | 0 0 0 1 -> counts 1 2 1 2 5 1.
const std::vector<uint8_t> kPixels = {0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1};

TEST(MaskRleTest, EncodesColumnMajorStartingWithZeros) {
  const Rle r = EncodeMask(4, 3, kPixels);
  EXPECT_EQ(r.counts, (std::vector<uint32_t>{1, 2, 1, 2, 5, 1}));
  EXPECT_EQ(DecodeMask(r), kPixels);
  EXPECT_EQ(MaskArea(r), 5u);
  EXPECT_EQ(MaskBox(r), (std::array<double, 4>{0, 0, 3, 4}));
  std::vector<uint8_t> first(12, 0);
  first[0] = 1;
  EXPECT_EQ(EncodeMask(4, 3, first).counts, (std::vector<uint32_t>{0, 1, 11}));
  EXPECT_EQ(EncodeMask(4, 3, std::vector<uint8_t>(12, 0)).counts, (std::vector<uint32_t>{12}));
  EXPECT_EQ(MaskBox(EncodeMask(4, 3, std::vector<uint8_t>(12, 0))), (std::array<double, 4>{0, 0, 0, 0}));
}

TEST(MaskRleTest, CompressedStringsRoundTripIncludingNegativeDeltas) {
  // Large counts, and counts smaller than the one two before (negative deltas).
  const Rle r{100, 100, {0, 5000, 3, 4000, 1, 995, 1}};
  const std::string s = EncodeRleString(r);
  auto back = DecodeRleString(100, 100, s, "test");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->counts, r.counts);
  // pycocotools' string for an empty 16x16 mask is "P8": 256 = 0x100 in two groups.
  EXPECT_EQ(EncodeRleString(Rle{16, 16, {256}}), "P8");
}

TEST(MaskRleTest, UnionIntersectionAndIou) {
  const Rle a = EncodeMask(4, 3, kPixels);
  std::vector<uint8_t> other(12, 0);
  other[1] = other[4] = other[5] = 1;  // (0,1), (1,1), (1,2)
  const Rle b = EncodeMask(4, 3, other);
  auto u = MergeMasks({a, b}, false);
  auto i = MergeMasks({a, b}, true);
  ASSERT_TRUE(u.ok() && i.ok());
  EXPECT_EQ(MaskArea(*u), 6u);
  EXPECT_EQ(MaskArea(*i), 2u);
  EXPECT_EQ(MaskIntersection(a, b), 2u);
  EXPECT_DOUBLE_EQ(MaskIou(a, b, false), 2.0 / 6.0);
  EXPECT_DOUBLE_EQ(MaskIou(b, a, true), 2.0 / 3.0);  // over the detection's area
  const Rle empty{4, 3, {12}};
  EXPECT_EQ(MaskIou(empty, empty, false), 0.0);
  EXPECT_EQ(MaskIou(empty, a, true), 0.0);
}

TEST(MaskPolygonTest, SquareCoversThePixelCentresInside) {
  // Corners on pixel boundaries: pixels 2..5 in x and y.
  auto r = RasterisePolygon({2, 2, 6, 2, 6, 6, 2, 6}, 8, 8, "square");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(MaskArea(*r), 16u);
  EXPECT_EQ(MaskBox(*r), (std::array<double, 4>{2, 2, 4, 4}));
  // Overlapping parts of one object are united.
  auto two = RasterisePolygons({{2, 2, 6, 2, 6, 6, 2, 6}, {4, 4, 8, 4, 8, 8, 4, 8}}, 8, 8, "two");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(MaskArea(*two), 16u + 16u - 4u);
}

TEST(MaskErrorsTest, BadPolygonsNameTheInput) {
  auto odd = RasterisePolygon({1, 1, 5, 1, 5}, 8, 8, "annotation 7");
  ASSERT_FALSE(odd.ok());
  EXPECT_TRUE(Mentions(odd.status(), "annotation 7") && Mentions(odd.status(), "odd")) << odd.status().message();
  auto two_points = RasterisePolygon({1, 1, 5, 1}, 8, 8, "annotation 7");
  ASSERT_FALSE(two_points.ok());
  EXPECT_TRUE(Mentions(two_points.status(), "fewer than 3")) << two_points.status().message();
  auto nan = RasterisePolygon({1, 1, 5, std::nan(""), 3, 3}, 8, 8, "annotation 7");
  ASSERT_FALSE(nan.ok());
  EXPECT_TRUE(Mentions(nan.status(), "coordinate #3")) << nan.status().message();
  auto second = RasterisePolygons({{1, 1, 5, 1, 3, 3}, {1, 1}}, 8, 8, "annotation 9");
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(Mentions(second.status(), "annotation 9, polygon #1")) << second.status().message();
  EXPECT_FALSE(RasterisePolygons({}, 8, 8, "annotation 9").ok());
}

TEST(MaskErrorsTest, BadRlesNameTheInput) {
  auto sum = MakeRle(4, 4, {3, 4}, "annotation 3");
  ASSERT_FALSE(sum.ok());
  EXPECT_TRUE(Mentions(sum.status(), "annotation 3") && Mentions(sum.status(), "sum to 7") &&
              Mentions(sum.status(), "16"))
      << sum.status().message();
  auto bad_char = DecodeRleString(16, 16, "P8~", "detection #2");
  ASSERT_FALSE(bad_char.ok());
  EXPECT_TRUE(Mentions(bad_char.status(), "detection #2") && Mentions(bad_char.status(), "offset 2"))
      << bad_char.status().message();
  auto truncated = DecodeRleString(16, 16, "P", "detection #2");  // 'P' has the continuation bit
  ASSERT_FALSE(truncated.ok());
  EXPECT_TRUE(Mentions(truncated.status(), "ends inside")) << truncated.status().message();
  auto short_sum = DecodeRleString(16, 16, "0", "detection #2");  // counts [0]
  ASSERT_FALSE(short_sum.ok());
  EXPECT_TRUE(Mentions(short_sum.status(), "sum to 0")) << short_sum.status().message();
  // A negative first count: group 0x1f is -1.
  auto negative = DecodeRleString(16, 16, "O", "detection #2");
  ASSERT_FALSE(negative.ok());
  EXPECT_TRUE(Mentions(negative.status(), "-1")) << negative.status().message();
  auto merge = MergeMasks({Rle{2, 2, {4}}, Rle{3, 2, {6}}}, false);
  ASSERT_FALSE(merge.ok());
  EXPECT_TRUE(Mentions(merge.status(), "mask #1")) << merge.status().message();
  CocoSegmentation wrong_size;
  wrong_size.form = CocoSegmentation::Form::kCounts;
  wrong_size.height = 4;
  wrong_size.width = 4;
  wrong_size.counts = {16};
  auto r = SegmentationToRle(wrong_size, 8, 8, "annotation 5");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Mentions(r.status(), "annotation 5") && Mentions(r.status(), "differs")) << r.status().message();
}

TEST(MaskErrorsTest, TheSegmGeometryRefusesMasksThatDoNotFitTheInput) {
  CocoInput in;
  in.image_ids = {1};
  in.category_ids = {1};
  in.truth.push_back({1, 1, 1, 4, false});
  in.detections.push_back({1, 1, 0.9});
  const Rle a = EncodeMask(4, 3, kPixels);
  {
    CocoMaskGeometry geo({a}, {});  // no mask for the ground truth
    auto r = EvaluateCoco(in, geo);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Mentions(r.status(), "segm geometry")) << r.status().message();
  }
  {
    CocoMaskGeometry geo({Rle{8, 8, {64}}}, {a});  // 8x8 detection on a 4x3 image
    auto r = EvaluateCoco(in, geo);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Mentions(r.status(), "COCO detection #0") && Mentions(r.status(), "image 1"))
        << r.status().message();
  }
  {
    CocoMaskGeometry geo({Rle{4, 3, {5}}}, {a});  // counts short of 12 pixels
    auto r = EvaluateCoco(in, geo);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Mentions(r.status(), "COCO detection #0") && Mentions(r.status(), "sum to 5"))
        << r.status().message();
  }
  {
    CocoMaskGeometry geo({a}, {a});
    auto r = EvaluateCoco(in, geo);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_GT(r->ap(), 0.99);  // area 4 (the field) is small
  }
}

}  // namespace
}  // namespace podbench::detection
