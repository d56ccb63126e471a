// kernels/conv/deconv2d.h: the transposed convolution against a direct loop
// written from its definition (every input pixel scatters filter x value
// into the output window it maps to), and its backward passes against finite
// differences, at the mask head's 2x2 stride 2 and a padded 3x3 stride 2.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/conv/deconv2d.h"
#include "tests/kernels/grad_check.h"

namespace podbench::kernels {
namespace {

using testing::Dot;
using testing::ExpectGradientMatches;
using testing::RandomVec;

// y[b, i*stride - pad + a, j*stride - pad + e, o] += x[b, i, j, c] * f[a, e, o, c].
std::vector<float> ScatterRef(const Deconv2dShape& s, const std::vector<float>& x, const std::vector<float>& f) {
  const std::int64_t oh = s.OutH(), ow = s.OutW();
  std::vector<double> y(static_cast<size_t>(s.n * oh * ow * s.oc), 0.0);
  for (std::int64_t b = 0; b < s.n; ++b)
    for (std::int64_t i = 0; i < s.h; ++i)
      for (std::int64_t j = 0; j < s.w; ++j)
        for (std::int64_t a = 0; a < s.kh; ++a)
          for (std::int64_t e = 0; e < s.kw; ++e) {
            const std::int64_t yi = i * s.stride - s.pad + a, yj = j * s.stride - s.pad + e;
            if (yi < 0 || yi >= oh || yj < 0 || yj >= ow) continue;
            for (std::int64_t o = 0; o < s.oc; ++o)
              for (std::int64_t c = 0; c < s.c; ++c)
                y[static_cast<size_t>(((b * oh + yi) * ow + yj) * s.oc + o)] +=
                    double(x[static_cast<size_t>(((b * s.h + i) * s.w + j) * s.c + c)]) *
                    f[static_cast<size_t>(((a * s.kw + e) * s.oc + o) * s.c + c)];
          }
  return std::vector<float>(y.begin(), y.end());
}

Deconv2dShape Padded3x3() {
  Deconv2dShape s;
  s.n = 2;
  s.h = 4;
  s.w = 3;
  s.c = 3;
  s.oc = 2;
  s.kh = s.kw = 3;
  s.stride = 2;
  s.pad = 1;
  return s;
}

TEST(Deconv2d, MaskHeadShapeDoublesTheSide) {
  const Deconv2dShape s = MaskHeadDeconv(3, 14, 14, 256, 256);
  EXPECT_TRUE(s.Valid());
  EXPECT_EQ(s.OutH(), 28);
  EXPECT_EQ(s.OutW(), 28);
  const Conv2dShape cs = s.ConvShape();
  EXPECT_EQ(cs.h, 28);
  EXPECT_EQ(cs.c, 256);
  EXPECT_EQ(cs.OutH(), 14);
}

TEST(Deconv2d, InvalidShapes) {
  Deconv2dShape s = MaskHeadDeconv(1, 2, 2, 1, 1);
  s.pad = 2;  // output (2-1)*2+2-4 = 0
  EXPECT_FALSE(s.Valid());
  s = MaskHeadDeconv(1, 2, 2, 1, 1);
  s.stride = 0;
  EXPECT_FALSE(s.Valid());
}

TEST(Deconv2d, KnownAnswerOnePixel) {
  // One input pixel, one channel: the output is the 2x2 filter times it.
  const Deconv2dShape s = MaskHeadDeconv(1, 1, 1, 1, 1);
  const std::vector<float> x = {2.0f}, f = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> y(4);
  Deconv2dForward(s, x.data(), f.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{2.0f, 4.0f, 6.0f, 8.0f}));
}

void CheckAgainstReferenceAndGradients(const Deconv2dShape& s) {
  ASSERT_TRUE(s.Valid());
  std::vector<float> x = RandomVec(static_cast<size_t>(s.n * s.h * s.w * s.c), 1);
  std::vector<float> f = RandomVec(static_cast<size_t>(s.kh * s.kw * s.oc * s.c), 2);
  const size_t ny = static_cast<size_t>(s.n * s.OutH() * s.OutW() * s.oc);
  const std::vector<float> r = RandomVec(ny, 3);  // loss = <r, y>
  std::vector<float> y(ny);
  Deconv2dForward(s, x.data(), f.data(), y.data(), Precision::kF32, 1);
  const std::vector<float> ref = ScatterRef(s, x, f);
  for (size_t i = 0; i < ny; ++i) ASSERT_NEAR(y[i], ref[i], 1e-5) << i;

  std::vector<float> dx(x.size()), df(f.size());
  Deconv2dBackwardData(s, r.data(), f.data(), dx.data(), Precision::kF32, 1);
  Deconv2dBackwardFilter(s, x.data(), r.data(), df.data(), Precision::kF32, 1);
  auto loss = [&] {
    std::vector<float> yy(ny);
    Deconv2dForward(s, x.data(), f.data(), yy.data(), Precision::kF32, 1);
    return Dot(r, yy);
  };
  ExpectGradientMatches(x, dx, loss, "dx", 1e-2, 1e-3, 64);
  ExpectGradientMatches(f, df, loss, "dfilter", 1e-2, 1e-3, 64);
}

TEST(Deconv2d, MaskHeadMatchesScatterAndFiniteDifferences) {
  CheckAgainstReferenceAndGradients(MaskHeadDeconv(2, 5, 4, 6, 5));
}

TEST(Deconv2d, PaddedStridedMatchesScatterAndFiniteDifferences) {
  CheckAgainstReferenceAndGradients(Padded3x3());
}

TEST(Deconv2d, Bf16RunsTheMxuContract) {
  // Under bf16 the result equals the fp32 deconvolution of bf16-rounded
  // operands within fp32 accumulation error.
  const Deconv2dShape s = MaskHeadDeconv(1, 3, 3, 8, 4);
  std::vector<float> x = RandomVec(static_cast<size_t>(s.n * s.h * s.w * s.c), 4);
  std::vector<float> f = RandomVec(static_cast<size_t>(s.kh * s.kw * s.oc * s.c), 5);
  std::vector<float> y(static_cast<size_t>(s.n * s.OutH() * s.OutW() * s.oc));
  Deconv2dForward(s, x.data(), f.data(), y.data(), Precision::kBf16, 1);
  for (float& v : x) v = RoundToBf16(v);
  for (float& v : f) v = RoundToBf16(v);
  const std::vector<float> ref = ScatterRef(s, x, f);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], ref[i], 1e-5) << i;
}

}  // namespace
}  // namespace podbench::kernels
