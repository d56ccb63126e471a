#include "kernels/cost/tpu_cost.h"

#include <algorithm>
#include <cassert>

namespace podbench::kernels {
namespace {

using std::int64_t;

int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

double MxuSeconds(const CoreSpec& spec, double padded_flops) {
  return padded_flops / (spec.mxu_peak_flops() * spec.mxu_efficiency);
}
double HbmSeconds(const CoreSpec& spec, double bytes) {
  return bytes / (spec.hbm_bandwidth * spec.hbm_efficiency);
}

// m rows streamed through weight tiles of k_padded x n_padded.
OpCost Tiled(const CoreSpec& spec, double useful_flops, int64_t m, int64_t k_padded, int64_t n_padded,
             double hbm_bytes) {
  OpCost c;
  c.flops = useful_flops;
  c.padded_flops = 2.0 * double(RoundUp(m, spec.vector_sublanes)) * double(k_padded) * double(n_padded);
  c.hbm_bytes = hbm_bytes;
  c.mxu_s = MxuSeconds(spec, c.padded_flops);
  c.hbm_s = HbmSeconds(spec, hbm_bytes);
  c.overhead_s = spec.op_overhead_s;
  return c;
}

}  // namespace

double OpCost::total_s() const { return std::max({mxu_s, vector_s, hbm_s}) + overhead_s; }

const char* OpCost::bound() const {
  if (mxu_s >= vector_s && mxu_s >= hbm_s) return "mxu";
  return vector_s >= hbm_s ? "vector" : "hbm";
}

OpCost& OpCost::operator+=(const OpCost& o) {
  flops += o.flops;
  padded_flops += o.padded_flops;
  hbm_bytes += o.hbm_bytes;
  mxu_s += o.mxu_s;
  vector_s += o.vector_s;
  hbm_s += o.hbm_s;
  overhead_s += o.overhead_s;
  return *this;
}

OpCost MatMulCost(const CoreSpec& spec, int64_t m, int64_t n, int64_t k, double elem_bytes) {
  const int64_t d = spec.mxu_dim;
  const double bytes = elem_bytes * (double(m) * double(k) + double(k) * double(n) + double(m) * double(n));
  return Tiled(spec, 2.0 * double(m) * double(n) * double(k), m, RoundUp(k, d), RoundUp(n, d), bytes);
}

namespace {
// Padded contraction of a convolution contracting `depth` channels over
// `taps` filter taps: per tap when depth fills the MXU, else the taps are
// folded into the contraction (an im2col-style lowering of shallow inputs).
int64_t ConvContraction(int64_t taps, int64_t depth, int64_t d) {
  return depth >= d ? taps * RoundUp(depth, d) : RoundUp(taps * depth, d);
}

double ConvBytes(const Conv2dShape& s, double elem_bytes) {
  return elem_bytes * (double(s.n * s.h * s.w * s.c) + double(s.kh * s.kw * s.c * s.oc) +
                       double(s.n * s.OutH() * s.OutW() * s.oc));
}
}  // namespace

OpCost Conv2dForwardCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes) {
  assert(s.Valid());
  const int64_t d = spec.mxu_dim, taps = s.kh * s.kw;
  return Tiled(spec, Conv2dFlops(s), s.n * s.OutH() * s.OutW(), ConvContraction(taps, s.c, d), RoundUp(s.oc, d),
               ConvBytes(s, elem_bytes));
}

OpCost Conv2dBackwardDataCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes) {
  assert(s.Valid());
  // Contract over output channels per tap, produce input channels.
  const int64_t d = spec.mxu_dim, taps = s.kh * s.kw;
  return Tiled(spec, Conv2dFlops(s), s.n * s.OutH() * s.OutW(), ConvContraction(taps, s.oc, d), RoundUp(s.c, d),
               ConvBytes(s, elem_bytes));
}

OpCost Conv2dBackwardFilterCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes) {
  assert(s.Valid());
  // dW[taps * c, oc] = sum over output positions: contraction over n * oh * ow.
  const int64_t d = spec.mxu_dim;
  return Tiled(spec, Conv2dFlops(s), s.kh * s.kw * s.c, RoundUp(s.n * s.OutH() * s.OutW(), d),
               RoundUp(s.oc, d), ConvBytes(s, elem_bytes));
}

OpCost ElementwiseCost(const CoreSpec& spec, int64_t elements, double ops_per_element,
                       double bytes_per_element) {
  OpCost c;
  c.flops = double(elements) * ops_per_element;
  c.vector_s = c.flops / spec.vector_peak_ops();
  c.hbm_bytes = double(elements) * bytes_per_element;
  c.hbm_s = HbmSeconds(spec, c.hbm_bytes);
  c.overhead_s = spec.op_overhead_s;
  return c;
}

// Per element: statistics (add, multiply-add), normalise (subtract, 2 multiply-adds).
// Bytes: read x, write y in bf16.
OpCost BatchNormForwardCost(const CoreSpec& spec, int64_t rows, int64_t c) {
  return ElementwiseCost(spec, rows * c, 5, 2 * kBf16Bytes);
}
// Per element: xhat, two reductions, dx (about 8 ops); read x and dy, write dx.
OpCost BatchNormBackwardCost(const CoreSpec& spec, int64_t rows, int64_t c) {
  return ElementwiseCost(spec, rows * c, 8, 3 * kBf16Bytes);
}

OpCost OptimizerCost(const CoreSpec& spec, int64_t params, Optimizer opt) {
  // Ops per parameter and fp32 bytes moved (w, g read; w written; state read + written).
  switch (opt) {
    case Optimizer::kSgdMomentum: return ElementwiseCost(spec, params, 4, 5 * kF32Bytes);
    case Optimizer::kLars: return ElementwiseCost(spec, params, 8, 5 * kF32Bytes);  // + two norms
    case Optimizer::kAdam: return ElementwiseCost(spec, params, 12, 7 * kF32Bytes);
  }
  return {};
}

OpCost SoftmaxXentCost(const CoreSpec& spec, int64_t rows, int64_t classes) {
  // max, exp, sum, log, target, gradient: about 8 ops per logit; read logits, write grads.
  return ElementwiseCost(spec, rows * classes, 8, 2 * kF32Bytes);
}

}  // namespace podbench::kernels
