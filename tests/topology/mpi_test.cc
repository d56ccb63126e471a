// Functional collectives over MPI: run by ctest under
//   mpirun --allow-run-as-root --oversubscribe -np 4 topology_mpi_test
// Every rank holds a block of the emulated cores; rank 0 gathers the
// result and compares it bitwise with the one-process threaded run.
// Exits 0 when every case matches, 1 otherwise.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "topology/collectives.h"
#include "topology/mpi_functional.h"

namespace podbench::topology {
namespace {

void Fill(CoreBuffers& b, int core_begin, int core_end) {
  for (int c = core_begin; c < core_end; ++c) {
    std::mt19937 rng(1234 + c);  // per core, so every rank fills its block alike
    std::uniform_real_distribution<float> u(-1, 1);
    for (uint64_t i = 0; i < b.elements(); ++i) b.Set(c, i, u(rng));
  }
}

// Returns true when the MPI run equals the threaded run bitwise.
bool RunCase(const char* algo, const char* slice_name, int k, int g, DType dt, uint64_t elements) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  auto slice = Slice::FromName(slice_name, DefaultSystem());
  auto lt = LogicalTopology::ReplicaGroups(*slice, k, g);
  auto a = AlgorithmRegistry::Global().Create(algo);
  if (!slice.ok() || !lt.ok() || !a.ok()) return false;
  auto s = (*a)->Build(*lt, elements);
  if (!s.ok()) return false;
  const int cores = lt->torus().num_cores();
  const CoreBlock mine = CoresOfRank(cores, ranks, rank);
  CoreBuffers local(dt, elements, mine.begin, mine.end);
  Fill(local, mine.begin, mine.end);
  Status st = RunFunctionalMpi(*s, local, MPI_COMM_WORLD);
  if (!st.ok()) {
    std::fprintf(stderr, "rank %d: %s\n", rank, st.ToString().c_str());
    return false;
  }
  const int bytes_per_core = static_cast<int>(elements * BytesPerElement(dt));
  std::vector<int> counts(ranks), displs(ranks);
  for (int r = 0; r < ranks; ++r) {
    const CoreBlock b = CoresOfRank(cores, ranks, r);
    counts[r] = (b.end - b.begin) * bytes_per_core;
    displs[r] = b.begin * bytes_per_core;
  }
  std::vector<uint8_t> all(rank == 0 ? size_t(cores) * bytes_per_core : 0);
  MPI_Gatherv(mine.end > mine.begin ? local.Data(mine.begin) : nullptr, counts[rank], MPI_BYTE, all.data(),
              counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == 0) {
    CoreBuffers whole(dt, elements, 0, cores);
    Fill(whole, 0, cores);
    ok = RunFunctional(*s, whole, 2).ok() &&
         std::memcmp(whole.Data(0), all.data(), all.size()) == 0;
    std::printf("%-28s %-11s k=%d g=%-3d %s: %s\n", algo, slice_name, k, g, dt == DType::kF32 ? "fp32" : "bf16",
                ok ? "equal" : "DIFFERENT");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok == 1;
}

}  // namespace
}  // namespace podbench::topology

int main(int argc, char** argv) {
  using namespace podbench::topology;
  MPI_Init(&argc, &argv);
  bool ok = true;
  for (const char* algo : {"ring", "ring_bidir", "torus2d", "torus2d_pipelined", "torus2d_bidir",
                           "reduce_scatter", "all_gather", "torus2d_reduce_scatter", "torus2d_all_gather",
                           "torus2d_bidir_reduce_scatter", "torus2d_bidir_all_gather", "halo_exchange",
                           "broadcast"}) {
    const int k = std::string(algo) == "halo_exchange" ? 4 : 1;  // spatial partitions need k > 1
    for (DType dt : {DType::kF32, DType::kBF16}) ok = RunCase(algo, "tpu-v3-32", k, 32 / k, dt, 1000) && ok;
  }
  ok = RunCase("ring", "tpu-v3-128", 1, 16, DType::kF32, 512) && ok;            // batch-norm groups
  ok = RunCase("halo_exchange", "tpu-v3-128", 4, 32, DType::kBF16, 512) && ok;  // spatial partitions
  ok = RunCase("torus2d", "tpu-v3-2048", 1, 2048, DType::kF32, 1024) && ok;     // the full pod
  ok = RunCase("torus2d_reduce_scatter", "tpu-v3-64", 1, 64, DType::kBF16, 1000) && ok;  // not square
  ok = RunCase("torus2d_all_gather", "tpu-v3-128", 2, 8, DType::kF32, 512) && ok;        // groups
  MPI_Finalize();
  return ok ? 0 : 1;
}
