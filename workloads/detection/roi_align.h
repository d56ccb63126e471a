// Multilevel ROIAlign as Google's MLPerf v0.6 Mask R-CNN computes it
// (spatial_transform_ops.py: multilevel_crop_and_resize and
// selective_crop_and_resize; ../shared/reference/maskrcnn-v0.6.md §1), and
// its gradient with respect to the features.
//
// Level choice. An ROI of w x h pixels is read from FPN level
//   k = floor(4 + log2(sqrt(w h) / 224)), clamped to [min_level, max_level]
// (Google passes levels 2..6, so the clamp is [2, 6]; an empty ROI takes
// min_level). Level k has stride 2^k pixels.
//
// Sampling (Google's, which this reproduces point for point). On its level
// the ROI is (x0, y0, w, h) / 2^k in feature cells, with no half-pixel
// shift (feature cell i covers image pixels [i 2^k, (i + 1) 2^k)). Output
// bin (i, j) of an S x S output is ONE bilinear sample (sampling ratio 1) at
// the bin centre
//   y = y0 + (i + 0.5) h / S,  x = x0 + (j + 0.5) w / S.
// Per axis: lo = max(0, floor(y)), weights (1 - (y - lo), y - lo) on the
// cells (min(lo, B), min(lo + 1, B)) with B = the level's height - 1. So
// a sample past the far edge reads cell B, and one before the near edge
// (y < 0) extrapolates linearly from cells 0 and 1, as Google's clamping
// does (lo is clamped, the weight is not).
//
// Layouts: level k of the pyramid is NHWC [n, h_k, w_k, c] fp32; the output
// of R ROIs is [R, S, S, c]. The gradient flows to the features only (Google
// stops it at the ROIs).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "workloads/detection/box.h"

namespace podbench::detection {

// The level formula above (no feature maps needed).
int RoiLevel(const Box& roi, int min_level, int max_level);

// One axis of the sampling above: for S output positions of a crop starting
// at `start` of extent `size` (feature cells), the two cells each reads and
// their weights. REQUIRES: boundary >= 0, out > 0.
struct AxisSamples {
  std::vector<std::int64_t> lo, hi;  // cell indices in [0, boundary]
  std::vector<float> w_lo, w_hi;
};
AxisSamples SampleAxis(double start, double size, std::int64_t boundary, int out);

// One map [h, w, c] (one image of one level): the crop of (y0, x0, bh, bw)
// in cells, resampled to [out, out, c] as above with B = h - 1 and w - 1.
// REQUIRES: h, w, c, out > 0; dst holds out * out * c.
void CropAndResize(const float* map, std::int64_t h, std::int64_t w, std::int64_t c, double y0, double x0,
                   double bh, double bw, int out, float* dst);
// Its gradient: dmap += d(dst)/d(map)^T ddst (accumulates).
void CropAndResizeBackward(const float* ddst, std::int64_t h, std::int64_t w, std::int64_t c, double y0, double x0,
                           double bh, double bw, int out, float* dmap);

// Shapes of the FPN levels min_level, min_level + 1, ...
struct FeaturePyramid {
  int min_level = 2;
  std::int64_t n = 1, c = 1;           // images, channels (every level)
  std::vector<std::int64_t> heights;   // per level, in cells
  std::vector<std::int64_t> widths;
  int levels() const { return static_cast<int>(heights.size()); }
  int max_level() const { return min_level + levels() - 1; }
  std::int64_t LevelElems(int index) const;  // n * h * w * c of levels[index]
  // InvalidArgument naming the field: at least one level, heights and widths
  // of the same count, every size positive, min_level >= 0.
  Status Validate() const;
};

struct Roi {
  int image = 0;  // index into the batch
  Box box;        // input-image pixels
};

// out [rois, size, size, c] (overwritten). `levels` holds one pointer per
// pyramid level. InvalidArgument naming the input for a bad pyramid, level
// count, output size, ROI image index or non-finite ROI.
Status MultilevelRoiAlign(const FeaturePyramid& p, std::span<const float* const> levels, std::span<const Roi> rois,
                          int size, float* out);
// dlevels[k] += the gradient of <dout, out> with respect to level k
// (accumulates: the box and mask heads both read the pyramid). Same errors.
Status MultilevelRoiAlignBackward(const FeaturePyramid& p, std::span<float* const> dlevels,
                                  std::span<const Roi> rois, int size, const float* dout);

}  // namespace podbench::detection
