// The data-parallel switches every functional workload offers through
// --set, and the DataParallelConfig they select. They are switches of the
// emulated backend (the seed papers' techniques, ablated one at a time),
// not MLPerf hyperparameters: none is written to the MLPerf log; the run
// records them with its hyperparameters (`podbench show`).
//
//   allreduce                 the gradient all-reduce: ring, ring_bidir,
//                             torus2d (default), torus2d_pipelined,
//                             torus2d_bidir (each has a reduce-scatter /
//                             all-gather pair, topology::ShardedPairOf)
//   gradient_allreduce_dtype  fp32 (default) or bf16
//   weight_update_sharding    false (default) or true
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "topology/system.h"
#include "workloads/functional/data_parallel.h"
#include "workloads/projection/layout.h"
#include "workloads/workload.h"

namespace podbench::functional {

// The three specs above; `optimizer` names the update each core applies to
// its shard (e.g. "Adam") in weight_update_sharding's help.
std::vector<workloads::HyperparameterSpec> DataParallelHyperparameters(const std::string& optimizer);

// The config those hyperparameters select on `slice` (one replica per core).
// REQUIRES: hp resolved from specs that include DataParallelHyperparameters.
DataParallelConfig DataParallelFromHyperparameters(const workloads::Hyperparameters& hp,
                                                   const workloads::SliceInfo& slice,
                                                   const topology::SystemSpec* system);

// The layout of a spatially partitioned functional run (SSD's, Mask R-CNN's)
// from hp's `spatial_partitions` k, `global_batch_size` and `allreduce` on
// `slice`: slice.cores / k replicas of k consecutive cores, split along the
// image height when k > 1, fp32 gradients summed with `allreduce`; bn_group
// 1 (the caller sets its own). InvalidArgument naming the hyperparameter and
// the values unless k is 1, 2 or 4 and divides the slice's cores and the
// global batch splits evenly over the replicas.
// REQUIRES: hp declares those three hyperparameters.
Result<projection::ParallelLayout> SpatiallyPartitionedLayout(const workloads::Hyperparameters& hp,
                                                             const workloads::SliceInfo& slice);

}  // namespace podbench::functional
