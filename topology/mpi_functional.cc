#include "topology/mpi_functional.h"

#include <algorithm>
#include <vector>

namespace podbench::topology {

CoreBlock CoresOfRank(int num_cores, int ranks, int rank) {
  const int base = num_cores / ranks, extra = num_cores % ranks;
  const int begin = rank * base + std::min(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

namespace {

// Rank owning `core` under CoresOfRank.
int OwnerOf(int core, int num_cores, int ranks) {
  const int base = num_cores / ranks, extra = num_cores % ranks;
  const int split = extra * (base + 1);
  return core < split ? core / (base + 1) : extra + (core - split) / base;
}

}  // namespace

Status RunFunctionalMpi(const Schedule& schedule, CoreBuffers& buffers, MPI_Comm comm) {
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
  auto owner = [&](int core) { return OwnerOf(core, schedule.num_cores, ranks); };
  std::vector<std::vector<uint8_t>> out(ranks), in(ranks);
  std::vector<size_t> in_bytes(ranks);
  std::vector<const Transfer*> work;
  std::vector<MPI_Request> reqs;
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
      for (int p = 0; p < ranks; ++p) {
        if (in_bytes[p] > 0) {
          in[p].resize(in_bytes[p]);
          reqs.emplace_back();
          if (MPI_Irecv(in[p].data(), static_cast<int>(in_bytes[p]), MPI_BYTE, p, 0, comm, &reqs.back()) !=
              MPI_SUCCESS) {
            return Status::Internal("MPI_Irecv failed");
          }
        }
        if (!out[p].empty()) {
          reqs.emplace_back();
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
      if (!reqs.empty() &&
          MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
        return Status::Internal("MPI_Waitall failed");
      }
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
