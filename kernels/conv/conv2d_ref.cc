// Direct-loop convolution references.
#include <algorithm>
#include <cassert>

#include "kernels/bf16.h"
#include "kernels/conv/conv2d.h"

namespace podbench::kernels {
namespace {

float In(float v, Precision p) { return p == Precision::kBf16 ? RoundToBf16(v) : v; }

}  // namespace

bool Conv2dShape::Valid() const {
  return n > 0 && h > 0 && w > 0 && c > 0 && oc > 0 && kh > 0 && kw > 0 && stride > 0 &&
         pad >= 0 && h + 2 * pad >= kh && w + 2 * pad >= kw;
}

double Conv2dFlops(const Conv2dShape& s) {
  return 2.0 * double(s.n) * double(s.OutH()) * double(s.OutW()) * double(s.oc) *
         double(s.kh * s.kw * s.c);
}

void Conv2dForwardRef(const Conv2dShape& s, const float* x, const float* f, float* y, Precision p) {
  assert(s.Valid());
  const std::int64_t oh = s.OutH(), ow = s.OutW();
  for (std::int64_t b = 0; b < s.n; ++b)
    for (std::int64_t i = 0; i < oh; ++i)
      for (std::int64_t j = 0; j < ow; ++j)
        for (std::int64_t o = 0; o < s.oc; ++o) {
          float sum = 0;
          for (std::int64_t r = 0; r < s.kh; ++r) {
            const std::int64_t hi = i * s.stride + r - s.pad;
            if (hi < 0 || hi >= s.h) continue;
            for (std::int64_t q = 0; q < s.kw; ++q) {
              const std::int64_t wi = j * s.stride + q - s.pad;
              if (wi < 0 || wi >= s.w) continue;
              for (std::int64_t ci = 0; ci < s.c; ++ci) {
                sum += In(x[((b * s.h + hi) * s.w + wi) * s.c + ci], p) *
                       In(f[((r * s.kw + q) * s.c + ci) * s.oc + o], p);
              }
            }
          }
          y[((b * oh + i) * ow + j) * s.oc + o] = sum;
        }
}

void Conv2dBackwardDataRef(const Conv2dShape& s, const float* dy, const float* f, float* dx,
                           Precision p) {
  assert(s.Valid());
  const std::int64_t oh = s.OutH(), ow = s.OutW();
  std::fill_n(dx, s.n * s.h * s.w * s.c, 0.0f);
  for (std::int64_t b = 0; b < s.n; ++b)
    for (std::int64_t i = 0; i < oh; ++i)
      for (std::int64_t j = 0; j < ow; ++j)
        for (std::int64_t r = 0; r < s.kh; ++r) {
          const std::int64_t hi = i * s.stride + r - s.pad;
          if (hi < 0 || hi >= s.h) continue;
          for (std::int64_t q = 0; q < s.kw; ++q) {
            const std::int64_t wi = j * s.stride + q - s.pad;
            if (wi < 0 || wi >= s.w) continue;
            for (std::int64_t ci = 0; ci < s.c; ++ci) {
              float sum = 0;
              for (std::int64_t o = 0; o < s.oc; ++o) {
                sum += In(dy[((b * oh + i) * ow + j) * s.oc + o], p) *
                       In(f[((r * s.kw + q) * s.c + ci) * s.oc + o], p);
              }
              dx[((b * s.h + hi) * s.w + wi) * s.c + ci] += sum;
            }
          }
        }
}

void Conv2dBackwardFilterRef(const Conv2dShape& s, const float* x, const float* dy, float* df,
                             Precision p) {
  assert(s.Valid());
  const std::int64_t oh = s.OutH(), ow = s.OutW();
  for (std::int64_t r = 0; r < s.kh; ++r)
    for (std::int64_t q = 0; q < s.kw; ++q)
      for (std::int64_t ci = 0; ci < s.c; ++ci)
        for (std::int64_t o = 0; o < s.oc; ++o) {
          float sum = 0;
          for (std::int64_t b = 0; b < s.n; ++b)
            for (std::int64_t i = 0; i < oh; ++i) {
              const std::int64_t hi = i * s.stride + r - s.pad;
              if (hi < 0 || hi >= s.h) continue;
              for (std::int64_t j = 0; j < ow; ++j) {
                const std::int64_t wi = j * s.stride + q - s.pad;
                if (wi < 0 || wi >= s.w) continue;
                sum += In(x[((b * s.h + hi) * s.w + wi) * s.c + ci], p) *
                       In(dy[((b * oh + i) * ow + j) * s.oc + o], p);
              }
            }
          df[((r * s.kw + q) * s.c + ci) * s.oc + o] = sum;
        }
}

}  // namespace podbench::kernels
