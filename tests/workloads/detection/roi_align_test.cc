// workloads/detection/roi_align.h: Google's level choice, known answers on a
// linear feature field (bilinear sampling reproduces it exactly inside the
// map, extrapolates it before the near edge and holds the last cell past the
// far one), and the feature gradient against finite differences for 7x7 and
// 14x14 outputs with ROIs on every level 2..6.
#include "workloads/detection/roi_align.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/grad_check.h"

namespace podbench::detection {
namespace {

using kernels::testing::RandomVec;

TEST(RoiLevel, GoogleFormulaClampedToThePyramid) {
  auto square = [](double side) { return Box::FromXywh(10, 20, side, side); };
  EXPECT_EQ(RoiLevel(square(224), 2, 6), 4);
  EXPECT_EQ(RoiLevel(square(223.9), 2, 6), 3);
  EXPECT_EQ(RoiLevel(square(112), 2, 6), 3);
  EXPECT_EQ(RoiLevel(square(111.9), 2, 6), 2);
  EXPECT_EQ(RoiLevel(square(448), 2, 6), 5);
  EXPECT_EQ(RoiLevel(square(896), 2, 6), 6);
  EXPECT_EQ(RoiLevel(square(5000), 2, 6), 6);   // clamped above
  EXPECT_EQ(RoiLevel(square(8), 2, 6), 2);      // clamped below
  EXPECT_EQ(RoiLevel(Box{5, 5, 5, 9}, 2, 6), 2);  // empty
  EXPECT_EQ(RoiLevel(Box::FromXywh(0, 0, 448, 112), 2, 6), 4);  // sqrt(w h) = 224
  EXPECT_EQ(RoiLevel(square(896), 2, 5), 5);
}

TEST(SampleAxis, BinCentresAndGoogleClamping) {
  // 4 bins over [1, 5): centres 1.5, 2.5, 3.5, 4.5; boundary 3.
  const AxisSamples s = SampleAxis(1.0, 4.0, 3, 4);
  EXPECT_EQ(s.lo, (std::vector<std::int64_t>{1, 2, 3, 3}));
  EXPECT_EQ(s.hi, (std::vector<std::int64_t>{2, 3, 3, 3}));
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(s.w_lo[static_cast<size_t>(i)], 0.5f);
    EXPECT_FLOAT_EQ(s.w_hi[static_cast<size_t>(i)], 0.5f);
  }
  // Before the near edge: lo clamps to 0, the weight runs past 1.
  const AxisSamples n = SampleAxis(-1.0, 1.0, 3, 1);  // centre -0.5
  EXPECT_EQ(n.lo[0], 0);
  EXPECT_EQ(n.hi[0], 1);
  EXPECT_FLOAT_EQ(n.w_lo[0], 1.5f);
  EXPECT_FLOAT_EQ(n.w_hi[0], -0.5f);
}

// f(y, x, ch) = 0.5 y + 2 x + ch at cell (y, x).
std::vector<float> LinearField(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
  std::vector<float> f(static_cast<size_t>(n * h * w * c));
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t y = 0; y < h; ++y)
      for (std::int64_t x = 0; x < w; ++x)
        for (std::int64_t ch = 0; ch < c; ++ch)
          f[static_cast<size_t>(((b * h + y) * w + x) * c + ch)] = float(0.5 * y + 2.0 * x + ch + 100.0 * b);
  return f;
}

TEST(CropAndResize, LinearFieldExtrapolatesBeforeAndHoldsPastTheEdges) {
  const std::int64_t h = 4, w = 4, c = 1;
  const std::vector<float> f = LinearField(1, h, w, c);
  std::vector<float> out(2 * 2);
  // y from -2 to 6 (centres 0 and 4), x from -1 to 1 (centres -0.5 and 0.5).
  CropAndResize(f.data(), h, w, c, -2.0, -1.0, 8.0, 2.0, 2, out.data());
  EXPECT_FLOAT_EQ(out[0], float(0.5 * 0 + 2.0 * -0.5));  // x extrapolated linearly
  EXPECT_FLOAT_EQ(out[1], float(0.5 * 0 + 2.0 * 0.5));
  EXPECT_FLOAT_EQ(out[2], float(0.5 * 3 + 2.0 * -0.5));  // y = 4 holds row 3
  EXPECT_FLOAT_EQ(out[3], float(0.5 * 3 + 2.0 * 0.5));
}

// A 1024 x 1024 image's pyramid, levels 2..6 (256 ... 16 cells).
FeaturePyramid Pyramid(std::int64_t n, std::int64_t c, std::int64_t image = 1024) {
  FeaturePyramid p;
  p.min_level = 2;
  p.n = n;
  p.c = c;
  for (int level = 2; level <= 6; ++level) {
    p.heights.push_back(image >> level);
    p.widths.push_back(image >> level);
  }
  return p;
}

TEST(MultilevelRoiAlign, LinearFieldKnownAnswersOnEveryLevel) {
  const FeaturePyramid p = Pyramid(2, 3);
  std::vector<std::vector<float>> maps;
  for (int k = 0; k < p.levels(); ++k)
    maps.push_back(LinearField(p.n, p.heights[static_cast<size_t>(k)], p.widths[static_cast<size_t>(k)], p.c));
  const std::vector<const float*> levels = {maps[0].data(), maps[1].data(), maps[2].data(), maps[3].data(),
                                            maps[4].data()};
  // One ROI per level (sides 60, 150, 300, 600, 900 px), inside the map.
  const std::vector<Roi> rois = {{0, Box::FromXywh(40, 60, 60, 60)},
                                 {1, Box::FromXywh(100, 80, 150, 150)},
                                 {0, Box::FromXywh(200, 40, 300, 300)},
                                 {1, Box::FromXywh(96, 160, 600, 600)},
                                 {0, Box::FromXywh(50, 70, 900, 900)}};
  for (int size : {7, 14}) {
    std::vector<float> out(rois.size() * static_cast<size_t>(size * size * p.c));
    ASSERT_TRUE(MultilevelRoiAlign(p, levels, rois, size, out.data()).ok());
    for (size_t r = 0; r < rois.size(); ++r) {
      const int level = RoiLevel(rois[r].box, 2, 6);
      EXPECT_EQ(level, 2 + static_cast<int>(r));
      const double s = std::ldexp(1.0, -level);
      const Box& b = rois[r].box;
      for (int i = 0; i < size; ++i)
        for (int j = 0; j < size; ++j)
          for (std::int64_t ch = 0; ch < p.c; ++ch) {
            const double y = b.y0 * s + (i + 0.5) * b.height() * s / size;
            const double x = b.x0 * s + (j + 0.5) * b.width() * s / size;
            const double want = 0.5 * y + 2.0 * x + double(ch) + 100.0 * rois[r].image;
            const size_t at = ((r * size + static_cast<size_t>(i)) * size + static_cast<size_t>(j)) * 3 +
                              static_cast<size_t>(ch);
            ASSERT_NEAR(out[at], want, 1e-3) << "size " << size << " roi " << r << " bin " << i << "," << j;
          }
    }
  }
}

TEST(MultilevelRoiAlign, BadInputsAreNamed) {
  const FeaturePyramid p = Pyramid(1, 1, 64);
  std::vector<std::vector<float>> maps;
  for (int k = 0; k < p.levels(); ++k) maps.emplace_back(static_cast<size_t>(p.LevelElems(k)), 0.0f);
  std::vector<const float*> levels;
  for (auto& m : maps) levels.push_back(m.data());
  std::vector<float> out(49);
  std::vector<Roi> rois = {{1, Box::FromXywh(0, 0, 8, 8)}};
  Status s = MultilevelRoiAlign(p, levels, rois, 7, out.data());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("image 1"), std::string::npos) << s.message();
  rois[0] = {0, Box{0, 0, NAN, 3}};
  EXPECT_FALSE(MultilevelRoiAlign(p, levels, rois, 7, out.data()).ok());
  rois[0] = {0, Box::FromXywh(0, 0, 8, 8)};
  EXPECT_FALSE(MultilevelRoiAlign(p, levels, rois, 0, out.data()).ok());
  levels.pop_back();
  s = MultilevelRoiAlign(p, levels, rois, 7, out.data());
  EXPECT_NE(s.message().find("4 level buffers"), std::string::npos) << s.message();
  FeaturePyramid bad = p;
  bad.widths.pop_back();
  EXPECT_FALSE(bad.Validate().ok());
  bad = p;
  bad.heights[1] = 0;
  EXPECT_NE(bad.Validate().message().find("level 3"), std::string::npos) << bad.Validate().message();
}

// The analytic gradient of <r, out> against central differences, at every
// feature the ROIs read (and some they do not), for ROIs on levels 2..6,
// partly outside the map included.
void CheckGradient(int size) {
  const FeaturePyramid p = Pyramid(2, 2, 512);  // levels 128 ... 8 cells
  std::vector<std::vector<float>> maps;
  for (int k = 0; k < p.levels(); ++k) maps.push_back(RandomVec(static_cast<size_t>(p.LevelElems(k)), 10u + k));
  std::vector<const float*> levels;
  for (auto& m : maps) levels.push_back(m.data());
  const std::vector<Roi> rois = {{0, Box::FromXywh(13.3, 17.9, 50.2, 70.6)},    // level 2
                                 {1, Box::FromXywh(100.5, 30.25, 130, 170)},    // level 3
                                 {0, Box::FromXywh(-20.5, 200.7, 260, 300)},    // level 4, partly outside
                                 {1, Box::FromXywh(40.1, 60.3, 470.4, 430.2)},  // level 5
                                 {0, Box::FromXywh(-100, -50, 950, 990)}};      // level 6, past every edge
  std::set<int> used;
  for (const Roi& r : rois) used.insert(RoiLevel(r.box, 2, 6));
  ASSERT_EQ(used, (std::set<int>{2, 3, 4, 5, 6}));
  const size_t nout = rois.size() * static_cast<size_t>(size * size * p.c);
  const std::vector<float> r = RandomVec(nout, 99);
  auto loss = [&] {
    std::vector<float> out(nout);
    EXPECT_TRUE(MultilevelRoiAlign(p, levels, rois, size, out.data()).ok());
    return kernels::testing::Dot(r, out);
  };
  std::vector<std::vector<float>> grads;
  for (int k = 0; k < p.levels(); ++k) grads.emplace_back(maps[static_cast<size_t>(k)].size(), 0.0f);
  std::vector<float*> dlevels;
  for (auto& g : grads) dlevels.push_back(g.data());
  ASSERT_TRUE(MultilevelRoiAlignBackward(p, dlevels, rois, size, r.data()).ok());
  const double eps = 1e-2;
  for (int k = 0; k < p.levels(); ++k) {
    std::vector<float>& x = maps[static_cast<size_t>(k)];
    const std::vector<float>& g = grads[static_cast<size_t>(k)];
    std::vector<size_t> probe;
    for (size_t i = 0; i < x.size() && probe.size() < 40; ++i)
      if (g[i] != 0.0f) probe.push_back(i);
    ASSERT_FALSE(probe.empty()) << "level " << k + 2 << " got no gradient";
    for (size_t i = 0; i < x.size(); i += x.size() / 8) probe.push_back(i);
    kernels::testing::ExpectGradientMatchesAt(x, g, loss, probe, "level " + std::to_string(k + 2), eps, 1e-3);
  }
}

TEST(MultilevelRoiAlign, GradientMatchesFiniteDifferences7x7) { CheckGradient(7); }
TEST(MultilevelRoiAlign, GradientMatchesFiniteDifferences14x14) { CheckGradient(14); }

TEST(MultilevelRoiAlign, BackwardAccumulates) {
  const FeaturePyramid p = Pyramid(1, 1, 64);
  std::vector<std::vector<float>> grads;
  for (int k = 0; k < p.levels(); ++k) grads.emplace_back(static_cast<size_t>(p.LevelElems(k)), 1.0f);
  std::vector<float*> dlevels;
  for (auto& g : grads) dlevels.push_back(g.data());
  const std::vector<Roi> rois = {{0, Box::FromXywh(4, 4, 8, 8)}};  // level 2, 16 x 16 cells
  const std::vector<float> dout(49, 1.0f);
  ASSERT_TRUE(MultilevelRoiAlignBackward(p, dlevels, rois, 7, dout.data()).ok());
  double total = 0;
  for (float v : grads[0]) total += v;
  // Each bin's four weights sum to 1: 49 added to the 256 ones already there.
  EXPECT_NEAR(total, 256 + 49, 1e-4);
}

}  // namespace
}  // namespace podbench::detection
