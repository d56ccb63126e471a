// Host-side speed of the topology module: how long the event simulation
// takes to time one ResNet-50-sized all-reduce (or reduce-scatter /
// all-gather) on tpu-v3-2048, and the threaded functional all-reduce's
// throughput. The simulated and analytic times are reported as counters.
//   build/topology/topology_bench --benchmark_filter=Sim
#include <benchmark/benchmark.h>

#include <cstring>

#include "topology/collectives.h"
#include "topology/slice.h"

namespace podbench::topology {
namespace {

constexpr double kResNetParams = 25.6e6;

void BM_SimulateResNetAllReduce(benchmark::State& state, const char* algo, const char* slice_name) {
  auto slice = Slice::FromName(slice_name, DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  double simulated = 0;
  for (auto _ : state) {
    auto r = SimulateCollective(algo, kResNetParams * 4, DType::kF32, lt);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    simulated = r->time_s;
    // Not DoNotOptimize(simulated): benchmark 1.7's "+m,r" constraint garbles doubles under g++.
    benchmark::DoNotOptimize(r->events);
  }
  state.counters["simulated_ms"] = simulated * 1e3;
  state.counters["analytic_ms"] = *CollectiveTime(algo, kResNetParams * 4, lt) * 1e3;
}
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, torus2d_v3_2048, "torus2d", "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, torus2d_bidir_v3_2048, "torus2d_bidir", "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, ring_v3_2048, "ring", "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
// Weight-update sharding: the 2-D and 1-D halves.
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, torus2d_reduce_scatter_v3_2048, "torus2d_reduce_scatter",
                  "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, torus2d_all_gather_v3_2048, "torus2d_all_gather", "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, torus2d_bidir_reduce_scatter_v3_2048,
                  "torus2d_bidir_reduce_scatter", "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, torus2d_bidir_all_gather_v3_2048, "torus2d_bidir_all_gather",
                  "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, reduce_scatter_v3_2048, "reduce_scatter", "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_SimulateResNetAllReduce, all_gather_v3_2048, "all_gather", "tpu-v3-2048")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Peer of the simulation: the analytic time of the same collective.
void BM_AnalyticResNetAllReduce(benchmark::State& state, const char* algo) {
  auto slice = Slice::FromName("tpu-v3-2048", DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  for (auto _ : state) {
    auto t = CollectiveTime(algo, kResNetParams * 4, lt);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK_CAPTURE(BM_AnalyticResNetAllReduce, torus2d_v3_2048, "torus2d")->Unit(benchmark::kMicrosecond);

// Functional all-reduce of `elements` fp32 per core on tpu-v3-32 (32 cores).
void BM_FunctionalAllReduce(benchmark::State& state, const char* algo) {
  auto slice = Slice::FromName("tpu-v3-32", DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  const uint64_t elements = static_cast<uint64_t>(state.range(0));
  CoreBuffers buf(DType::kF32, elements, 0, lt.torus().num_cores());
  auto algorithm = AlgorithmRegistry::Global().Create(algo);
  auto schedule = (*algorithm)->Build(lt, elements);
  for (auto _ : state) {
    Status st = RunFunctional(*schedule, buf, static_cast<int>(state.range(1)));
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
  // Bytes of payload all-reduced per second, summed over cores.
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(elements) * 4 * lt.torus().num_cores());
}
// Peer of the functional run: memcpy of the bytes its transfers move.
void BM_MemcpyPeer(benchmark::State& state) {
  auto slice = Slice::FromName("tpu-v3-32", DefaultSystem());
  LogicalTopology lt = LogicalTopology::WholeSlice(*slice);
  const uint64_t elements = static_cast<uint64_t>(state.range(0));
  auto schedule = (*AlgorithmRegistry::Global().Create("ring"))->Build(lt, elements);
  CoreBuffers buf(DType::kF32, elements, 0, lt.torus().num_cores());
  for (auto _ : state) {
    for (const Stage& st : schedule->stages) {
      for (const Stream& s : st.streams) {
        for (const Transfer& t : s.transfers) {
          std::memmove(buf.Data(t.dst) + 4 * t.dst_off, buf.Data(t.src) + 4 * t.src_off, 4 * t.count);
        }
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(elements) * 4 * lt.torus().num_cores());
}
BENCHMARK(BM_MemcpyPeer)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_FunctionalAllReduce, ring, "ring")->Args({1 << 16, 1})->Args({1 << 16, 2});
BENCHMARK_CAPTURE(BM_FunctionalAllReduce, torus2d, "torus2d")->Args({1 << 16, 1})->Args({1 << 16, 2});

}  // namespace
}  // namespace podbench::topology

BENCHMARK_MAIN();
