// The emulated TPU-v3 clock of FUNCTIONAL Transformer runs: what the steps
// and the evaluation that run for real would cost on the slice.
//
// MODELLED, AND TEMPORARY: PriceFunctional prices the ops the functional
// model runs with the kernels' TPU-v3 cost functions (kernels/cost/
// tpu_cost.h) and the gradient summation with topology::CollectiveTime. It
// is the one place the functional Transformer's clock comes from, and is to
// be replaced by the shared projection layer (workloads/projection/) pricing
// the same model graph, as projected mode will.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "topology/functional.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/transformer/transformer_model.h"

namespace podbench::transformer {

struct FunctionalPriceInputs {
  int64_t rows_per_core = 1;  // packed rows per core per step
  int64_t length = 64;        // packed row length
  std::string allreduce = "torus2d";
  topology::DType gradient_dtype = topology::DType::kF32;
  bool weight_update_sharding = false;
};

struct FunctionalPrice {
  // One training step, emulated seconds.
  double compute_s = 0, collectives_s = 0, optimizer_s = 0;
  // Evaluation (in-memory beam search on the cores): per source token
  // encoded and per target token decoded on one core (one beam row).
  double eval_encode_token_s = 0, eval_decode_token_s = 0;
};

// NotFound for an unknown all-reduce; InvalidArgument for an invalid config.
Result<FunctionalPrice> PriceFunctional(const TransformerConfig& model, const FunctionalPriceInputs& in,
                                        const topology::Slice& slice, const topology::SystemSpec& system);

}  // namespace podbench::transformer
