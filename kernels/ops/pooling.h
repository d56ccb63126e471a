// Max and average pooling over NHWC, forward and backward.
#pragma once

#include <cstdint>

namespace podbench::kernels {

struct Pool2dShape {
  std::int64_t n = 1, h = 1, w = 1, c = 1;
  std::int64_t kh = 1, kw = 1, stride = 1, pad = 0;
  std::int64_t OutH() const { return (h + 2 * pad - kh) / stride + 1; }
  std::int64_t OutW() const { return (w + 2 * pad - kw) / stride + 1; }
};

// Padding never wins a max. REQUIRES: every window overlaps the input.
void MaxPoolForward(const Pool2dShape& s, const float* x, float* y);
// dx (overwritten): each dy goes to the first maximum of its window.
void MaxPoolBackward(const Pool2dShape& s, const float* x, const float* dy, float* dx);
// Average over the window's elements inside the input (padding not counted).
void AvgPoolForward(const Pool2dShape& s, const float* x, float* y);
void AvgPoolBackward(const Pool2dShape& s, const float* dy, float* dx);

// Global average pool: x [n, hw, c] -> y [n, c], and its gradient.
void GlobalAvgPoolForward(const float* x, std::int64_t n, std::int64_t hw, std::int64_t c, float* y);
void GlobalAvgPoolBackward(const float* dy, std::int64_t n, std::int64_t hw, std::int64_t c, float* dx);

}  // namespace podbench::kernels
