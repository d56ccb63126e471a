#include "kernels/ops/pooling.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/ops/vector_ops.h"

namespace podbench::kernels {
namespace {

using std::int64_t;

// Calls fn(b, i, j, input_offset_of_window_row_start...) for each window element.
template <typename Fn>
void ForWindow(const Pool2dShape& s, int64_t b, int64_t i, int64_t j, Fn fn) {
  for (int64_t r = 0; r < s.kh; ++r) {
    const int64_t hi = i * s.stride + r - s.pad;
    if (hi < 0 || hi >= s.h) continue;
    for (int64_t q = 0; q < s.kw; ++q) {
      const int64_t wi = j * s.stride + q - s.pad;
      if (wi < 0 || wi >= s.w) continue;
      fn(((b * s.h + hi) * s.w + wi) * s.c);
    }
  }
}

}  // namespace

// The window loops walk channels innermost, contiguous in NHWC, through the
// per-ISA VectorOps loops.
void MaxPoolForward(const Pool2dShape& s, const float* x, float* y) {
  const auto& ops = ops_internal::SelectedVectorOps();
  const int64_t oh = s.OutH(), ow = s.OutW();
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        float* out = y + ((b * oh + i) * ow + j) * s.c;
        std::fill_n(out, s.c, -std::numeric_limits<float>::infinity());
        ForWindow(s, b, i, j, [&](int64_t off) { ops.max_into(x + off, out, s.c); });
      }
}

void MaxPoolBackward(const Pool2dShape& s, const float* x, const float* dy, float* dx) {
  const auto& ops = ops_internal::SelectedVectorOps();
  const int64_t oh = s.OutH(), ow = s.OutW();
  std::fill_n(dx, s.n * s.h * s.w * s.c, 0.0f);
  // Per channel of one window: its first maximum so far and where it is.
  std::vector<float> best(static_cast<std::size_t>(s.c));
  std::vector<int64_t> at(static_cast<std::size_t>(s.c));
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        bool first = true;
        ForWindow(s, b, i, j, [&](int64_t off) {
          if (first) {
            // The window's first element wins until a strictly larger one.
            std::copy_n(x + off, s.c, best.data());
            std::fill(at.begin(), at.end(), off);
            first = false;
          } else {
            ops.argmax_into(x + off, off, best.data(), at.data(), s.c);
          }
        });
        if (first) continue;
        const float* g = dy + ((b * oh + i) * ow + j) * s.c;
        for (int64_t ch = 0; ch < s.c; ++ch) dx[at[std::size_t(ch)] + ch] += g[ch];
      }
}

void AvgPoolForward(const Pool2dShape& s, const float* x, float* y) {
  const int64_t oh = s.OutH(), ow = s.OutW();
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        float* out = y + ((b * oh + i) * ow + j) * s.c;
        std::fill_n(out, s.c, 0.0f);
        int64_t count = 0;
        ForWindow(s, b, i, j, [&](int64_t off) {
          ++count;
          for (int64_t ch = 0; ch < s.c; ++ch) out[ch] += x[off + ch];
        });
        for (int64_t ch = 0; ch < s.c; ++ch) out[ch] /= float(std::max<int64_t>(count, 1));
      }
}

void AvgPoolBackward(const Pool2dShape& s, const float* dy, float* dx) {
  const int64_t oh = s.OutH(), ow = s.OutW();
  std::fill_n(dx, s.n * s.h * s.w * s.c, 0.0f);
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        int64_t count = 0;
        ForWindow(s, b, i, j, [&](int64_t) { ++count; });
        const float* g = dy + ((b * oh + i) * ow + j) * s.c;
        const float inv = 1.0f / float(std::max<int64_t>(count, 1));
        ForWindow(s, b, i, j, [&](int64_t off) {
          for (int64_t ch = 0; ch < s.c; ++ch) dx[off + ch] += g[ch] * inv;
        });
      }
}

void GlobalAvgPoolForward(const float* x, int64_t n, int64_t hw, int64_t c, float* y) {
  for (int64_t b = 0; b < n; ++b) {
    std::fill_n(y + b * c, c, 0.0f);
    for (int64_t p = 0; p < hw; ++p)
      for (int64_t ch = 0; ch < c; ++ch) y[b * c + ch] += x[(b * hw + p) * c + ch];
    for (int64_t ch = 0; ch < c; ++ch) y[b * c + ch] /= float(hw);
  }
}

void GlobalAvgPoolBackward(const float* dy, int64_t n, int64_t hw, int64_t c, float* dx) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < hw; ++p)
      for (int64_t ch = 0; ch < c; ++ch) dx[(b * hw + p) * c + ch] = dy[b * c + ch] / float(hw);
}

}  // namespace podbench::kernels
