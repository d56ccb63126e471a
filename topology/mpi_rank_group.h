// The MPI rank group (topology/rank_group.h) of a process started by an MPI
// launcher (`mpirun -np R podbench ...`). Built only with PODBENCH_MPI; this
// header does not include <mpi.h>, so its users need no MPI headers.
#pragma once

#include <memory>

#include "base/status.h"
#include "topology/rank_group.h"

namespace podbench::topology {

struct MpiGroupOptions {
  // Seconds any wait for another rank may last (a collective's messages, an
  // all-gather) before the wait fails naming the rank(s) it waited for.
  // 0 = forever. Ranks other than 0 wait max(5, timeout_s / 2) longer, so
  // that rank 0, which reports, times out first.
  double timeout_s = 300;
};

// Initializes MPI (MPI_Init_thread asking MPI_THREAD_SERIALIZED: the cores'
// threads call the group one at a time; FailedPrecondition when the library
// provides less), on a duplicate of MPI_COMM_WORLD whose errors return
// instead of aborting. Installs SIGTERM/SIGINT handlers: the launcher sends
// SIGTERM to the survivors when a rank dies; a wait then fails at once, and
// rank 0 writes to standard error which ranks on its host are gone. Every
// rank tells the others its host and pid at start-up (errors name them).
// Call once per process.
Result<std::shared_ptr<RankGroup>> StartMpi(const MpiGroupOptions& options);

// Ends the MPI job after a success: MPI_Finalize. No-op before StartMpi.
void FinishMpi();
// Ends the whole MPI job after an error on any rank (MPI_Abort with
// `exit_code`, which stops every rank). Does not return when MPI was
// started; returns at once otherwise.
void AbortMpi(int exit_code);

}  // namespace podbench::topology
