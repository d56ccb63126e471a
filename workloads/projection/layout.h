// How a model is laid on a slice: the parallel layout the projection layer
// prices, the functional executors run, the harness checks against the slice,
// stores with each run and `podbench show` prints.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "workloads/projection/graph.h"

namespace podbench::projection {

// The dimension a replica's cores split an example along (spatial
// partitioning). Only convolutional models split, along the image height, as
// Google's v0.6 SSD and Mask R-CNN did (input_partition_dims [1,4,1,1]).
enum class SplitDim { kNone, kHeight };
const char* SplitDimName(SplitDim d);  // "none", "h"

struct ParallelLayout {
  int64_t replicas = 1;           // data-parallel replicas
  int64_t cores_per_replica = 1;  // > 1: spatial partitioning over these cores
  SplitDim split = SplitDim::kNone;
  // Reduce-scatter the gradients, update each core's 1/N of the weights,
  // all-gather them (the pair topology::ShardedPairOf(allreduce) names).
  bool weight_update_sharding = false;
  int64_t bn_group = 1;           // replicas per distributed batch-norm group (1 = local BN)
  DType gradient_dtype = DType::kF32;  // of the gradient summation (bf16: Transformer on tpu-v3-32)
  std::string allreduce = "torus2d";   // a registered topology all-reduce

  int64_t cores() const { return replicas * cores_per_replica; }

  // InvalidArgument naming the field unless: replicas, cores_per_replica and
  // bn_group >= 1; replicas x cores_per_replica == slice_cores; bn_group
  // divides replicas; split is kHeight exactly when cores_per_replica > 1;
  // gradient_dtype is bf16 or fp32. (Whether `allreduce` names a registered
  // algorithm is topology's to say, when it is priced or run.)
  Status Validate(int64_t slice_cores) const;
};

enum class OptimizerKind { kSgd, kMomentum, kLars, kAdam, kLazyAdam };
const char* OptimizerName(OptimizerKind k);  // "sgd", "momentum", "lars", "adam", "lazy_adam"

// Everything besides the graph and the system that prices a full-size step:
// what a preset (e.g. Google's v0.6 submission) sets for a model on a slice.
struct StepConfig {
  ParallelLayout layout;
  OptimizerKind optimizer = OptimizerKind::kMomentum;
  // Examples of the graph's unit (ModelGraph::example_unit) per replica per
  // training step; with spatial partitioning the replica's cores share them.
  int64_t per_replica_batch = 1;
  int64_t eval_per_replica_batch = 1;  // per evaluation step
  // The host input pipeline caches decoded examples in memory: the first
  // epoch fills the cache (at host.cache_fill_bytes_per_s), later epochs
  // read from it (Google's v0.6 ResNet on tpu-v3-32 and -128).
  bool cache_decoded_examples = false;
};

}  // namespace podbench::projection
