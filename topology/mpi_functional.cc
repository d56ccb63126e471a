#include "topology/mpi_functional.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace podbench::topology {

namespace {

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

std::string Describe(const MpiWaitOptions& o, int rank) {
  return o.describe ? o.describe(rank) : "rank " + std::to_string(rank);
}

}  // namespace

Status MpiWaitAll(std::vector<MPI_Request>& reqs, const std::vector<int>& recv_peer, const MpiWaitOptions& options,
                  MPI_Comm comm, const std::string& what) {
  if (reqs.empty()) return Status::Ok();
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(0);
  for (;;) {
    int done = 0;
    if (MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
      return Status::Internal("MPI rank " + std::to_string(me) + ": " + what + ": MPI_Testall failed");
    }
    if (done) return Status::Ok();
    const bool stopped = options.stop != nullptr && options.stop->load() != 0;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stopped || (options.timeout_s > 0 && waited > options.timeout_s)) {
      // The peers whose messages never came.
      std::string missing;
      for (size_t i = 0; i < reqs.size(); ++i) {
        if (recv_peer[i] < 0 || reqs[i] == MPI_REQUEST_NULL) continue;
        int flag = 0;
        MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
        if (!flag) missing += (missing.empty() ? "" : ", ") + Describe(options, recv_peer[i]);
      }
      if (missing.empty()) missing = "a rank that did not take its messages";
      const std::string why = stopped ? "stopped by signal " + std::to_string(options.stop->load()) +
                                            " (the MPI launcher ends the job when a rank dies)"
                                      : "no answer within the rank timeout of " + FormatSeconds(options.timeout_s);
      return Status::FailedPrecondition("MPI rank " + std::to_string(me) + ": " + what + ": " + why +
                                        "; waiting for " + missing);
    }
    // Spin briefly, then back off to at most 1 ms between polls.
    if (pause.count() > 0) {
      std::this_thread::sleep_for(pause);
    } else {
      std::this_thread::yield();
    }
    pause = std::min(std::chrono::microseconds(1000), pause + std::chrono::microseconds(waited > 0.001 ? 50 : 0));
  }
}

Status RunFunctionalMpi(const Schedule& schedule, CoreBuffers& buffers, MPI_Comm comm,
                        const MpiWaitOptions& options) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const CoreBlock mine = CoresOfRank(schedule.num_cores, ranks, rank);
  if (buffers.core_begin() != mine.begin || buffers.core_end() != mine.end ||
      buffers.elements() != schedule.elements) {
    return Status::InvalidArgument("MPI rank " + std::to_string(rank) + ": buffers do not match its cores");
  }
  const DType dt = buffers.dtype();
  const size_t bpe = BytesPerElement(dt);
  auto owner = [&](int core) { return OwnerOfCore(core, schedule.num_cores, ranks); };
  std::vector<std::vector<uint8_t>> out(ranks), in(ranks);
  std::vector<size_t> in_bytes(ranks);
  std::vector<const Transfer*> work;
  std::vector<MPI_Request> reqs;
  std::vector<int> recv_peer;
  for (const Stage& stage : schedule.stages) {
    int rounds = 0;
    for (const Stream& s : stage.streams) rounds = std::max(rounds, s.num_steps());
    for (int r = 0; r < rounds; ++r) {
      work.clear();
      for (const Stream& s : stage.streams) {
        if (r >= s.num_steps()) continue;
        for (uint32_t i = s.step_begin[r]; i < s.step_begin[r + 1]; ++i) work.push_back(&s.transfers[i]);
      }
      // Pack what leaves this rank, in transfer order, one buffer a peer.
      for (int p = 0; p < ranks; ++p) {
        out[p].clear();
        in_bytes[p] = 0;
      }
      for (const Transfer* t : work) {
        const int so = owner(t->src), d = owner(t->dst);
        if (so == rank && d != rank) {
          const uint8_t* src = buffers.Data(t->src) + t->src_off * bpe;
          out[d].insert(out[d].end(), src, src + t->count * bpe);
        } else if (d == rank && so != rank) {
          in_bytes[so] += t->count * bpe;
        }
      }
      reqs.clear();
      recv_peer.clear();
      for (int p = 0; p < ranks; ++p) {
        if (in_bytes[p] > 0) {
          in[p].resize(in_bytes[p]);
          reqs.emplace_back();
          recv_peer.push_back(p);
          if (MPI_Irecv(in[p].data(), static_cast<int>(in_bytes[p]), MPI_BYTE, p, 0, comm, &reqs.back()) !=
              MPI_SUCCESS) {
            return Status::Internal("MPI_Irecv failed");
          }
        }
        if (!out[p].empty()) {
          reqs.emplace_back();
          recv_peer.push_back(-1);
          if (options.bytes_sent != nullptr) *options.bytes_sent += out[p].size();
          if (MPI_Isend(out[p].data(), static_cast<int>(out[p].size()), MPI_BYTE, p, 0, comm, &reqs.back()) !=
              MPI_SUCCESS) {
            return Status::Internal("MPI_Isend failed");
          }
        }
      }
      // Local transfers read only elements no transfer of this step writes,
      // so they may run before the messages arrive.
      for (const Transfer* t : work) {
        if (owner(t->src) == rank && owner(t->dst) == rank) {
          ApplyTransfer(dt, t->op, buffers.Data(t->src) + t->src_off * bpe,
                        buffers.Data(t->dst) + t->dst_off * bpe, t->count);
        }
      }
      PODBENCH_RETURN_IF_ERROR(MpiWaitAll(reqs, recv_peer, options, comm, "collective"));
      std::vector<size_t> pos(ranks, 0);
      for (const Transfer* t : work) {
        const int so = owner(t->src);
        if (owner(t->dst) == rank && so != rank) {
          ApplyTransfer(dt, t->op, in[so].data() + pos[so], buffers.Data(t->dst) + t->dst_off * bpe, t->count);
          pos[so] += t->count * bpe;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace podbench::topology
