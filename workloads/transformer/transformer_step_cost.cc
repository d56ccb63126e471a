#include "workloads/transformer/transformer_step_cost.h"

#include <algorithm>

#include "kernels/cost/tpu_cost.h"
#include "topology/collectives.h"

namespace podbench::transformer {
namespace {

using kernels::CoreSpec;
using kernels::ElementwiseCost;
using kernels::MatMulCost;

// `count` instances of one op run as a single batched op: the units' times
// add up, the per-op overhead is paid once.
double Batched(const kernels::OpCost& c, double count) {
  return std::max({c.mxu_s, c.vector_s, c.hbm_s}) * count + c.overhead_s;
}

// Forward (+ backward: the gradients of both operands) of a dense layer.
double Dense(const CoreSpec& s, int64_t m, int64_t in, int64_t out, bool backward) {
  double t = MatMulCost(s, m, out, in).total_s();
  if (backward) t += MatMulCost(s, m, in, out).total_s() + MatMulCost(s, in, out, m).total_s();
  return t;
}

// Scores and weighted values of `batch` (rows x heads) attention instances;
// the backward pass has twice the forward's matmuls.
double Attention(const CoreSpec& s, int64_t batch, int64_t tq, int64_t tk, int64_t dh, bool backward) {
  const double f = backward ? 3 : 1;
  const double mm = Batched(MatMulCost(s, tq, tk, dh), f * static_cast<double>(batch)) +
                    Batched(MatMulCost(s, tq, dh, tk), f * static_cast<double>(batch));
  // Scale, mask and softmax of the scores (and their backward).
  const double sm = ElementwiseCost(s, batch * tq * tk, backward ? 10 : 5, backward ? 8 : 4).total_s();
  return mm + sm;
}

// Layer norm, dropout and the residual add of one pre-norm sublayer on n x d.
double SublayerElementwise(const CoreSpec& s, int64_t n, int64_t d, bool backward) {
  return ElementwiseCost(s, n * d, backward ? 26 : 12, backward ? 16 : 8).total_s();
}

// One core's encoder or decoder stack over n tokens in rows of `len`.
double StackCost(const CoreSpec& s, const TransformerConfig& m, bool decoder, int64_t rows, int64_t len,
                 bool backward) {
  const int64_t n = rows * len, d = m.hidden, f = m.filter, dh = m.hidden / m.heads;
  double t = 0;
  const int layers = decoder ? m.decoder_layers : m.encoder_layers;
  for (int l = 0; l < layers; ++l) {
    t += Dense(s, n, d, 3 * d, backward) + Attention(s, rows * m.heads, len, len, dh, backward) +
         Dense(s, n, d, d, backward) + SublayerElementwise(s, n, d, backward);
    if (decoder) {
      t += Dense(s, n, d, d, backward) + Dense(s, n, d, 2 * d, backward) +
           Attention(s, rows * m.heads, len, len, dh, backward) + Dense(s, n, d, d, backward) +
           SublayerElementwise(s, n, d, backward);
    }
    t += Dense(s, n, d, f, backward) + Dense(s, n, f, d, backward) + SublayerElementwise(s, n, d, backward) +
         ElementwiseCost(s, n * f, backward ? 2 : 1, backward ? 8 : 4).total_s();  // ReLU
  }
  return t;
}

}  // namespace

Result<FunctionalPrice> PriceFunctional(const TransformerConfig& model, const FunctionalPriceInputs& in,
                                        const topology::Slice& slice, const topology::SystemSpec& system) {
  PODBENCH_RETURN_IF_ERROR(model.Validate());
  if (in.rows_per_core < 1 || in.length < 1) {
    return Status::InvalidArgument("transformer pricing: rows_per_core and length must be >= 1");
  }
  const CoreSpec& s = system.core;
  const int64_t n = in.rows_per_core * in.length, d = model.hidden;
  FunctionalPrice p;
  p.compute_s = StackCost(s, model, false, in.rows_per_core, in.length, true) +
                StackCost(s, model, true, in.rows_per_core, in.length, true) +
                Dense(s, n, d, model.vocab, true) + kernels::SoftmaxXentCost(s, n, model.vocab).total_s();
  const int64_t params = ParameterLayout(model).total;
  const int cores = slice.num_cores();
  const bool sharded = in.weight_update_sharding && cores > 1;
  p.optimizer_s = kernels::OptimizerCost(s, sharded ? (params + cores - 1) / cores : params, kernels::Optimizer::kAdam)
                      .total_s();
  if (cores > 1) {
    const topology::LogicalTopology whole = topology::LogicalTopology::WholeSlice(slice);
    const double grad_bytes = static_cast<double>(params) * topology::BytesPerElement(in.gradient_dtype);
    if (sharded) {
      PODBENCH_ASSIGN_OR_RETURN(topology::ShardedAllReduce pair, topology::ShardedPairOf(in.allreduce));
      PODBENCH_ASSIGN_OR_RETURN(double rs, topology::CollectiveTime(pair.reduce_scatter, grad_bytes, whole));
      PODBENCH_ASSIGN_OR_RETURN(double ag, topology::CollectiveTime(pair.all_gather, static_cast<double>(params) * 4, whole));
      p.collectives_s = rs + ag;
    } else {
      PODBENCH_ASSIGN_OR_RETURN(p.collectives_s, topology::CollectiveTime(in.allreduce, grad_bytes, whole));
    }
  }
  // Evaluation: the encoder forward per source token, and one decoder step
  // per target token at 32 sentences x 4 beams per core (a decode step's
  // rows), attending over about half the row length.
  p.eval_encode_token_s = StackCost(s, model, false, in.rows_per_core, in.length, false) / static_cast<double>(n);
  const int64_t rows = 128;
  double step = Dense(s, rows, d, model.vocab, false);
  for (int l = 0; l < model.decoder_layers; ++l) {
    step += Dense(s, rows, d, 3 * d, false) + Dense(s, rows, d, d, false) * 3 + Dense(s, rows, d, model.filter, false) +
            Dense(s, rows, model.filter, d, false) + 3 * SublayerElementwise(s, rows, d, false) +
            ElementwiseCost(s, rows * in.length * d, 4, 2).total_s();  // attention over the caches
  }
  p.eval_decode_token_s = step / static_cast<double>(rows);
  return p;
}

}  // namespace podbench::transformer
