#include "workloads/data/augment.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

namespace podbench::data {

CropWindow SampleRandomResizedCrop(int height, int width, double min_area, double max_area,
                                   double min_aspect, double max_aspect, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> area_d(min_area, max_area);
  std::uniform_real_distribution<double> log_ar(std::log(min_aspect), std::log(max_aspect));
  double total = static_cast<double>(height) * width;
  for (int attempt = 0; attempt < 10; ++attempt) {
    double area = total * area_d(rng);
    double ar = std::exp(log_ar(rng));
    int w = static_cast<int>(std::lround(std::sqrt(area * ar)));
    int h = static_cast<int>(std::lround(std::sqrt(area / ar)));
    if (w >= 1 && h >= 1 && w <= width && h <= height) {
      std::uniform_int_distribution<int> ys(0, height - h), xs(0, width - w);
      return CropWindow{ys(rng), xs(rng), h, w};
    }
  }
  return CenterCropWindow(height, width, 1.0);
}

CropWindow CenterCropWindow(int height, int width, double fraction) {
  int side = std::max(1, static_cast<int>(std::lround(std::min(height, width) * fraction)));
  return CropWindow{(height - side) / 2, (width - side) / 2, side, side};
}

void ResizeNormalize(const Image& src, const CropWindow& win, int out_height, int out_width,
                     bool flip, const float mean[3], const float stddev[3], float* out) {
  assert(src.channels == 3);
  assert(win.y >= 0 && win.x >= 0 && win.y + win.height <= src.height && win.x + win.width <= src.width);
  float scale[3], bias[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * stddev[c]);
    bias[c] = -mean[c] / stddev[c];
  }
  // Half-pixel centres, as image libraries resize.
  double sy = static_cast<double>(win.height) / out_height;
  double sx = static_cast<double>(win.width) / out_width;
  std::vector<int> x0(out_width), x1(out_width);
  std::vector<float> fx(out_width);
  for (int ox = 0; ox < out_width; ++ox) {
    double x = (ox + 0.5) * sx - 0.5;
    x = std::clamp(x, 0.0, static_cast<double>(win.width - 1));
    int xi = static_cast<int>(x);
    x0[ox] = win.x + xi;
    x1[ox] = win.x + std::min(xi + 1, win.width - 1);
    fx[ox] = static_cast<float>(x - xi);
  }
  for (int oy = 0; oy < out_height; ++oy) {
    double y = std::clamp((oy + 0.5) * sy - 0.5, 0.0, static_cast<double>(win.height - 1));
    int yi = static_cast<int>(y);
    float fy = static_cast<float>(y - yi);
    const uint8_t* r0 = src.row(win.y + yi);
    const uint8_t* r1 = src.row(win.y + std::min(yi + 1, win.height - 1));
    float* orow = out + static_cast<size_t>(oy) * out_width * 3;
    for (int ox = 0; ox < out_width; ++ox) {
      int dst = flip ? out_width - 1 - ox : ox;
      for (int c = 0; c < 3; ++c) {
        float a = r0[x0[ox] * 3 + c] + fx[ox] * (r0[x1[ox] * 3 + c] - r0[x0[ox] * 3 + c]);
        float b = r1[x0[ox] * 3 + c] + fx[ox] * (r1[x1[ox] * 3 + c] - r1[x0[ox] * 3 + c]);
        orow[dst * 3 + c] = (a + fy * (b - a)) * scale[c] + bias[c];
      }
    }
  }
}

}  // namespace podbench::data
