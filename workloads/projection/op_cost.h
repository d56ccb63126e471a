// One op of a ModelGraph priced on one emulated TPU-v3 core: which share of
// the op a core computes, and the kernels' cost functions
// (kernels/cost/tpu_cost.h) applied to that share. No op kind has a fitted
// constant of its own; every formula is tpu_cost's.
//
// Passes per op kind (eb = bytes of the op's dtype; n = examples x instances):
//   conv2d        forward; backward = input gradient (needs_input_grad) +
//                 filter gradient (when it trains a parameter). Transposed:
//                 tpu_cost's transposed-convolution passes.
//   matmul        [n m, k] x [k, n_out]; backward dX (needs_input_grad) and
//                 dW (trains a parameter); a matmul of two activations (no
//                 parameter) has both input gradients.
//   attention     tpu_cost's attention core; backward when needs_input_grad.
//   lstm          tpu_cost's LSTM over its steps; backward always (it holds
//                 its weights).
//   embedding     a gather; its sparse gradient when it trains its table.
//   norm          batch norm (tpu_cost's BN passes; frozen: a scale and shift,
//                 2 ops forward, 1 backward) or layer norm.
//   elementwise   ElementwiseCost, (inputs + 1) tensors forward, (inputs + 2)
//                 backward.
//   pool          tpu_cost's pooling passes.
//   softmax_xent  SoftmaxXentCost (forward and backward in one op).
//   box_decode_nms, roi_align  tpu_cost's; NMS has no gradient.
// `sequential_steps` multiplies an op's cost, its overhead included (each
// step is an op of its own). An attention op's steps attend to the same keys
// and values, so its backward sums their gradients over the steps
// (AttentionCoreShape::accumulate_kv_grads).
//
// Fusion: an op with `fused` (and fusion honoured) keeps only its vector-unit
// time: no HBM round trip, no overhead of its own.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/core_spec.h"
#include "kernels/cost/tpu_cost.h"
#include "workloads/projection/categories.h"
#include "workloads/projection/graph.h"

namespace podbench::projection {

// The category an op's time goes to when its units overlap: the unit that
// bounds it (the largest of its MXU, vector-unit and HBM times; ties go to
// the MXU, then the vector unit).
Category BoundCategory(const kernels::OpCost& c);

// The share of `op` one core computes when the op is split over `k` cores
// along the image height (spatial partitioning), per kind:
//   conv2d, pool  ceil(out_h / k) output rows (a transposed convolution:
//                 ceil(h / k) input rows), with the input rows they read;
//   norm          ceil(rows / k) rows;  elementwise  ceil(elements / k);
//   matmul        ceil(m / k) rows when m >= k, else the whole op (a
//                 per-image dense layer is computed by every core);
//   attention     ceil(tq / k) queries;  embedding  ceil(tokens / k);
//   softmax_xent  ceil(rows / k) rows;  roi_align  ceil(rois / k);
//   lstm, box_decode_nms  the whole op (a recurrence and a global
//                 selection do not split along the image).
// An op with fewer rows than cores is padded, as XLA's partitioner pads an
// uneven sharding (each core's shard is ceil(rows / k) rows, the rows past
// the tensor's end are zeros the core computes on): every core runs the same
// program on a 1-row shard, and the cores holding only padding do no useful
// work (SplitUsefulFraction).
// REQUIRES: k >= 1. k == 1 returns `op` unchanged.
Op CoreShare(const Op& op, int64_t k);

// The share of a split op's padded per-core work that is real: out_h /
// (k x ceil(out_h / k)) for a convolution (h for a transposed one) and a
// non-global pool, 1 for every other kind (their rows are many, their
// padding negligible). SSD's extra layers at k = 4: 3 rows -> 0.75, 1 row ->
// 0.25. REQUIRES: k >= 1.
double SplitUsefulFraction(const Op& op, int64_t k);

// Rows of the input (forward) and of the output gradient (backward) a core
// needs from EACH neighbouring partition of a split op: a convolution with
// a window taller than 1 reads kh / 2 rows beyond its share (a transposed
// one (kh - stride + 1) / 2), its input gradient ceil((kh / 2) / stride)
// rows of dy; a pool with a window of k > 1 that is not global reads k / 2
// rows forward and none backward. 0 for every other op.
struct HaloRows {
  int64_t forward = 0, backward = 0;
  // Elements of one row of the input / of the output gradient, per example.
  int64_t forward_row_elements = 0, backward_row_elements = 0;
};
HaloRows HaloRowsOf(const Op& op);

struct OpPasses {
  kernels::OpCost forward;
  kernels::OpCost backward;
  bool has_backward = false;
};

// Forward and backward cost of `op` for `examples` examples of the model's
// unit on one core (the op's shape as given: apply CoreShare first for a
// split op). `trains` says whether the op reads a trainable parameter (its
// weight gradient is computed). `honour_fusion` false prices fused ops as
// ops of their own.
// REQUIRES: examples >= 1.
OpPasses PriceOp(const Op& op, int64_t examples, bool trains, const kernels::CoreSpec& core, bool honour_fusion);

// The op's per-example shape for tables, e.g. "56x56x64 -> 56x56x256 k1/1",
// "[256x1024] x [1024x4096]", "16h 256x256 d64 causal".
std::string OpShape(const Op& op);

}  // namespace podbench::projection
