#include "topology/collectives.h"

#include <cassert>
#include <cmath>

#include "topology/algorithms/common.h"

namespace podbench::topology {

Result<ShardedAllReduce> ShardedPairOf(std::string_view allreduce) {
  if (allreduce == "torus2d" || allreduce == "torus2d_pipelined") {
    return ShardedAllReduce{"torus2d_reduce_scatter", "torus2d_all_gather"};
  }
  if (allreduce == "torus2d_bidir") {
    return ShardedAllReduce{"torus2d_bidir_reduce_scatter", "torus2d_bidir_all_gather"};
  }
  if (allreduce == "ring" || allreduce == "ring_bidir") return ShardedAllReduce{"reduce_scatter", "all_gather"};
  return Status::NotFound("no reduce-scatter/all-gather pair for all-reduce '" + std::string(allreduce) + "'");
}

Result<double> CollectiveTime(std::string_view algorithm, double bytes, const LogicalTopology& logical,
                              const AlgorithmOptions& options) {
  PODBENCH_ASSIGN_OR_RETURN(auto algo, AlgorithmRegistry::Global().Create(algorithm, options));
  return algo->AnalyticTime(logical, bytes);
}

Result<SimResult> SimulateCollective(std::string_view algorithm, double bytes, DType dtype,
                                     const LogicalTopology& logical, const AlgorithmOptions& options,
                                     const SimOptions& sim_options) {
  PODBENCH_ASSIGN_OR_RETURN(auto algo, AlgorithmRegistry::Global().Create(algorithm, options));
  const double elements = std::floor(bytes / BytesPerElement(dtype));
  if (elements < 1 || elements >= 4294967296.0) {
    return Status::InvalidArgument("payload of " + std::to_string(bytes) + " bytes: need 1 to 2^32-1 elements");
  }
  PODBENCH_ASSIGN_OR_RETURN(Schedule s, algo->Build(logical, static_cast<uint64_t>(elements)));
  return Simulate(s, logical.torus(), BytesPerElement(dtype), sim_options);
}

namespace {

const Group& GroupOfCore(const LogicalTopology& logical, int core) {
  assert(core >= 0 && core < logical.torus().num_cores());
  for (const Group& g : logical.groups()) {
    if (core >= g.first_core && core < g.first_core + g.size) return g;
  }
  assert(false && "every core is in a group");
  return logical.groups().front();
}

}  // namespace

ElementRange ShardOfCore(const LogicalTopology& logical, uint64_t elements, int core) {
  const Group& g = GroupOfCore(logical, core);
  return algorithms::MembersShard(g, elements, core - g.first_core, 1);
}

ElementRange ShardOfReplica(const LogicalTopology& logical, uint64_t elements, int replica) {
  assert(replica >= 0 && replica < logical.num_replicas());
  const int k = logical.cores_per_replica();
  const Group& g = GroupOfCore(logical, replica * k);
  return algorithms::MembersShard(g, elements, replica * k - g.first_core, k);
}

Status RunCollective(std::string_view algorithm, const LogicalTopology& logical, CoreBuffers& buffers,
                     const AlgorithmOptions& options, int threads) {
  PODBENCH_ASSIGN_OR_RETURN(auto algo, AlgorithmRegistry::Global().Create(algorithm, options));
  PODBENCH_ASSIGN_OR_RETURN(Schedule s, algo->Build(logical, buffers.elements()));
  return RunFunctional(s, buffers, threads);
}

}  // namespace podbench::topology
