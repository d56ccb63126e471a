#include "workloads/detection/box_coder.h"

#include <cmath>

namespace podbench::detection {

std::array<float, 4> BoxCoder::Encode(const Box& g, const Anchor& a) const {
  return {static_cast<float>((g.cx() - a.cx) / a.w / center_variance),
          static_cast<float>((g.cy() - a.cy) / a.h / center_variance),
          static_cast<float>(std::log(g.width() / a.w) / size_variance),
          static_cast<float>(std::log(g.height() / a.h) / size_variance)};
}

Box BoxCoder::Decode(const float* t, const Anchor& a) const {
  const double cx = t[0] * center_variance * a.w + a.cx;
  const double cy = t[1] * center_variance * a.h + a.cy;
  const double w = std::exp(t[2] * size_variance) * a.w;
  const double h = std::exp(t[3] * size_variance) * a.h;
  return Box::FromCenter(cx, cy, w, h);
}

}  // namespace podbench::detection
