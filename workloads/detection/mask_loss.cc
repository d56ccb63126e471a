#include "workloads/detection/mask_loss.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "workloads/detection/roi_align.h"

namespace podbench::detection {

namespace {

constexpr double kEpsilon = 1e-8;

bool Finite(const Box& b) {
  return std::isfinite(b.x0) && std::isfinite(b.y0) && std::isfinite(b.x1) && std::isfinite(b.y1);
}

}  // namespace

Status MaskTarget(const float* padded_mask, std::int64_t padded, const Box& gt_box, const Box& roi, int size,
                  float* target) {
  if (padded <= 2 * kMaskBorder)
    return Status::InvalidArgument("mask target: padded gt mask side " + std::to_string(padded) + " must exceed " +
                                   std::to_string(2 * kMaskBorder));
  if (size <= 0) return Status::InvalidArgument("mask target: size " + std::to_string(size) + " must be positive");
  if (!Finite(gt_box)) return Status::InvalidArgument("mask target: gt box has a non-finite corner");
  if (!Finite(roi)) return Status::InvalidArgument("mask target: ROI has a non-finite corner");
  const double g = static_cast<double>(padded - 2 * kMaskBorder);
  const double sy = g / (gt_box.height() + kEpsilon), sx = g / (gt_box.width() + kEpsilon);
  CropAndResize(padded_mask, padded, padded, 1, (roi.y0 - gt_box.y0) * sy + kMaskBorder,
                (roi.x0 - gt_box.x0) * sx + kMaskBorder, roi.height() * sy, roi.width() * sx, size, target);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(size) * size; ++i) target[i] = target[i] >= 0.5f ? 1.0f : 0.0f;
  return Status::Ok();
}

namespace {

// TensorFlow's crop_and_resize source coordinate of output index i of n, for
// a box side [lo, hi] normalised to [0, 1] over an input side of `side`.
double CropSource(double lo, double hi, std::int64_t side, int i, int n) {
  const double scale = static_cast<double>(side - 1);
  return n > 1 ? lo * scale + i * (hi - lo) * scale / (n - 1) : 0.5 * (lo + hi) * scale;
}

}  // namespace

Status CropGtMask(const float* mask, std::int64_t h, std::int64_t w, const Box& gt_box, int gt_size, float* padded) {
  if (h <= 0 || w <= 0)
    return Status::InvalidArgument("gt mask crop: mask " + std::to_string(h) + "x" + std::to_string(w) +
                                   " must have positive sides");
  if (gt_size <= 0) return Status::InvalidArgument("gt mask crop: gt_size " + std::to_string(gt_size) + " <= 0");
  if (!Finite(gt_box)) return Status::InvalidArgument("gt mask crop: gt box has a non-finite corner");
  const std::int64_t side = gt_size + 2 * kMaskBorder;
  std::fill(padded, padded + side * side, 0.0f);
  const double hh = static_cast<double>(h), ww = static_cast<double>(w);
  for (int i = 0; i < gt_size; ++i) {
    const double y = CropSource(gt_box.y0 / hh, gt_box.y1 / hh, h, i, gt_size);
    if (y < 0 || y > hh - 1) continue;
    const auto top = static_cast<std::int64_t>(std::floor(y)), bottom = static_cast<std::int64_t>(std::ceil(y));
    const double ly = y - static_cast<double>(top);
    for (int j = 0; j < gt_size; ++j) {
      const double x = CropSource(gt_box.x0 / ww, gt_box.x1 / ww, w, j, gt_size);
      if (x < 0 || x > ww - 1) continue;
      const auto left = static_cast<std::int64_t>(std::floor(x)), right = static_cast<std::int64_t>(std::ceil(x));
      const double lx = x - static_cast<double>(left);
      const double t = mask[top * w + left] + (mask[top * w + right] - mask[top * w + left]) * lx;
      const double b = mask[bottom * w + left] + (mask[bottom * w + right] - mask[bottom * w + left]) * lx;
      padded[(i + kMaskBorder) * side + j + kMaskBorder] = static_cast<float>(t + (b - t) * ly);
    }
  }
  return Status::Ok();
}

Result<double> MaskLoss(const MaskLossShape& s, const float* logits, const float* targets,
                        std::span<const int> roi_class, float* dlogits) {
  if (s.rois < 0 || s.size <= 0 || s.classes <= 0)
    return Status::InvalidArgument("mask loss: shape rois " + std::to_string(s.rois) + ", size " +
                                   std::to_string(s.size) + ", classes " + std::to_string(s.classes) +
                                   " (rois >= 0, size and classes > 0)");
  if (static_cast<std::int64_t>(roi_class.size()) != s.rois)
    return Status::InvalidArgument("mask loss: " + std::to_string(roi_class.size()) + " ROI classes for " +
                                   std::to_string(s.rois) + " ROIs");
  std::int64_t valid = 0;
  for (size_t r = 0; r < roi_class.size(); ++r) {
    if (roi_class[r] < 0 || roi_class[r] >= s.classes)
      return Status::InvalidArgument("mask loss: ROI " + std::to_string(r) + " has class " +
                                     std::to_string(roi_class[r]) + " outside [0, " + std::to_string(s.classes) + ")");
    if (roi_class[r] > 0) ++valid;
  }
  const std::int64_t pixels = s.size * s.size;
  if (dlogits != nullptr) std::fill(dlogits, dlogits + s.rois * pixels * s.classes, 0.0f);
  if (valid == 0) return 0.0;
  const double norm = 1.0 / static_cast<double>(valid * pixels);
  double sum = 0;
  for (std::int64_t r = 0; r < s.rois; ++r) {
    const int cls = roi_class[static_cast<size_t>(r)];
    if (cls == 0) continue;
    for (std::int64_t p = 0; p < pixels; ++p) {
      const std::int64_t at = (r * pixels + p) * s.classes + cls;
      const double x = logits[at], z = targets[r * pixels + p];
      // Stable sigmoid cross entropy: max(x, 0) - x z + log(1 + exp(-|x|)).
      sum += std::max(x, 0.0) - x * z + std::log1p(std::exp(-std::abs(x)));
      if (dlogits != nullptr) dlogits[at] = static_cast<float>((1.0 / (1.0 + std::exp(-x)) - z) * norm);
    }
  }
  return sum * norm;
}

}  // namespace podbench::detection
