// "key=value" overrides of a step configuration and the pricing options
// (`podbench model --set`), for what-ifs and ablations on top of a preset.
//
// Keys:
//   cores_per_replica=K        spatial partitioning over K cores along h
//                              (replicas become slice cores / K; K = 1: none)
//   weight_update_sharding=B   reduce-scatter, update 1/N, all-gather
//   allreduce=NAME             a registered topology all-reduce
//   bn_group=N                 replicas per distributed batch-norm group
//   gradient_dtype=bf16|fp32
//   optimizer=sgd|momentum|lars|adam|lazy_adam
//   per_replica_batch=N, eval_per_replica_batch=N
//   cache_decoded_examples=B
//   fuse_elementwise=B, distributed_eval=B, bn_algorithm=NAME
//   overlap.units_within_op=B, overlap.input_with_device=B,
//   overlap.gradients_with_backward=B, overlap.halo_with_compute=B,
//   overlap.bn_sync_with_compute=B, overlap.eval_scoring_with_training=B,
//   overlap.eval_input_with_training=B
// B is true or false. Values are checked for form here; whether the
// resulting layout fits the slice is ValidateProjection's to say.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/projection/layout.h"
#include "workloads/projection/projection.h"

namespace podbench::projection {

// The keys ApplyOverride accepts, in the order above.
const std::vector<std::string>& OverrideKeys();

// Applies one "key=value" to `config` / `options` for a slice of
// `slice_cores` cores. InvalidArgument naming the item for a missing '=', an
// unknown key (listing the keys) or a malformed value; `config` and
// `options` are unchanged then.
Status ApplyOverride(std::string_view item, int64_t slice_cores, StepConfig* config, ProjectionOptions* options);

}  // namespace podbench::projection
