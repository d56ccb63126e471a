// Functional execution over MPI: the emulated cores are spread across the
// ranks of a communicator in contiguous blocks (CoresOfRank), so an
// emulation too big for one process runs on several. Every rank builds the
// same Schedule and runs the transfers that touch its cores; data between
// ranks travels as one message per rank pair and step. Results are bitwise
// those of RunFunctional (same transfers, same order of arithmetic).
//
// Waits poll (MPI_Testall) instead of blocking, so a peer that never sends
// is caught by a deadline and a stop request (a signal) is noticed.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "topology/functional.h"
#include "topology/rank_group.h"
#include "topology/schedule.h"

namespace podbench::topology {

struct MpiWaitOptions {
  // Seconds a wait may last before it fails naming the ranks it waited
  // for; 0 = forever.
  double timeout_s = 0;
  // When non-null and set (e.g. by a SIGTERM handler), a wait fails.
  const std::atomic<int>* stop = nullptr;
  // When non-null, the payload bytes sent to other ranks are added here.
  std::atomic<uint64_t>* bytes_sent = nullptr;
  // Describes a rank in errors ("rank 2 (pid 17 on host a)"); default "rank N".
  std::function<std::string(int rank)> describe;
};

// Waits for `reqs`; recv_peer[i] is the rank request i receives from, -1 for
// a send. DeadlineExceeded-like FailedPrecondition naming the peers whose
// messages never came, on timeout or stop; Internal on an MPI error.
// `what` names the operation in errors.
Status MpiWaitAll(std::vector<MPI_Request>& reqs, const std::vector<int>& recv_peer, const MpiWaitOptions& options,
                  MPI_Comm comm, const std::string& what);

// Runs `schedule` collectively on `comm`. REQUIRES: every rank calls it with
// the same schedule, and `buffers` holds exactly CoresOfRank(...) of this
// rank. Internal on an MPI error; MpiWaitAll's errors.
Status RunFunctionalMpi(const Schedule& schedule, CoreBuffers& buffers, MPI_Comm comm,
                        const MpiWaitOptions& options = {});

}  // namespace podbench::topology
