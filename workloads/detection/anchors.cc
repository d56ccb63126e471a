#include "workloads/detection/anchors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace podbench::detection {

AnchorConfig AnchorConfig::Ssd300() {
  AnchorConfig c;
  c.image_size = 300;
  c.feature_sizes = {38, 19, 10, 5, 3, 1};
  c.steps = {8, 16, 32, 64, 100, 300};
  c.scales = {21, 45, 99, 153, 207, 261, 315};
  c.aspect_ratios = {{2}, {2, 3}, {2, 3}, {2, 3}, {2}, {2}};
  return c;
}

int AnchorConfig::PerLocation(int level) const {
  return 2 + 2 * static_cast<int>(aspect_ratios[static_cast<size_t>(level)].size());
}

int64_t AnchorConfig::LevelOffset(int level) const {
  int64_t n = 0;
  for (int l = 0; l < level; ++l) {
    const int64_t f = feature_sizes[static_cast<size_t>(l)];
    n += f * f * PerLocation(l);
  }
  return n;
}

int64_t AnchorConfig::NumAnchors() const { return LevelOffset(levels()); }

int64_t AnchorConfig::Index(int level, int a, int i, int j) const {
  const int64_t f = feature_sizes[static_cast<size_t>(level)];
  return LevelOffset(level) + (int64_t{a} * f + i) * f + j;
}

Status AnchorConfig::Validate() const {
  const size_t n = feature_sizes.size();
  if (n == 0) return Status::InvalidArgument("anchors: at least one feature-map level is needed");
  if (steps.size() != n || aspect_ratios.size() != n || scales.size() != n + 1) {
    return Status::InvalidArgument("anchors: " + std::to_string(n) + " levels need as many steps and aspect-ratio "
                                   "lists and one more scale; got " + std::to_string(steps.size()) + ", " +
                                   std::to_string(aspect_ratios.size()) + " and " + std::to_string(scales.size()));
  }
  if (!(image_size > 0)) return Status::InvalidArgument("anchors: image_size must be positive");
  for (size_t l = 0; l < n; ++l) {
    const std::string at = " of level " + std::to_string(l);
    if (feature_sizes[l] < 1) return Status::InvalidArgument("anchors: feature size" + at + " must be >= 1");
    if (!(steps[l] > 0)) return Status::InvalidArgument("anchors: step" + at + " must be positive");
    for (double a : aspect_ratios[l]) {
      if (!(a > 0)) return Status::InvalidArgument("anchors: aspect ratios" + at + " must be positive");
    }
  }
  for (double s : scales) {
    if (!(s > 0)) return Status::InvalidArgument("anchors: scales must be positive");
  }
  return Status::Ok();
}

std::vector<Anchor> MakeAnchors(const AnchorConfig& c) {
  std::vector<Anchor> out;
  out.reserve(static_cast<size_t>(c.NumAnchors()));
  auto clip = [](double v) { return std::clamp(v, 0.0, 1.0); };
  for (int l = 0; l < c.levels(); ++l) {
    const size_t ul = static_cast<size_t>(l);
    const double sk = c.scales[ul] / c.image_size;
    const double sk_next = c.scales[ul + 1] / c.image_size;
    std::vector<std::pair<double, double>> shapes = {{sk, sk}, {std::sqrt(sk * sk_next), std::sqrt(sk * sk_next)}};
    for (double a : c.aspect_ratios[ul]) {
      const double r = std::sqrt(a);
      shapes.push_back({sk * r, sk / r});  // wide
      shapes.push_back({sk / r, sk * r});  // tall
    }
    const int f = c.feature_sizes[ul];
    const double fk = c.image_size / c.steps[ul];
    for (const auto& [w, h] : shapes) {
      for (int i = 0; i < f; ++i) {
        for (int j = 0; j < f; ++j) {
          out.push_back({clip((j + 0.5) / fk), clip((i + 0.5) / fk), clip(w), clip(h)});
        }
      }
    }
  }
  return out;
}

}  // namespace podbench::detection
