// SSD box encoding: a ground-truth box as offsets from an anchor, scaled by
// the reference's variances (centre 0.1, size 0.2; Google's v0.6 code writes
// them as BOX_CODER_SCALES 10, 10, 5, 5):
//   tx = (gx - ax) / aw / 0.1,  ty = (gy - ay) / ah / 0.1,
//   tw = log(gw / aw) / 0.2,    th = log(gh / ah) / 0.2
// (g, a: centre-form ground truth and anchor). Decode inverts it exactly.
#pragma once

#include <array>

#include "workloads/detection/anchors.h"
#include "workloads/detection/box.h"

namespace podbench::detection {

struct BoxCoder {
  double center_variance = 0.1;
  double size_variance = 0.2;

  // (tx, ty, tw, th). REQUIRES: truth and anchor of positive size.
  std::array<float, 4> Encode(const Box& truth, const Anchor& anchor) const;
  // The box whose encoding is t (sizes through exp, so never negative).
  Box Decode(const float* t, const Anchor& anchor) const;
};

}  // namespace podbench::detection
