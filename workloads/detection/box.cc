#include "workloads/detection/box.h"

#include <algorithm>

namespace podbench::detection {

double Box::Area() const { return Empty() ? 0.0 : width() * height(); }

double IntersectionArea(const Box& a, const Box& b) {
  const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  const double h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0.0;
}

double Iou(const Box& a, const Box& b) {
  const double i = IntersectionArea(a, b);
  if (i <= 0) return 0.0;
  const double u = a.Area() + b.Area() - i;
  return u > 0 ? i / u : 0.0;
}

Box Clip(const Box& b, const Box& f) {
  return {std::clamp(b.x0, f.x0, f.x1), std::clamp(b.y0, f.y0, f.y1), std::clamp(b.x1, f.x0, f.x1),
          std::clamp(b.y1, f.y0, f.y1)};
}

}  // namespace podbench::detection
