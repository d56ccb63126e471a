// Private to kernels/bench: the register-only peak of each arithmetic unit
// this CPU has, which the benchmarks report "% of peak" against.
#pragma once

#include <cstdint>

#include "kernels/cpu_features.h"

namespace podbench::kernels::bench {

// Best of ten runs of independent accumulation chains of `isa`'s
// multiply-add on `threads` threads, operands in registers, in GFLOP/s
// (a multiply-add is 2 FLOP): AVX2 FMA (ymm), AVX-512 FMA (zmm), AVX-512
// BF16 vdpbf16ps (zmm, 2 multiply-adds per lane), AMX tdpbf16ps (16x16
// tiles of depth 32). Each thread's rate is taken over its own CPU time and
// the rates are summed: the peak of `threads` cores, whatever else the
// machine runs. 0 when the CPU lacks `isa`; kScalar is not measured (0).
//
// With more than one thread the sum can fall far short of threads x the
// 1-thread peak for a while: a Zen 5 guest read 268.6 GFLOP/s for two
// threads' AVX-512 FMA against 245.7 for one, and then ran a 2-thread GEMM
// at 780 (each thread had its full CPU time at about half the rate: the
// host, it seems, ran the two vCPUs on one core's SMT siblings; time-slicing
// on one vCPU does not show here, CPU time excludes it). `podbench bench`
// measures it again while it looks shared (BestWhileShared, up to 10 times
// 0.1 s apart); it may still look shared.
double MeasurePeakGflops(Isa isa, int threads);

// Whether a `threads`-thread peak is below kSharedPeakFraction x threads x
// the 1-thread peak: its threads did not each have a core of their own.
inline constexpr double kSharedPeakFraction = 0.8;
[[nodiscard]] constexpr bool PeakLooksShared(double peak, double one_thread_peak, int threads) {
  return threads > 1 && one_thread_peak > 0 && peak < kSharedPeakFraction * threads * one_thread_peak;
}

// The multi-thread peak's retry: measure() once, then, while the best so far
// looks shared against `one_thread_peak`, pause() and measure() again, at
// most `retries` times. Returns the best.
template <typename Measure, typename Pause>
double BestWhileShared(Measure measure, Pause pause, double one_thread_peak, int threads, int retries) {
  double best = measure();
  for (int r = 0; r < retries && PeakLooksShared(best, one_thread_peak, threads); ++r) {
    pause();
    const double again = measure();
    if (again > best) best = again;
  }
  return best;
}

// One timed loop of each unit: `iters` iterations, the FLOPs done; *sink
// receives a value that depends on every chain (so nothing is optimised away).
// Each lives in peak_<unit>__<isa>.cc, compiled for that ISA only.
double PeakLoopFma_Avx2(std::int64_t iters, float* sink);
double PeakLoopFma_Avx512f(std::int64_t iters, float* sink);
double PeakLoopDpbf16_Avx512Bf16(std::int64_t iters, float* sink);
double PeakLoopTdpbf16_Amx(std::int64_t iters, float* sink);

}  // namespace podbench::kernels::bench
