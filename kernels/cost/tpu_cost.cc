#include "kernels/cost/tpu_cost.h"

#include <fmt/format.h>

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

std::vector<NamedConv> ResNet50Convs(int64_t batch) {
  std::vector<NamedConv> out;
  auto add = [&](std::string name, int64_t hw, int64_t c, int64_t oc, int64_t k, int64_t stride) {
    Conv2dShape s;
    s.n = batch;
    s.h = s.w = hw;
    s.c = c;
    s.oc = oc;
    s.kh = s.kw = k;
    s.stride = stride;
    s.pad = k / 2;
    out.push_back({std::move(name), s});
  };
  add("conv1", 224, 3, 64, 7, 2);
  const int blocks[4] = {3, 4, 6, 3};
  int64_t hw = 56, in_c = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = 64 << stage, out_c = 4 * width;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string base = fmt::format("res{}{}", stage + 2, char('a' + b));
      const int64_t stride = (b == 0 && stage > 0) ? 2 : 1;
      if (b == 0) add(base + "_branch1", hw, in_c, out_c, 1, stride);
      add(base + "_branch2a", hw, in_c, width, 1, 1);
      add(base + "_branch2b", hw, width, width, 3, stride);
      hw /= stride;
      add(base + "_branch2c", hw, width, out_c, 1, 1);
      in_c = out_c;
    }
  }
  return out;
}

std::vector<LayerCost> ResNet50ConvCosts(const CoreSpec& spec, int64_t batch) {
  std::vector<LayerCost> out;
  for (NamedConv& c : ResNet50Convs(batch)) {
    LayerCost l{c, Conv2dForwardCost(spec, c.shape), Conv2dBackwardDataCost(spec, c.shape),
                Conv2dBackwardFilterCost(spec, c.shape)};
    if (out.empty()) l.backward_data = OpCost{};  // the input images need no gradient
    out.push_back(std::move(l));
  }
  return out;
}

std::string FormatResNet50CostTable(const CoreSpec& spec, int64_t batch) {
  std::string t = fmt::format(
      "ResNet-50 v1.5 convolutions, batch {} per core, TPU-v3 core ({:.1f} TFLOP/s bf16, {:.0f} GB/s HBM)\n",
      batch, spec.mxu_peak_flops() / 1e12, spec.hbm_bandwidth / 1e9);
  t += fmt::format("{:<16} {:>9} {:>5} {:>5} {:>3} {:>8} {:>6} {:>6} {:>9} {:>9} {:>9}\n", "layer", "in",
                   "c", "oc", "k/s", "GFLOP", "util", "bound", "fwd us", "bwd us", "total us");
  OpCost fwd;
  double fwd_total = 0, bwd_total = 0;
  for (const LayerCost& l : ResNet50ConvCosts(spec, batch)) {
    const Conv2dShape& s = l.conv.shape;
    const double b_s = l.backward_data.total_s() + l.backward_filter.total_s();
    t += fmt::format("{:<16} {:>9} {:>5} {:>5} {:>1}/{:<1} {:>8.2f} {:>5.0f}% {:>6} {:>9.1f} {:>9.1f} {:>9.1f}\n",
                     l.conv.name, fmt::format("{}x{}", s.h, s.w), s.c, s.oc, s.kh, s.stride,
                     l.forward.flops / 1e9, 100 * l.forward.mxu_utilisation(), l.forward.bound(),
                     l.forward.total_s() * 1e6, b_s * 1e6, (l.forward.total_s() + b_s) * 1e6);
    fwd += l.forward;
    fwd_total += l.forward.total_s();
    bwd_total += b_s;
  }
  t += fmt::format("{:<16} {:>9} {:>5} {:>5} {:>3} {:>8.2f} {:>5.0f}% {:>6} {:>9.1f} {:>9.1f} {:>9.1f}\n", "total",
                   "", "", "", "", fwd.flops / 1e9, 100 * fwd.mxu_utilisation(), "", fwd_total * 1e6,
                   bwd_total * 1e6, (fwd_total + bwd_total) * 1e6);
  return t;
}

}  // namespace podbench::kernels
