// AVX2 FMA peak loop: 12 independent ymm chains hide the FMA latency (4-5
// cycles) at 2 issues per cycle. Compiled with -mavx2 -mfma (this file only).
#include <immintrin.h>

#include "kernels/bench/peak.h"

namespace podbench::kernels::bench {

double PeakLoopFma_Avx2(std::int64_t iters, float* sink) {
  __m256 c[12];
  for (int i = 0; i < 12; ++i) c[i] = _mm256_set1_ps(float(i) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(1e-4f);
  for (std::int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) c[i] = _mm256_fmadd_ps(c[i], a, b);
  }
  __m256 s = c[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, c[i]);
  *sink = _mm256_cvtss_f32(s);
  return double(iters) * 12 * 8 * 2;
}

}  // namespace podbench::kernels::bench
