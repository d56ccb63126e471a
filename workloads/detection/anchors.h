// SSD default boxes (anchors): per feature-map level, a grid of centres and
// a few box shapes at each.
//
// The MLPerf v0.6 SSD reference (Google's TF code and its ssd_constants,
// after the SSD300 of Liu et al. 2016): a 300x300 input, six levels with
// feature maps 38, 19, 10, 5, 3, 1 at steps 8, 16, 32, 64, 100, 300 pixels,
// scales 21, 45, 99, 153, 207, 261, 315 pixels and aspect ratios {2},
// {2,3}, {2,3}, {2,3}, {2}, {2}: 4/6/6/6/4/4 boxes per location, 8732 in all.
// Level k's boxes, with s_k = scales[k] / image_size:
//   s_k x s_k, sqrt(s_k s_{k+1}) squared, then per ratio a: the wide box
//   (s_k sqrt(a)) x (s_k / sqrt(a)) followed by the tall one;
// centred at ((j + 0.5) / f_k, (i + 0.5) / f_k), f_k = image_size / step_k,
// for row i and column j. Every centre and size is clipped to [0, 1], as the
// reference does. Order (the reference's): level, box shape, row, column.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "workloads/detection/box.h"

namespace podbench::detection {

struct AnchorConfig {
  double image_size = 300;                 // pixels
  std::vector<int> feature_sizes;          // per level: the square feature map's side
  std::vector<double> steps;               // per level: pixels between centres
  std::vector<double> scales;              // pixels; one more entry than levels
  std::vector<std::vector<double>> aspect_ratios;  // per level, each > 0

  // The MLPerf v0.6 SSD300 anchors (8732).
  static AnchorConfig Ssd300();

  int levels() const { return static_cast<int>(feature_sizes.size()); }
  // Boxes at each location of `level`: 2 + 2 x its aspect ratios.
  int PerLocation(int level) const;
  int64_t NumAnchors() const;
  // Index of level `level`'s first anchor.
  int64_t LevelOffset(int level) const;
  // The index of (level, shape a, row i, column j) in the reference's order.
  int64_t Index(int level, int a, int i, int j) const;
  // InvalidArgument naming the field: sizes of the per-level lists, positive
  // values, at least one level.
  Status Validate() const;
};

// Anchors in normalised centre form: Box::FromCenter(cx, cy, w, h) in [0, 1]
// coordinates. REQUIRES: config.Validate().ok().
struct Anchor {
  double cx = 0, cy = 0, w = 0, h = 0;
  Box box() const { return Box::FromCenter(cx, cy, w, h); }
};
std::vector<Anchor> MakeAnchors(const AnchorConfig& config);

}  // namespace podbench::detection
