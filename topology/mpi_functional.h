// Functional execution over MPI: the emulated cores are spread across the
// ranks of a communicator in contiguous blocks, so an emulation too big for
// one process runs on several. Every rank builds the same Schedule and runs
// the transfers that touch its cores; data between ranks travels as one
// message per rank pair and step. Results are bitwise those of
// RunFunctional (same transfers, same order of arithmetic).
#pragma once

#include <mpi.h>

#include "base/status.h"
#include "topology/functional.h"
#include "topology/schedule.h"

namespace podbench::topology {

// The cores rank `rank` of `ranks` owns: [begin, end), contiguous blocks
// (the first num_cores % ranks ranks own one more).
struct CoreBlock {
  int begin = 0, end = 0;
};
CoreBlock CoresOfRank(int num_cores, int ranks, int rank);

// Runs `schedule` collectively on `comm`. REQUIRES: every rank calls it with
// the same schedule, and `buffers` holds exactly CoresOfRank(...) of this
// rank. Internal on an MPI error.
Status RunFunctionalMpi(const Schedule& schedule, CoreBuffers& buffers, MPI_Comm comm);

}  // namespace podbench::topology
