// 2-D convolution, NHWC activations and HWIO filters, forward and backward.
//
// Layouts: x [n, h, w, c], filter [kh, kw, c, oc], y [n, oh, ow, oc], all
// dense row-major fp32. Symmetric zero padding `pad`, square stride.
// Precision::kBf16 runs the MXU contract: x, filter (and dy in the backward
// passes) are rounded to bf16 and products accumulate in fp32.
//
// `activations` says what the activation operands of a pass are (x in the
// forward pass, dy in backward data, both in backward filter), and `weights`
// what the filter of the forward and backward-data passes is: Values::kBf16
// promises that they already hold bf16 values, as a workload that keeps bf16
// activations writes them (the producer rounds in its own pass, e.g.
// Relu(..., Values::kBf16)) and rounds its fp32 master weights into a bf16
// copy once a step. A bf16 pass then does not round them again: the result
// is the same bit for bit. Where the convolution runs on fp32 arithmetic (no
// bf16 unit: oneDNN's fp32 primitive on bf16 values, the widening lowerings)
// a pass on bf16 activations and bf16 weights makes the fp32 convolution's
// passes and no other (it is that convolution, bit for bit, for the
// widening lowerings). A filter not promised is rounded inside a pass where
// fp32 makes one too (the weights reorder, the GEMM's packing), but for the
// explicit data gradient of strided and 1x1 convolutions, which rounds a
// copy. Both are ignored under Precision::kF32. A sample of the promised
// operands is checked in builds with assertions.
//
// The fast path lowers to the selected GEMM (kernels/gemm) through im2col,
// row chunk by row chunk; a 1x1 stride-1 convolution is a GEMM directly.
#pragma once

#include <cstdint>

#include "kernels/bf16.h"

namespace podbench::kernels {

enum class Precision { kF32, kBf16 };

struct Conv2dShape {
  std::int64_t n = 1, h = 1, w = 1, c = 1;  // input
  std::int64_t oc = 1;                      // output channels
  std::int64_t kh = 1, kw = 1;              // filter window
  std::int64_t stride = 1, pad = 0;
  std::int64_t OutH() const { return (h + 2 * pad - kh) / stride + 1; }
  std::int64_t OutW() const { return (w + 2 * pad - kw) / stride + 1; }
  // True when sizes are positive and the window fits the padded input.
  bool Valid() const;
};

// Multiply-adds x 2 of one forward pass (each backward pass costs the same).
double Conv2dFlops(const Conv2dShape& s);

// REQUIRES for all: s.Valid(); buffers sized by the layouts above; threads 0 = all.
void Conv2dForward(const Conv2dShape& s, const float* x, const float* filter, float* y,
                   Precision prec = Precision::kF32, int threads = 0, Values activations = Values::kF32,
                   Values weights = Values::kF32);
// dx = gradient of the input (overwritten).
void Conv2dBackwardData(const Conv2dShape& s, const float* dy, const float* filter, float* dx,
                        Precision prec = Precision::kF32, int threads = 0, Values activations = Values::kF32,
                        Values weights = Values::kF32);
// dfilter = gradient of the filter (overwritten).
void Conv2dBackwardFilter(const Conv2dShape& s, const float* x, const float* dy, float* dfilter,
                          Precision prec = Precision::kF32, int threads = 0, Values activations = Values::kF32);

// Scalar references: direct loops, same contracts.
void Conv2dForwardRef(const Conv2dShape& s, const float* x, const float* filter, float* y,
                      Precision prec = Precision::kF32);
void Conv2dBackwardDataRef(const Conv2dShape& s, const float* dy, const float* filter, float* dx,
                           Precision prec = Precision::kF32);
void Conv2dBackwardFilterRef(const Conv2dShape& s, const float* x, const float* dy, float* dfilter,
                             Precision prec = Precision::kF32);

}  // namespace podbench::kernels
