// The API workloads and the harness use: price or run a collective by name.
//
//   const SystemSpec& sys = DefaultSystem();
//   Result<Slice> slice = Slice::FromName("tpu-v3-2048", sys);
//   LogicalTopology all = LogicalTopology::WholeSlice(*slice);
//   Result<double> t = CollectiveTime("torus2d", 25.6e6 * 4, all);       // analytic, s
//   Result<SimResult> s = SimulateCollective("torus2d", 25.6e6 * 4, DType::kF32, all);
//
// Analytic times assume no contention (alpha-beta per hop, see algorithm.h);
// the event simulation adds contention and the dependency structure.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "topology/algorithm.h"
#include "topology/event_sim.h"
#include "topology/functional.h"
#include "topology/logical.h"

namespace podbench::topology {

// Analytic time in seconds of `algorithm` for a per-core payload of `bytes`.
// NotFound for an unknown algorithm.
Result<double> CollectiveTime(std::string_view algorithm, double bytes, const LogicalTopology& logical,
                              const AlgorithmOptions& options = {});

// Builds the schedule for `bytes` of `dtype` (rounded down to whole
// elements) and simulates it. Cost grows with the number of transfers: a
// 2-D all-reduce on tpu-v3-2048 has ~130 k, a 1-D ring ~2 M.
Result<SimResult> SimulateCollective(std::string_view algorithm, double bytes, DType dtype,
                                     const LogicalTopology& logical, const AlgorithmOptions& options = {},
                                     const SimOptions& sim_options = {});

// Weight-update sharding. Every reduce-scatter and all-gather in the registry
// (reduce_scatter, all_gather, torus2d_reduce_scatter, torus2d_all_gather)
// uses one layout, so any reduce-scatter pairs with any all-gather: member i
// of a group (core g.first_core + i, members in core order) owns the i-th of
// g.size nearly equal contiguous parts of the buffer,
//   [elements * i / g.size, elements * (i + 1) / g.size)   (integer division).
// A reduce-scatter leaves the group sum there (and unspecified partial sums
// elsewhere); an all-gather sends it to every member. Whole slice: the group
// is every core, so core c owns part c of num_cores. Offset = begin,
// length = end - begin; a shard is empty when elements < group size.
// REQUIRES: 0 <= core < logical.torus().num_cores().
ElementRange ShardOfCore(const LogicalTopology& logical, uint64_t elements, int core);
// The union of the shards of replica `replica`'s cores [replica k, replica k + k)
// (k = cores per replica): contiguous. REQUIRES: 0 <= replica < num_replicas().
ElementRange ShardOfReplica(const LogicalTopology& logical, uint64_t elements, int replica);

// The reduce-scatter and all-gather that together do what all-reduce
// `allreduce` does, over the same rings (weight-update sharding splits the
// all-reduce around the optimizer): torus2d and torus2d_pipelined ->
// torus2d_reduce_scatter + torus2d_all_gather; torus2d_bidir -> the
// bidirectional 2-D pair; ring and ring_bidir -> the 1-D reduce_scatter +
// all_gather (there is no bidirectional 1-D pair). All share ShardOfCore's
// layout. NotFound for a name that is not one of those all-reduces.
struct ShardedAllReduce {
  std::string reduce_scatter, all_gather;
};
Result<ShardedAllReduce> ShardedPairOf(std::string_view allreduce);

// Runs `algorithm` on `buffers` (which hold every core) with threads.
Status RunCollective(std::string_view algorithm, const LogicalTopology& logical, CoreBuffers& buffers,
                     const AlgorithmOptions& options = {}, int threads = 0);

}  // namespace podbench::topology
