// Functional all-reduce throughput over MPI (not Google Benchmark, which
// does not coordinate ranks). Every rank runs the same repetitions; rank 0
// prints the median time and payload throughput.
//   mpirun --allow-run-as-root --oversubscribe -np 4 build/topology/topology_mpi_bench [algo] [elements]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "topology/collectives.h"
#include "topology/mpi_functional.h"
#include "topology/slice.h"

int main(int argc, char** argv) {
  using namespace podbench::topology;
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string algo = argc > 1 ? argv[1] : "torus2d";
  const uint64_t elements = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1u << 16);
  auto slice = Slice::FromName("tpu-v3-32", DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  auto algorithm = AlgorithmRegistry::Global().Create(algo);
  if (!algorithm.ok()) {
    if (rank == 0) std::fprintf(stderr, "%s\n", algorithm.status().ToString().c_str());
    MPI_Finalize();
    return 2;
  }
  auto schedule = (*algorithm)->Build(lt, elements);
  const CoreBlock mine = CoresOfRank(lt.torus().num_cores(), ranks, rank);
  CoreBuffers buf(DType::kF32, elements, mine.begin, mine.end);
  std::vector<double> times;
  for (int rep = 0; rep < 7; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (!RunFunctionalMpi(*schedule, buf, MPI_COMM_WORLD).ok()) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back(MPI_Wtime() - t0);
  }
  std::sort(times.begin(), times.end());
  if (rank == 0) {
    const double med = times[times.size() / 2];
    std::printf("%s tpu-v3-32 %d ranks, %llu fp32 a core: median %.3f ms, %.1f MB/s of payload (all cores)\n",
                algo.c_str(), ranks, static_cast<unsigned long long>(elements), med * 1e3,
                double(elements) * 4 * lt.torus().num_cores() / med / 1e6);
  }
  MPI_Finalize();
  return 0;
}
