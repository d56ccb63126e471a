// The processes (ranks) that together run one functional emulation: each
// rank owns a contiguous block of the emulated cores (CoresOfRank) and takes
// part in every collective over them. The workloads see only this narrow
// interface (through workloads::RunContext), never MPI itself:
//   - OneProcess(): the whole slice in this process (rank 0 of 1); Run is
//     topology::RunFunctional.
//   - the MPI group (topology/mpi_rank_group.h, built with PODBENCH_MPI):
//     one rank per process of `mpirun -np R`; Run is RunFunctionalMpi.
// Either way a schedule's result is bitwise the same (same transfers, same
// order of arithmetic), so a run over R ranks equals the one-process run.
//
// Threading contract: a group's calls are collective (every rank makes the
// same calls in the same order) and come from one thread of a rank at a
// time (not necessarily the same thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "topology/functional.h"
#include "topology/schedule.h"

namespace podbench::topology {

class LogicalTopology;
struct AlgorithmOptions;

// The cores rank `rank` of `ranks` owns: [begin, end), contiguous blocks
// (the first num_cores % ranks ranks own one more).
struct CoreBlock {
  int begin = 0, end = 0;
  int size() const { return end - begin; }
  bool Holds(int core) const { return core >= begin && core < end; }
};
CoreBlock CoresOfRank(int num_cores, int ranks, int rank);
// The rank owning `core` under CoresOfRank.
int OwnerOfCore(int core, int num_cores, int ranks);

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank's cores of an emulation of `num_cores` cores.
  CoreBlock CoresOf(int num_cores) const { return CoresOfRank(num_cores, size(), rank()); }

  // Runs `schedule` collectively. REQUIRES: `buffers` hold exactly
  // CoresOf(schedule.num_cores). `threads` is RunFunctional's, for the
  // transfers inside this process. Errors: the schedule's, or (MPI) a peer
  // that did not answer within the group's timeout or a stop by the
  // launcher, naming the rank(s) waited for.
  virtual Status Run(const Schedule& schedule, CoreBuffers& buffers, int threads) = 0;
  // Builds registered collective `algorithm` (with `options`) over
  // `logical` for buffers.elements() elements and Runs it.
  Status RunCollective(std::string_view algorithm, const LogicalTopology& logical, CoreBuffers& buffers,
                       const AlgorithmOptions& options, int threads);
  // Every rank's `mine`, in rank order (small things: settings hashes,
  // per-core losses, evaluation outputs).
  virtual Result<std::vector<std::string>> AllGather(std::string_view mine) = 0;
  // Returns once every rank has called it.
  Status Barrier() { return AllGather({}).status(); }
  // Bytes this rank has sent to other ranks so far (payload only).
  virtual uint64_t bytes_sent() const = 0;
};

// The one-process group: rank 0 of 1.
std::shared_ptr<RankGroup> OneProcess();

// The MPI launcher's world size when this process was started by one
// (mpirun/mpiexec of OpenMPI, MPICH or another PMI launcher: the
// OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK variables), else 0. Needs no
// MPI: a binary built without it uses this to refuse a multi-rank launch.
int LauncherWorldSize();

}  // namespace podbench::topology
