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
//
// Constants of the per-op formulas below that no public source gives are
// modelling choices, stated where they are made: vector ops per element of
// each nonlinearity (a transcendental, exp/tanh/sigmoid/rsqrt, counts
// kTranscendentalOps), and which tensors an op moves through HBM (weights and
// activations in bf16, state and gradients of parameters in fp32).
#pragma once

#include <cstdint>

#include "kernels/conv/conv2d.h"
#include "kernels/core_spec.h"

namespace podbench::kernels {

struct OpCost {
  double flops = 0;         // useful MXU FLOPs (2 per multiply-add); vector ops when there are none
  double padded_flops = 0;  // FLOPs the MXU executes including padding
  double hbm_bytes = 0;
  double mxu_s = 0, vector_s = 0, hbm_s = 0, overhead_s = 0;

  double total_s() const;
  // Useful / padded MXU FLOPs (1 when there is no MXU work).
  double mxu_utilisation() const { return padded_flops > 0 ? flops / padded_flops : 1.0; }
  // "mxu", "vector" or "hbm": the largest of the three.
  const char* bound() const;
  OpCost& operator+=(const OpCost& o);
  // The cost of doing this op n times one after another: every field times n.
  OpCost& operator*=(double n);
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

enum class Optimizer { kSgd, kSgdMomentum, kLars, kAdam };
// One update of `params` fp32 parameters with their fp32 state, one op.
// Ops and fp32 accesses per parameter: SGD 2 ops (w, g read; w written);
// momentum 4 (+ the velocity read and written); LARS 8 (momentum + its share
// of the weight and gradient norms and the trust ratio); Adam 12 (two moments
// read and written, a square root and a division). LazyAdam is Adam on the
// rows it updates.
OpCost OptimizerCost(const CoreSpec& spec, std::int64_t params, Optimizer opt);

// Softmax cross-entropy over rows x classes, forward and backward together.
OpCost SoftmaxXentCost(const CoreSpec& spec, std::int64_t rows, std::int64_t classes);

// ---------------------------------------------------------------- further op kinds

// Vector ops one transcendental (exp, tanh, sigmoid, rsqrt) costs: a
// modelling choice (a polynomial or table step plus a Newton step), not a
// published TPU figure.
constexpr double kTranscendentalOps = 4;

// `batch` independent products C[m x n] = A[m x k] B[k x n], each padded to
// tiles as MatMulCost pads one; one op.
OpCost BatchedMatMulCost(const CoreSpec& spec, std::int64_t batch, std::int64_t m, std::int64_t n,
                         std::int64_t k, double elem_bytes = kBf16Bytes);

// Transposed convolution (a 2x2 stride-2 "deconvolution"): `s` is the
// transposed convolution itself, input s.h x s.w x s.c, output
// (s.h * stride) x (s.w * stride) x s.oc. It is priced as the convolution it
// transposes (input h*stride x w*stride x oc, output h x w x c, the same
// window, padding (k - stride + 1) / 2): its forward pass is that
// convolution's backward-data pass, its input gradient that convolution's
// forward pass, its filter gradient that convolution's filter gradient.
// REQUIRES: s.n, s.h, s.w, s.c, s.oc, s.kh, s.kw, s.stride >= 1.
Conv2dShape TransposedConvEquivalent(const Conv2dShape& s);
OpCost Conv2dTransposeForwardCost(const CoreSpec& spec, const Conv2dShape& s, double elem_bytes = kBf16Bytes);
OpCost Conv2dTransposeBackwardDataCost(const CoreSpec& spec, const Conv2dShape& s,
                                       double elem_bytes = kBf16Bytes);
OpCost Conv2dTransposeBackwardFilterCost(const CoreSpec& spec, const Conv2dShape& s,
                                         double elem_bytes = kBf16Bytes);

// Multi-head attention core for `batch` sequences: per head, S = Q K^T
// (tq x tk, contraction head_dim), P = softmax(S), O = P V.
//   MXU: two batched matmuls per head (QK^T: m = tq, k = head_dim, n = tk;
//        PV: m = tq, k = tk, n = head_dim), padded as MatMulCost pads.
//   Vector, per score: scale 1, softmax 4 + one transcendental, +1 for a
//        causal mask (XLA computes the masked half too).
//   HBM: Q, K, V read and O written, and the probabilities P written and read
//        once (TPU-v3 XLA materialises them; no fused attention kernel).
//   Additive (Bahdanau) scores v . tanh(q + k) run on the vector unit: per
//        score and width element an add, a tanh and a multiply-add; PV on the
//        MXU as above.
// Backward: dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q on the MXU (four
//   batched matmuls; additive: dP and dV only, the rest on the vector unit at
//   2 + one transcendental per score and width element); the softmax
//   gradient 4 ops per score; HBM reads Q, K, V, dO and P, writes dQ, dK,
//   dV, and writes and reads dS once. With accumulate_kv_grads it also reads
//   dK and dV: the keys and values are shared by the steps of a loop, so each
//   step's gradients are added to the sums of the steps after it.
struct AttentionCoreShape {
  std::int64_t batch = 1, heads = 1, tq = 1, tk = 1, head_dim = 1;
  bool causal = false;
  bool additive = false;
  bool accumulate_kv_grads = false;
};
OpCost AttentionForwardCost(const CoreSpec& spec, const AttentionCoreShape& s, double elem_bytes = kBf16Bytes);
OpCost AttentionBackwardCost(const CoreSpec& spec, const AttentionCoreShape& s, double elem_bytes = kBf16Bytes);

// One LSTM layer, one direction, over `steps` time steps of `batch`
// sequences. Each step is an op of its own (a while loop: the next step
// needs this one's h):
//   MXU: gates[batch x 4h] = [x_t, h] W, contraction input + hidden;
//   vector, per hidden unit: bias 4, three sigmoids and two tanh
//     (5 transcendentals), the cell update 3 and the output 1;
//   HBM: W read every step (2 x 4h x (input + hidden) bf16 does not stay in
//     VMEM across steps), x_t and h read, h written (bf16), c read and
//     written (fp32), the gates saved for the backward pass (bf16).
// Backward: per step the gate gradients (the same vector work) and
//   d[x, h] = dgates W^T (m = batch, k = 4h, n = input + hidden, W read
//   again); the weight gradient is one matmul after the loop over all steps
//   (m = input + hidden, contraction weight_grad_steps x batch, n = 4h, fp32
//   result).
struct LstmLoopShape {
  std::int64_t batch = 1, steps = 1, input = 1, hidden = 1;
  // Time steps the weight gradient's matmul contracts over; 0: `steps`. A
  // loop that stops early but keeps its states in a buffer of the padded
  // length computes the weight gradient over the whole buffer (Google's v0.6
  // GNMT: `build_rnn`'s dtheta["kernel"] over max_time - 1 steps).
  std::int64_t weight_grad_steps = 0;
};
OpCost LstmForwardCost(const CoreSpec& spec, const LstmLoopShape& s, double elem_bytes = kBf16Bytes);
OpCost LstmBackwardCost(const CoreSpec& spec, const LstmLoopShape& s, double elem_bytes = kBf16Bytes);

// Embedding lookup of `tokens` rows of `dim` (a gather: no vector work; the
// rows read and the output written in elem_bytes, the int32 ids read).
OpCost EmbeddingForwardCost(const CoreSpec& spec, std::int64_t tokens, std::int64_t dim,
                            double elem_bytes = kBf16Bytes);
// Its sparse gradient: a scatter-add of the `tokens` output-gradient rows
// into the fp32 table gradient (one add per element; dy read, the gradient
// row read and written).
OpCost EmbeddingBackwardCost(const CoreSpec& spec, std::int64_t tokens, std::int64_t dim,
                             double elem_bytes = kBf16Bytes);

// Layer norm over rows x c, statistics per row. Forward 5 ops per element
// (mean, variance, normalise, scale and shift) and one rsqrt per row; x read,
// y written. Backward 10 ops per element (x-hat, the two row sums, dx, and the
// scale and shift gradients summed over rows); x and dy read, dx written.
OpCost LayerNormForwardCost(const CoreSpec& spec, std::int64_t rows, std::int64_t c,
                            double elem_bytes = kBf16Bytes);
OpCost LayerNormBackwardCost(const CoreSpec& spec, std::int64_t rows, std::int64_t c,
                             double elem_bytes = kBf16Bytes);

// Pooling with a window of `window` elements (k x k): forward `window` ops
// per output element, input read and output written. Backward of a max pool:
// 2 ops per input element (the argmax test and the select), x read and dx
// written; of an average pool: 1 op per input element, dy read, dx written.
OpCost PoolForwardCost(const CoreSpec& spec, std::int64_t in_elements, std::int64_t out_elements,
                       std::int64_t window, double elem_bytes = kBf16Bytes);
OpCost PoolBackwardCost(const CoreSpec& spec, std::int64_t in_elements, std::int64_t out_elements, bool max,
                        double elem_bytes = kBf16Bytes);

// Box decode and non-maximum suppression of `batch` images, vectorised over
// them (one op, no gradient). Per image, on the vector unit:
//   decode 8 ops + 2 transcendentals per box; class scores 1 transcendental
//   + 2 ops per box and class; per class a top-k by binary search over the
//   boxes' scores (2 ops per box per halving, log2(boxes) halvings); the
//   IoU of every pair of the kept top-k boxes (12 ops, the whole padded
//   matrix, as tiled padded NMS computes it); the merge of classes x top-k
//   candidates into max_detections (2 ops per candidate per halving).
// HBM: boxes and scores read in fp32, the per-class candidates written and
// read, the detections (7 fp32 each) written. Overhead: one op plus one per
// 256-box tile of the sequential suppression loop.
struct NmsShape {
  std::int64_t batch = 1, boxes = 1, classes = 1, pre_nms_top_k = 1, max_detections = 1;
};
OpCost BoxDecodeNmsCost(const CoreSpec& spec, const NmsShape& s);

// ROIAlign of `rois` boxes (all images together) to out x out bins of c
// channels, samples x samples bilinear samples per bin: per sample and
// channel four corner reads and 8 ops (bilinear weights and the bin
// average). The corners are gathered from HBM (no reuse is assumed); the
// pooled output is written. Backward: the same ops as a scatter-add, dy read,
// the corners' gradients read and written.
struct RoiAlignShape {
  std::int64_t rois = 1, out = 7, c = 256, samples = 2;
};
OpCost RoiAlignForwardCost(const CoreSpec& spec, const RoiAlignShape& s, double elem_bytes = kBf16Bytes);
OpCost RoiAlignBackwardCost(const CoreSpec& spec, const RoiAlignShape& s, double elem_bytes = kBf16Bytes);

}  // namespace podbench::kernels
