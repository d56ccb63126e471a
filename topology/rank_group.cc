#include "topology/rank_group.h"

#include <algorithm>
#include <cstdlib>

#include "topology/algorithm.h"
#include "topology/logical.h"

namespace podbench::topology {

CoreBlock CoresOfRank(int num_cores, int ranks, int rank) {
  const int base = num_cores / ranks, extra = num_cores % ranks;
  const int begin = rank * base + std::min(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

int OwnerOfCore(int core, int num_cores, int ranks) {
  const int base = num_cores / ranks, extra = num_cores % ranks;
  const int split = extra * (base + 1);
  return core < split ? core / (base + 1) : extra + (core - split) / base;
}

Status RankGroup::RunCollective(std::string_view algorithm, const LogicalTopology& logical, CoreBuffers& buffers,
                                const AlgorithmOptions& options, int threads) {
  PODBENCH_ASSIGN_OR_RETURN(auto algo, AlgorithmRegistry::Global().Create(algorithm, options));
  PODBENCH_ASSIGN_OR_RETURN(Schedule s, algo->Build(logical, buffers.elements()));
  return Run(s, buffers, threads);
}

namespace {

class OneProcessGroup : public RankGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status Run(const Schedule& schedule, CoreBuffers& buffers, int threads) override {
    return RunFunctional(schedule, buffers, threads);
  }
  Result<std::vector<std::string>> AllGather(std::string_view mine) override {
    return std::vector<std::string>{std::string(mine)};
  }
  uint64_t bytes_sent() const override { return 0; }
};

}  // namespace

std::shared_ptr<RankGroup> OneProcess() {
  static const std::shared_ptr<RankGroup> group = std::make_shared<OneProcessGroup>();
  return group;
}

int LauncherWorldSize() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return std::max(1, std::atoi(v));
  }
  // PMIx without a size variable: launched, size unknown until MPI_Init.
  if (std::getenv("PMIX_RANK") != nullptr) return 1;
  return 0;
}

}  // namespace podbench::topology
