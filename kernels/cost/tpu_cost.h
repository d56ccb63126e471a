// What an op would cost on one TPU-v3 TensorCore (projected mode).
//
// Model, every constant from CoreSpec (kernels/core_spec.h):
// - MXU: a matmul is tiled onto mxu_dim x mxu_dim weight tiles; the
//   contraction (k) and output-feature (n) dimensions are padded up to
//   multiples of mxu_dim, the streamed rows (m) up to a multiple of
//   vector_sublanes. Time = padded FLOPs / (mxu_peak_flops * mxu_efficiency).
//   A convolution contracts over input channels per filter tap, so k pads
//   per tap, kh * kw * roundup(c, mxu_dim), when c >= mxu_dim; shallower
//   inputs fold the taps into the contraction, roundup(kh * kw * c, mxu_dim)
//   (a modelling choice: an im2col-style lowering, not a documented XLA fact).
// - Vector unit: elementwise work in fp32 ops / (vector_peak_ops).
// - HBM: bytes read + written / (hbm_bandwidth * hbm_efficiency).
// - Total = max(mxu, vector, hbm) + op_overhead_s (the units overlap; the
//   overhead does not).
#pragma once

#include <cstdint>

#include "kernels/conv/conv2d.h"
#include "kernels/core_spec.h"

namespace podbench::kernels {

struct OpCost {
  double flops = 0;         // useful FLOPs (2 per multiply-add) or vector ops
  double padded_flops = 0;  // FLOPs the MXU executes including padding
  double hbm_bytes = 0;
  double mxu_s = 0, vector_s = 0, hbm_s = 0, overhead_s = 0;

  double total_s() const;
  // Useful / padded MXU FLOPs (1 when there is no MXU work).
  double mxu_utilisation() const { return padded_flops > 0 ? flops / padded_flops : 1.0; }
  // "mxu", "vector" or "hbm": the largest of the three.
  const char* bound() const;
  OpCost& operator+=(const OpCost& o);
};

// Bytes per element in HBM: bf16 activations and weights, as v0.6 TPU runs stored them.
constexpr double kBf16Bytes = 2;
constexpr double kF32Bytes = 4;

// C[m x n] = A[m x k] B[k x n]; operands and result of elem_bytes each.
OpCost MatMulCost(const CoreSpec& spec, std::int64_t m, std::int64_t n, std::int64_t k,
                  double elem_bytes = kBf16Bytes);

// Convolution passes (REQUIRES: s.Valid()).
OpCost Conv2dForwardCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes = kBf16Bytes);
OpCost Conv2dBackwardDataCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes = kBf16Bytes);
OpCost Conv2dBackwardFilterCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes = kBf16Bytes);

// Vector-unit op over `elements`, `ops_per_element` fp32 ops each, moving
// `bytes_per_element` through HBM (reads + writes).
OpCost ElementwiseCost(const CoreSpec& spec, std::int64_t elements, double ops_per_element,
                       double bytes_per_element);

// Batch norm over rows x c (training: statistics + normalise; fused read x, write y).
OpCost BatchNormForwardCost(const CoreSpec& spec, std::int64_t rows, std::int64_t c);
OpCost BatchNormBackwardCost(const CoreSpec& spec, std::int64_t rows, std::int64_t c);

enum class Optimizer { kSgdMomentum, kLars, kAdam };
// One update of `params` fp32 parameters with their fp32 state.
OpCost OptimizerCost(const CoreSpec& spec, std::int64_t params, Optimizer opt);

// Softmax cross-entropy over rows x classes, forward and backward together.
OpCost SoftmaxXentCost(const CoreSpec& spec, std::int64_t rows, std::int64_t classes);

}  // namespace podbench::kernels
