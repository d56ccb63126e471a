#include "kernels/cost/tpu_cost.h"

#include <algorithm>
#include <cassert>
#include <cmath>

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

OpCost& OpCost::operator*=(double n) {
  flops *= n;
  padded_flops *= n;
  hbm_bytes *= n;
  mxu_s *= n;
  vector_s *= n;
  hbm_s *= n;
  overhead_s *= n;
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
    case Optimizer::kSgd: return ElementwiseCost(spec, params, 2, 3 * kF32Bytes);
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

OpCost BatchedMatMulCost(const CoreSpec& spec, int64_t batch, int64_t m, int64_t n, int64_t k,
                         double elem_bytes) {
  const int64_t d = spec.mxu_dim;
  const double b = double(batch);
  const double bytes = b * elem_bytes * (double(m) * double(k) + double(k) * double(n) + double(m) * double(n));
  OpCost c = Tiled(spec, b * 2.0 * double(m) * double(n) * double(k), m, RoundUp(k, d), RoundUp(n, d), bytes);
  c.padded_flops *= b;
  c.mxu_s = MxuSeconds(spec, c.padded_flops);
  return c;
}

// ---------------------------------------------------------------- transposed convolution

Conv2dShape TransposedConvEquivalent(const Conv2dShape& s) {
  Conv2dShape e;
  e.n = s.n;
  e.h = s.h * s.stride;
  e.w = s.w * s.stride;
  e.c = s.oc;
  e.oc = s.c;
  e.kh = s.kh;
  e.kw = s.kw;
  e.stride = s.stride;
  e.pad = std::max<int64_t>(0, (s.kh - s.stride + 1) / 2);
  return e;
}

OpCost Conv2dTransposeForwardCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes) {
  return Conv2dBackwardDataCost(spec, TransposedConvEquivalent(s), elem_bytes);
}
OpCost Conv2dTransposeBackwardDataCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes) {
  return Conv2dForwardCost(spec, TransposedConvEquivalent(s), elem_bytes);
}
OpCost Conv2dTransposeBackwardFilterCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes) {
  return Conv2dBackwardFilterCost(spec, TransposedConvEquivalent(s), elem_bytes);
}

// ---------------------------------------------------------------- attention

namespace {
// Adds vector work and HBM traffic to `c` and recomputes their times (one
// op: the overhead is not added twice). An op with MXU work keeps counting
// MXU FLOPs only in `flops`, so that its utilisation stays the MXU's.
void AddVectorAndBytes(const CoreSpec& spec, OpCost& c, double vector_ops, double bytes) {
  if (c.padded_flops == 0) c.flops += vector_ops;
  c.vector_s += vector_ops / spec.vector_peak_ops();
  c.hbm_bytes += bytes;
  c.hbm_s = HbmSeconds(spec, c.hbm_bytes);
}
// The MXU part of `m` merged into `c` as work of the same op.
void AddMxu(OpCost& c, const OpCost& m) {
  c.flops += m.flops;
  c.padded_flops += m.padded_flops;
  c.mxu_s += m.mxu_s;
}
OpCost EmptyOp(const CoreSpec& spec) {
  OpCost c;
  c.overhead_s = spec.op_overhead_s;
  return c;
}
}  // namespace

OpCost AttentionForwardCost(const CoreSpec& spec, const AttentionCoreShape& s, double eb) {
  const int64_t bh = s.batch * s.heads;
  const double scores = double(bh) * double(s.tq) * double(s.tk);
  const double width = double(s.head_dim);
  OpCost c = EmptyOp(spec);
  double vector = scores * (1 + 4 + kTranscendentalOps + (s.causal ? 1 : 0));
  if (s.additive) {
    vector += scores * width * (2 + kTranscendentalOps);
  } else {
    AddMxu(c, BatchedMatMulCost(spec, bh, s.tq, s.tk, s.head_dim, eb));  // Q K^T
  }
  AddMxu(c, BatchedMatMulCost(spec, bh, s.tq, s.head_dim, s.tk, eb));    // P V
  const double qkvo = double(bh) * (2.0 * double(s.tq) + 2.0 * double(s.tk)) * width * eb;
  AddVectorAndBytes(spec, c, vector, qkvo + 2.0 * scores * eb);
  return c;
}

OpCost AttentionBackwardCost(const CoreSpec& spec, const AttentionCoreShape& s, double eb) {
  const int64_t bh = s.batch * s.heads;
  const double scores = double(bh) * double(s.tq) * double(s.tk);
  const double width = double(s.head_dim);
  OpCost c = EmptyOp(spec);
  double vector = scores * 4;  // softmax gradient
  AddMxu(c, BatchedMatMulCost(spec, bh, s.tq, s.tk, s.head_dim, eb));   // dP = dO V^T
  AddMxu(c, BatchedMatMulCost(spec, bh, s.tk, s.head_dim, s.tq, eb));   // dV = P^T dO
  if (s.additive) {
    vector += scores * width * (2 + kTranscendentalOps);
  } else {
    AddMxu(c, BatchedMatMulCost(spec, bh, s.tq, s.head_dim, s.tk, eb));  // dQ = dS K
    AddMxu(c, BatchedMatMulCost(spec, bh, s.tk, s.head_dim, s.tq, eb));  // dK = dS^T Q
  }
  // Q, dO, dQ (tq rows); K, V, dK, dV (tk rows), and the sums dK and dV are
  // added to when they accumulate; P read, dS written and read.
  const double tk_tensors = s.accumulate_kv_grads ? 6.0 : 4.0;
  const double rows = double(bh) * (3.0 * double(s.tq) + tk_tensors * double(s.tk)) * width * eb;
  AddVectorAndBytes(spec, c, vector, rows + 3.0 * scores * eb);
  return c;
}

// ---------------------------------------------------------------- LSTM

namespace {
constexpr double kLstmCellOps = 4 + 5 * kTranscendentalOps + 3 + 1;

// One time step's cell, forward or its gate gradients (the same vector work).
OpCost LstmStep(const CoreSpec& spec, const LstmLoopShape& s, double eb, bool backward) {
  const int64_t in = s.input + s.hidden, gates = 4 * s.hidden;
  OpCost c = backward ? MatMulCost(spec, s.batch, in, gates, eb)    // d[x, h] = dgates W^T
                      : MatMulCost(spec, s.batch, gates, in, eb);   // gates = [x, h] W
  const double b = double(s.batch), h = double(s.hidden);
  // The matmul counted W, its input and its output once; add the cell state
  // (fp32, read and written) and the gates saved for (or read by) the
  // backward pass.
  AddVectorAndBytes(spec, c, b * h * kLstmCellOps, b * h * 2 * kF32Bytes + b * double(gates) * eb);
  return c;
}
}  // namespace

OpCost LstmForwardCost(const CoreSpec& spec, const LstmLoopShape& s, double eb) {
  OpCost c = LstmStep(spec, s, eb, false);
  c *= double(s.steps);
  return c;
}

OpCost LstmBackwardCost(const CoreSpec& spec, const LstmLoopShape& s, double eb) {
  OpCost c = LstmStep(spec, s, eb, true);
  c *= double(s.steps);
  // dW[(input + hidden) x 4h] over all steps at once, written in fp32.
  const int64_t in = s.input + s.hidden;
  const int64_t dw_steps = s.weight_grad_steps > 0 ? s.weight_grad_steps : s.steps;
  OpCost dw = MatMulCost(spec, in, 4 * s.hidden, dw_steps * s.batch, eb);
  dw.hbm_bytes += double(in) * double(4 * s.hidden) * (kF32Bytes - eb);
  dw.hbm_s = HbmSeconds(spec, dw.hbm_bytes);
  c += dw;
  return c;
}

// ---------------------------------------------------------------- embedding, layer norm, pooling

OpCost EmbeddingForwardCost(const CoreSpec& spec, int64_t tokens, int64_t dim, double eb) {
  OpCost c = ElementwiseCost(spec, tokens * dim, 0, 2 * eb);
  AddVectorAndBytes(spec, c, 0, double(tokens) * 4);  // int32 ids
  return c;
}

OpCost EmbeddingBackwardCost(const CoreSpec& spec, int64_t tokens, int64_t dim, double eb) {
  OpCost c = ElementwiseCost(spec, tokens * dim, 1, eb + 2 * kF32Bytes);
  AddVectorAndBytes(spec, c, 0, double(tokens) * 4);
  return c;
}

OpCost LayerNormForwardCost(const CoreSpec& spec, int64_t rows, int64_t c, double eb) {
  OpCost o = ElementwiseCost(spec, rows * c, 5, 2 * eb);
  AddVectorAndBytes(spec, o, double(rows) * kTranscendentalOps, 0);
  return o;
}

OpCost LayerNormBackwardCost(const CoreSpec& spec, int64_t rows, int64_t c, double eb) {
  return ElementwiseCost(spec, rows * c, 10, 3 * eb);
}

OpCost PoolForwardCost(const CoreSpec& spec, int64_t in_elements, int64_t out_elements, int64_t window,
                       double eb) {
  OpCost c = ElementwiseCost(spec, out_elements, double(window), eb);
  AddVectorAndBytes(spec, c, 0, double(in_elements) * eb);
  return c;
}

OpCost PoolBackwardCost(const CoreSpec& spec, int64_t in_elements, int64_t out_elements, bool max, double eb) {
  if (max) return ElementwiseCost(spec, in_elements, 2, 2 * eb);
  OpCost c = ElementwiseCost(spec, in_elements, 1, eb);
  AddVectorAndBytes(spec, c, 0, double(out_elements) * eb);
  return c;
}

// ---------------------------------------------------------------- detection

OpCost BoxDecodeNmsCost(const CoreSpec& spec, const NmsShape& s) {
  const double b = double(s.batch), n = double(s.boxes), k = double(s.pre_nms_top_k);
  const double classes = double(s.classes);
  const double halvings = std::ceil(std::log2(std::max(2.0, n)));
  const double candidates = classes * k;
  const double merge_halvings = std::ceil(std::log2(std::max(2.0, candidates)));
  const double ops = b * (n * (8 + 2 * kTranscendentalOps) + n * classes * (2 + kTranscendentalOps) +
                          classes * n * 2 * halvings + classes * k * k * 12 + candidates * 2 * merge_halvings);
  const double bytes = b * kF32Bytes * (n * (4 + classes) + 2 * candidates * 5 + double(s.max_detections) * 7);
  OpCost c = EmptyOp(spec);
  AddVectorAndBytes(spec, c, ops, bytes);
  const double tiles = std::ceil(k / 256.0);
  c.overhead_s = spec.op_overhead_s * (1 + tiles);
  return c;
}

OpCost RoiAlignForwardCost(const CoreSpec& spec, const RoiAlignShape& s, double eb) {
  const double samples = double(s.rois) * double(s.out * s.out) * double(s.samples * s.samples) * double(s.c);
  OpCost c = EmptyOp(spec);
  AddVectorAndBytes(spec, c, samples * 8, samples * 4 * eb + double(s.rois) * double(s.out * s.out * s.c) * eb);
  return c;
}

OpCost RoiAlignBackwardCost(const CoreSpec& spec, const RoiAlignShape& s, double eb) {
  const double samples = double(s.rois) * double(s.out * s.out) * double(s.samples * s.samples) * double(s.c);
  OpCost c = EmptyOp(spec);
  AddVectorAndBytes(spec, c, samples * 8,
                    samples * 4 * 2 * eb + double(s.rois) * double(s.out * s.out * s.c) * eb);
  return c;
}

}  // namespace podbench::kernels
