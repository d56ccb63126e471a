// Private to kernels/bench.
#pragma once

namespace podbench::kernels::bench {

// Best of ten runs of independent fp32 FMA chains (AVX2) on `threads`
// threads, in GFLOP/s; 0 when the CPU has no AVX2+FMA. This is the peak the
// benchmarks report "% of peak" against (the machine has no bf16 arithmetic,
// so bf16 GEMM shares it).
double MeasureFp32PeakGflops(int threads);

}  // namespace podbench::kernels::bench
