#include "workloads/data/synthetic_images.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace podbench::data {

namespace {
// Eight well-separated palettes (pairs of RGB colours).
constexpr uint8_t kPalettes[8][2][3] = {
    {{230, 40, 40}, {30, 30, 120}},  {{40, 200, 60}, {90, 20, 90}},
    {{240, 220, 60}, {20, 60, 160}}, {{250, 250, 250}, {10, 10, 10}},
    {{255, 140, 0}, {0, 120, 120}},  {{150, 80, 220}, {200, 240, 200}},
    {{120, 70, 30}, {160, 200, 255}}, {{255, 100, 180}, {40, 80, 40}},
};
}  // namespace

int MaxSyntheticClasses(const SyntheticImageSpec& spec) {
  return 3 * spec.bands * std::min(spec.palettes, 8);
}

LabeledImage MakeSyntheticImage(const SyntheticImageSpec& spec, uint64_t index) {
  LabeledImage out;
  out.label = static_cast<int32_t>(index % static_cast<uint64_t>(spec.num_classes));
  int orientation = out.label % 3;
  int band = (out.label / 3) % spec.bands;
  int palette = (out.label / (3 * spec.bands)) % std::min(spec.palettes, 8);

  std::mt19937_64 rng(spec.seed * 0x9E3779B97F4A7C15ull + index);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, spec.noise_stddev);

  // Bands are spaced by 1.6x from 1.5 cycles per image width.
  double cycles = 1.5 * std::pow(1.6, band) * (0.85 + 0.3 * uni(rng));
  double phase = 2 * std::numbers::pi * uni(rng);
  double contrast = 0.6 + 0.4 * uni(rng);
  double brightness = (uni(rng) - 0.5) * 40.0;
  double angle = orientation == 0 ? 0.0 : orientation == 1 ? std::numbers::pi / 2
                 : (uni(rng) < 0.5 ? std::numbers::pi / 4 : 3 * std::numbers::pi / 4);
  double cx = std::cos(angle), cy = std::sin(angle);
  const auto& pal = kPalettes[palette];

  Image& img = out.image;
  img.height = spec.height;
  img.width = spec.width;
  img.channels = 3;
  img.pixels.resize(static_cast<size_t>(img.height) * img.width * 3);
  double k = 2 * std::numbers::pi * cycles / spec.width;
  for (int y = 0; y < img.height; ++y) {
    uint8_t* row = img.row(y);
    for (int x = 0; x < img.width; ++x) {
      double t = 0.5 + 0.5 * contrast * std::sin(k * (x * cx + y * cy) + phase);
      for (int c = 0; c < 3; ++c) {
        double v = pal[0][c] * t + pal[1][c] * (1 - t) + brightness + noise(rng);
        row[x * 3 + c] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
      }
    }
  }
  return out;
}

}  // namespace podbench::data
