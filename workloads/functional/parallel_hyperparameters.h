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

#include "topology/system.h"
#include "workloads/functional/data_parallel.h"
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

}  // namespace podbench::functional
