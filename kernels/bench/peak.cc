#include "kernels/bench/peak.h"

#include <algorithm>
#include <ctime>

#include "kernels/thread_pool.h"

namespace podbench::kernels::bench {
namespace {

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

}  // namespace

double MeasurePeakGflops(Isa isa, int threads) {
  if (isa == Isa::kScalar || !CpuSupports(isa)) return 0;
  double (*loop)(std::int64_t, float*) = nullptr;
  std::int64_t iters = 0;  // about 10 ms per run at 3 GHz
  switch (isa) {
    case Isa::kScalar: return 0;
    case Isa::kAvx2Fma: loop = PeakLoopFma_Avx2, iters = 2'000'000; break;
    case Isa::kAvx512f: loop = PeakLoopFma_Avx512f, iters = 2'000'000; break;
    case Isa::kAvx512Bf16: loop = PeakLoopDpbf16_Avx512Bf16, iters = 1'000'000; break;
    case Isa::kAmxBf16: loop = PeakLoopTdpbf16_Amx, iters = 200'000; break;
  }
  ThreadPool& pool = DefaultThreadPool();
  if (threads > pool.threads()) threads = pool.threads();
  // Each thread's rate by its own CPU time (a register-only loop runs at the
  // same speed whenever it runs, so a busy machine only stretches the wall
  // time), summed over the threads: what `threads` cores deliver. Best of 10.
  double best = 0;
  float sink[64] = {};
  double rate[64] = {};
  for (int rep = 0; rep < 10; ++rep) {
    pool.Run(threads, [&](int w) {
      const double t0 = ThreadCpuSeconds();
      const double flops = loop(iters, &sink[w]);
      rate[w] = flops / std::max(ThreadCpuSeconds() - t0, 1e-9) / 1e9;
    });
    double total = 0;
    for (int w = 0; w < threads; ++w) total += rate[w];
    if (total > best) best = total;
  }
  return best;
}

}  // namespace podbench::kernels::bench
