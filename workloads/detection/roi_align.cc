#include "workloads/detection/roi_align.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace podbench::detection {

int RoiLevel(const Box& roi, int min_level, int max_level) {
  const double area = roi.Area();
  if (!(area > 0)) return min_level;
  const double k = std::floor(4.0 + std::log2(std::sqrt(area) / 224.0));
  return static_cast<int>(std::clamp(k, static_cast<double>(min_level), static_cast<double>(max_level)));
}

AxisSamples SampleAxis(double start, double size, std::int64_t boundary, int out) {
  AxisSamples s;
  const auto n = static_cast<size_t>(out);
  s.lo.resize(n);
  s.hi.resize(n);
  s.w_lo.resize(n);
  s.w_hi.resize(n);
  const double b = static_cast<double>(boundary);
  for (int i = 0; i < out; ++i) {
    const double y = start + (i + 0.5) * size / out;
    const double lo = std::max(0.0, std::floor(y));
    const double frac = y - lo;
    const auto k = static_cast<size_t>(i);
    s.lo[k] = static_cast<std::int64_t>(std::min(lo, b));
    s.hi[k] = static_cast<std::int64_t>(std::min(lo + 1, b));
    s.w_lo[k] = static_cast<float>(1.0 - frac);
    s.w_hi[k] = static_cast<float>(frac);
  }
  return s;
}

void CropAndResize(const float* map, std::int64_t h, std::int64_t w, std::int64_t c, double y0, double x0,
                   double bh, double bw, int out, float* dst) {
  const AxisSamples ys = SampleAxis(y0, bh, h - 1, out), xs = SampleAxis(x0, bw, w - 1, out);
  for (size_t i = 0; i < static_cast<size_t>(out); ++i) {
    const float* r0 = map + ys.lo[i] * w * c;
    const float* r1 = map + ys.hi[i] * w * c;
    for (size_t j = 0; j < static_cast<size_t>(out); ++j) {
      const float w00 = ys.w_lo[i] * xs.w_lo[j], w01 = ys.w_lo[i] * xs.w_hi[j];
      const float w10 = ys.w_hi[i] * xs.w_lo[j], w11 = ys.w_hi[i] * xs.w_hi[j];
      const std::int64_t a = xs.lo[j] * c, b = xs.hi[j] * c;
      float* d = dst + (static_cast<std::int64_t>(i) * out + static_cast<std::int64_t>(j)) * c;
      for (std::int64_t ch = 0; ch < c; ++ch)
        d[ch] = w00 * r0[a + ch] + w01 * r0[b + ch] + w10 * r1[a + ch] + w11 * r1[b + ch];
    }
  }
}

void CropAndResizeBackward(const float* ddst, std::int64_t h, std::int64_t w, std::int64_t c, double y0, double x0,
                           double bh, double bw, int out, float* dmap) {
  const AxisSamples ys = SampleAxis(y0, bh, h - 1, out), xs = SampleAxis(x0, bw, w - 1, out);
  for (size_t i = 0; i < static_cast<size_t>(out); ++i) {
    float* r0 = dmap + ys.lo[i] * w * c;
    float* r1 = dmap + ys.hi[i] * w * c;
    for (size_t j = 0; j < static_cast<size_t>(out); ++j) {
      const float w00 = ys.w_lo[i] * xs.w_lo[j], w01 = ys.w_lo[i] * xs.w_hi[j];
      const float w10 = ys.w_hi[i] * xs.w_lo[j], w11 = ys.w_hi[i] * xs.w_hi[j];
      const std::int64_t a = xs.lo[j] * c, b = xs.hi[j] * c;
      const float* d = ddst + (static_cast<std::int64_t>(i) * out + static_cast<std::int64_t>(j)) * c;
      for (std::int64_t ch = 0; ch < c; ++ch) {
        r0[a + ch] += w00 * d[ch];
        r0[b + ch] += w01 * d[ch];
        r1[a + ch] += w10 * d[ch];
        r1[b + ch] += w11 * d[ch];
      }
    }
  }
}

std::int64_t FeaturePyramid::LevelElems(int index) const {
  const auto k = static_cast<size_t>(index);
  return n * heights[k] * widths[k] * c;
}

Status FeaturePyramid::Validate() const {
  if (heights.empty()) return Status::InvalidArgument("feature pyramid: no levels");
  if (heights.size() != widths.size())
    return Status::InvalidArgument("feature pyramid: " + std::to_string(heights.size()) + " heights but " +
                                   std::to_string(widths.size()) + " widths");
  if (min_level < 0) return Status::InvalidArgument("feature pyramid: min_level " + std::to_string(min_level) + " < 0");
  if (n <= 0 || c <= 0)
    return Status::InvalidArgument("feature pyramid: images " + std::to_string(n) + " and channels " +
                                   std::to_string(c) + " must be positive");
  for (size_t k = 0; k < heights.size(); ++k)
    if (heights[k] <= 0 || widths[k] <= 0)
      return Status::InvalidArgument("feature pyramid: level " + std::to_string(min_level + static_cast<int>(k)) +
                                     " has size " + std::to_string(heights[k]) + "x" + std::to_string(widths[k]));
  return Status::Ok();
}

namespace {

Status CheckInputs(const FeaturePyramid& p, size_t level_pointers, std::span<const Roi> rois, int size) {
  if (Status s = p.Validate(); !s.ok()) return s;
  if (level_pointers != static_cast<size_t>(p.levels()))
    return Status::InvalidArgument("ROIAlign: " + std::to_string(level_pointers) + " level buffers for a pyramid of " +
                                   std::to_string(p.levels()) + " levels");
  if (size <= 0) return Status::InvalidArgument("ROIAlign: output size " + std::to_string(size) + " must be positive");
  for (size_t r = 0; r < rois.size(); ++r) {
    const Roi& roi = rois[r];
    if (roi.image < 0 || roi.image >= p.n)
      return Status::InvalidArgument("ROIAlign: ROI " + std::to_string(r) + " names image " +
                                     std::to_string(roi.image) + " of a batch of " + std::to_string(p.n));
    const Box& b = roi.box;
    if (!std::isfinite(b.x0) || !std::isfinite(b.y0) || !std::isfinite(b.x1) || !std::isfinite(b.y1))
      return Status::InvalidArgument("ROIAlign: ROI " + std::to_string(r) + " has a non-finite corner");
  }
  return Status::Ok();
}

// Where ROI `roi` is read: the level's index in the pyramid and its crop in
// that level's cells.
struct Placement {
  int index;
  double y0, x0, h, w;
};

Placement Place(const FeaturePyramid& p, const Roi& roi) {
  const int level = RoiLevel(roi.box, p.min_level, p.max_level());
  const double scale = std::ldexp(1.0, -level);
  return {level - p.min_level, roi.box.y0 * scale, roi.box.x0 * scale, roi.box.height() * scale,
          roi.box.width() * scale};
}

}  // namespace

Status MultilevelRoiAlign(const FeaturePyramid& p, std::span<const float* const> levels, std::span<const Roi> rois,
                          int size, float* out) {
  if (Status s = CheckInputs(p, levels.size(), rois, size); !s.ok()) return s;
  const std::int64_t per_roi = static_cast<std::int64_t>(size) * size * p.c;
  for (size_t r = 0; r < rois.size(); ++r) {
    const Placement at = Place(p, rois[r]);
    const auto k = static_cast<size_t>(at.index);
    const std::int64_t h = p.heights[k], w = p.widths[k];
    const float* map = levels[k] + rois[r].image * h * w * p.c;
    CropAndResize(map, h, w, p.c, at.y0, at.x0, at.h, at.w, size, out + static_cast<std::int64_t>(r) * per_roi);
  }
  return Status::Ok();
}

Status MultilevelRoiAlignBackward(const FeaturePyramid& p, std::span<float* const> dlevels,
                                  std::span<const Roi> rois, int size, const float* dout) {
  if (Status s = CheckInputs(p, dlevels.size(), rois, size); !s.ok()) return s;
  const std::int64_t per_roi = static_cast<std::int64_t>(size) * size * p.c;
  for (size_t r = 0; r < rois.size(); ++r) {
    const Placement at = Place(p, rois[r]);
    const auto k = static_cast<size_t>(at.index);
    const std::int64_t h = p.heights[k], w = p.widths[k];
    float* dmap = dlevels[k] + rois[r].image * h * w * p.c;
    CropAndResizeBackward(dout + static_cast<std::int64_t>(r) * per_roi, h, w, p.c, at.y0, at.x0, at.h, at.w, size,
                          dmap);
  }
  return Status::Ok();
}

}  // namespace podbench::detection
