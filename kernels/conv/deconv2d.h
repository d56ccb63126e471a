// 2-D transposed convolution ("deconvolution"), NHWC, forward and backward:
// the mask head's 2x2 stride-2 upsampling of Mask R-CNN (14x14 -> 28x28).
//
// A transposed convolution is the data gradient of the convolution it
// transposes, so it runs on the convolution's passes and dispatch
// (kernels/conv/conv2d.h) and on no code of its own:
//   forward          y  = Conv2dBackwardData(conv, dy = x, filter)
//   backward data    dx = Conv2dForward(conv, x = dy, filter)
//   backward filter  df = Conv2dBackwardFilter(conv, x = dy, dy = x)
// where `conv` (ConvShape()) is the convolution from the deconvolution's
// output [n, oh, ow, oc] to its input [n, h, w, c]. Every convolution variant
// of conv_manifest.inc is therefore a deconvolution variant too, tested and
// measured there.
//
// Layouts: x [n, h, w, c], filter [kh, kw, oc, c] (TensorFlow's
// conv2d_transpose layout, which is the transposed convolution's HWIO
// filter), y [n, oh, ow, oc] with oh = (h - 1) * stride + kh - 2 * pad.
// Output positions no filter tap reaches are 0.
#pragma once

#include <cstdint>

#include "kernels/conv/conv2d.h"

namespace podbench::kernels {

struct Deconv2dShape {
  std::int64_t n = 1, h = 1, w = 1, c = 1;  // input
  std::int64_t oc = 1;                      // output channels
  std::int64_t kh = 1, kw = 1;              // filter window
  std::int64_t stride = 1, pad = 0;
  std::int64_t OutH() const { return (h - 1) * stride + kh - 2 * pad; }
  std::int64_t OutW() const { return (w - 1) * stride + kw - 2 * pad; }
  // The convolution this one transposes: input [n, OutH(), OutW(), oc],
  // output [n, h, w, c], same window, stride and padding.
  Conv2dShape ConvShape() const;
  // True when sizes are positive, the output is non-empty and the
  // transposed convolution's output is exactly this input (ConvShape()'s
  // OutH() == h, OutW() == w).
  bool Valid() const;
};

// Mask R-CNN's mask-head deconvolution: 2x2 window, stride 2, no padding.
Deconv2dShape MaskHeadDeconv(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t oc);

// REQUIRES for all: s.Valid(); buffers sized by the layouts above; threads 0
// = all; precision and value promises as conv2d.h's (activations: x in the
// forward pass, dy in backward data, both in backward filter).
void Deconv2dForward(const Deconv2dShape& s, const float* x, const float* filter, float* y,
                     Precision prec = Precision::kF32, int threads = 0);
// dx = gradient of the input (overwritten).
void Deconv2dBackwardData(const Deconv2dShape& s, const float* dy, const float* filter, float* dx,
                          Precision prec = Precision::kF32, int threads = 0);
// dfilter = gradient of the filter (overwritten).
void Deconv2dBackwardFilter(const Deconv2dShape& s, const float* x, const float* dy, float* dfilter,
                            Precision prec = Precision::kF32, int threads = 0);

}  // namespace podbench::kernels
