#include "kernels/conv/deconv2d.h"

namespace podbench::kernels {

Conv2dShape Deconv2dShape::ConvShape() const {
  Conv2dShape cs;
  cs.n = n;
  cs.h = OutH();
  cs.w = OutW();
  cs.c = oc;
  cs.oc = c;
  cs.kh = kh;
  cs.kw = kw;
  cs.stride = stride;
  cs.pad = pad;
  return cs;
}

bool Deconv2dShape::Valid() const {
  if (n <= 0 || h <= 0 || w <= 0 || c <= 0 || oc <= 0 || kh <= 0 || kw <= 0 || stride <= 0 || pad < 0) return false;
  if (OutH() <= 0 || OutW() <= 0) return false;
  const Conv2dShape cs = ConvShape();
  return cs.Valid() && cs.OutH() == h && cs.OutW() == w;
}

Deconv2dShape MaskHeadDeconv(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t oc) {
  Deconv2dShape s;
  s.n = n;
  s.h = h;
  s.w = w;
  s.c = c;
  s.oc = oc;
  s.kh = s.kw = 2;
  s.stride = 2;
  s.pad = 0;
  return s;
}

void Deconv2dForward(const Deconv2dShape& s, const float* x, const float* filter, float* y, Precision prec,
                     int threads) {
  Conv2dBackwardData(s.ConvShape(), x, filter, y, prec, threads);
}

void Deconv2dBackwardData(const Deconv2dShape& s, const float* dy, const float* filter, float* dx, Precision prec,
                          int threads) {
  Conv2dForward(s.ConvShape(), dy, filter, dx, prec, threads);
}

void Deconv2dBackwardFilter(const Deconv2dShape& s, const float* x, const float* dy, float* dfilter, Precision prec,
                            int threads) {
  Conv2dBackwardFilter(s.ConvShape(), dy, x, dfilter, prec, threads);
}

}  // namespace podbench::kernels
