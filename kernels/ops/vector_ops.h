// Private to kernels/ops: the memory-bound loops of the elementwise and
// batch-norm ops, compiled once per ISA (vector_ops__<isa>.cc, each with its
// own flags, from the one body in vector_ops_impl.h) and picked at run time by
// CpuSupports (so PODBENCH_CPU_ISA caps them too). Every ISA computes
// bit-identical results: the loops vectorise across independent elements or
// channels, never reorder a sum, and are built with -ffp-contract=off.
#pragma once

#include <cstdint>

namespace podbench::kernels::ops_internal {

struct VectorOps {
  void (*add)(const float* a, const float* b, float* y, std::int64_t n);
  void (*mul)(const float* a, const float* b, float* y, std::int64_t n);
  void (*axpy)(float alpha, const float* x, float* y, std::int64_t n);
  void (*scale)(float alpha, const float* x, float* y, std::int64_t n);
  void (*relu)(const float* x, float* y, std::int64_t n);
  void (*relu_bf16)(const float* x, float* y, std::int64_t n);  // relu, rounded to bf16 values (RoundToBf16's bits)
  void (*relu_grad)(const float* x, const float* dy, float* dx, std::int64_t n);
  void (*add_bias)(const float* bias, float* y, std::int64_t rows, std::int64_t cols);
  // Batch norm over rows x c, per channel j. Sums accumulate in double:
  // sums[j] += x, sums[c + j] += x^2 (bn_stats); sums[j] += dy, sums[c + j]
  // += dy x (bn_backward_stats). bn_affine: y = (x - m[j]) a[j] + b[j]
  // (forward, inference); bn_backward_affine: dx = dy k[j] + (x - m[j]) a[j]
  // + b[j]. x is centred on m (the mean) first, in float, so that channels
  // whose mean is large against their spread lose no precision. Small c
  // (dividing 64) runs on the flattened data with per-channel partial sums
  // 64 / c apart, folded at the end: the same order on every ISA.
  void (*bn_stats)(const float* x, std::int64_t rows, std::int64_t c, double* sums);
  void (*bn_backward_stats)(const float* x, const float* dy, std::int64_t rows, std::int64_t c, double* sums);
  void (*bn_affine)(const float* x, std::int64_t rows, std::int64_t c, const float* m, const float* a,
                    const float* b, float* y);
  void (*bn_backward_affine)(const float* x, const float* dy, std::int64_t rows, std::int64_t c, const float* m,
                             const float* k, const float* a, const float* b, float* dx);
  // bn_backward_affine with dx rounded to bf16 values (RoundToBf16's bits).
  void (*bn_backward_affine_bf16)(const float* x, const float* dy, std::int64_t rows, std::int64_t c,
                                  const float* m, const float* k, const float* a, const float* b, float* dx);
  // Max pooling over one window element's c channels: y = y < x ? x : y
  // (max_into, forward); where x > best, best = x and at = offset
  // (argmax_into, backward: the first maximum of the window wins).
  void (*max_into)(const float* x, float* y, std::int64_t c);
  void (*argmax_into)(const float* x, std::int64_t offset, float* best, std::int64_t* at, std::int64_t c);
  // The fp32 elementwise gates of an LSTM cell (kernels/ops/lstm_cell.h),
  // rows x 4h gate pre-activations z (i, f, g, o blocks of h) plus bias b:
  // lstm_gates overwrites z with the activated gates (sigmoid, sigmoid,
  // tanh, sigmoid) and writes c' = f c + i g and h' = o tanh(c');
  // lstm_gates_grad takes them back with dh', dc' to dz (rows x 4h, the
  // pre-activation gradient) and dc = dc_total f. sigmoid and tanh are
  // podbench's own polynomial exp (Cephes expf's, relative error < 2e-7),
  // so every ISA gives the same bits.
  void (*lstm_gates)(const float* b, float* z, const float* c, float* c_out, float* h_out, std::int64_t rows,
                     std::int64_t h);
  // y = tanh(x), the same polynomial tanh as lstm_gates (y may alias x).
  void (*tanh)(const float* x, float* y, std::int64_t n);
  void (*lstm_gates_grad)(const float* gates, const float* c, const float* c_out, const float* dh_out,
                          const float* dc_out, float* dz, float* dc, std::int64_t rows, std::int64_t h);
};

// The variant for this CPU, chosen once.
const VectorOps& SelectedVectorOps();

VectorOps VectorOps_Baseline();
VectorOps VectorOps_Avx2();
VectorOps VectorOps_Avx512f();

}  // namespace podbench::kernels::ops_internal
