#include "workloads/data/synthetic_images.h"

#include <array>
#include <cmath>

#include <gtest/gtest.h>

namespace podbench::data {
namespace {

TEST(SyntheticImagesTest, DeterministicPerIndexAndLabelsCycle) {
  SyntheticImageSpec spec;
  LabeledImage a = MakeSyntheticImage(spec, 17);
  LabeledImage b = MakeSyntheticImage(spec, 17);
  LabeledImage c = MakeSyntheticImage(spec, 17 + spec.num_classes);
  EXPECT_EQ(a.image.pixels, b.image.pixels);
  EXPECT_EQ(a.label, 17 % spec.num_classes);
  EXPECT_EQ(c.label, a.label);
  EXPECT_NE(a.image.pixels, c.image.pixels);  // same class, different sample
  EXPECT_EQ(a.image.pixels.size(), 32u * 32u * 3u);
}

// Hand-made features: mean colour, orientation energy, frequency (sign
// changes of the luminance along rows and columns).
std::array<double, 7> Features(const Image& img) {
  std::array<double, 7> f{};
  std::vector<double> lum(static_cast<size_t>(img.height * img.width));
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const uint8_t* p = img.row(y) + x * 3;
      for (int c = 0; c < 3; ++c) f[c] += p[c];
      lum[static_cast<size_t>(y * img.width + x)] = 0.3 * p[0] + 0.6 * p[1] + 0.1 * p[2];
    }
  }
  double n = img.height * img.width;
  for (int c = 0; c < 3; ++c) f[c] /= n * 255.0 / 4.0;
  double mean = 0;
  for (double v : lum) mean += v / n;
  double dx = 0, dy = 0, zx = 0, zy = 0;
  for (int y = 1; y < img.height; ++y) {
    for (int x = 1; x < img.width; ++x) {
      double v = lum[static_cast<size_t>(y * img.width + x)];
      double l = lum[static_cast<size_t>(y * img.width + x - 1)];
      double u = lum[static_cast<size_t>((y - 1) * img.width + x)];
      dx += std::fabs(v - l);
      dy += std::fabs(v - u);
      zx += ((v - mean) * (l - mean) < 0);
      zy += ((v - mean) * (u - mean) < 0);
    }
  }
  f[3] = dx / (dx + dy + 1e-9) * 4;
  f[4] = (zx + zy) / n * 4;
  f[5] = std::min(zx, zy) / n * 8;
  f[6] = 0;
  return f;
}

// The classes are separable from simple image statistics: a nearest-centroid
// classifier on seven hand-made features, fitted on 600 images, labels
// 600 others far above chance (1/12 = 0.083; it scores about 0.40, a CNN
// does much better). Pure noise labels would score about 0.083.
TEST(SyntheticImagesTest, ClassesAreLearnable) {
  SyntheticImageSpec spec;
  const int k = spec.num_classes;
  std::vector<std::array<double, 7>> centroid(static_cast<size_t>(k));
  std::vector<int> count(static_cast<size_t>(k));
  for (uint64_t i = 0; i < 600; ++i) {
    LabeledImage li = MakeSyntheticImage(spec, i);
    auto f = Features(li.image);
    for (size_t d = 0; d < f.size(); ++d) centroid[static_cast<size_t>(li.label)][d] += f[d];
    ++count[static_cast<size_t>(li.label)];
  }
  for (int c = 0; c < k; ++c) {
    for (double& v : centroid[static_cast<size_t>(c)]) v /= count[static_cast<size_t>(c)];
  }
  int correct = 0;
  for (uint64_t i = 1000; i < 1600; ++i) {
    LabeledImage li = MakeSyntheticImage(spec, i);
    auto f = Features(li.image);
    int best = 0;
    double best_d = 1e300;
    for (int c = 0; c < k; ++c) {
      double d = 0;
      for (size_t j = 0; j < f.size(); ++j) d += std::pow(f[j] - centroid[static_cast<size_t>(c)][j], 2);
      if (d < best_d) { best_d = d; best = c; }
    }
    correct += best == li.label;
  }
  EXPECT_GT(correct / 600.0, 0.3);
}

}  // namespace
}  // namespace podbench::data
