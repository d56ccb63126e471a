// AVX-512 FMA peak loop: 16 independent zmm chains (latency 4 x 2 ports, with
// room). Compiled with -mavx512f (this file only).
#include <immintrin.h>

#include "kernels/bench/peak.h"

namespace podbench::kernels::bench {

double PeakLoopFma_Avx512f(std::int64_t iters, float* sink) {
  __m512 c[16];
  for (int i = 0; i < 16; ++i) c[i] = _mm512_set1_ps(float(i) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-4f);
  for (std::int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) c[i] = _mm512_fmadd_ps(c[i], a, b);
  }
  __m512 s = c[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, c[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);  // (_mm512_reduce_add_ps trips a GCC 12 false -Wuninitialized)
  *sink = lanes[0] + lanes[15];
  return double(iters) * 16 * 16 * 2;
}

}  // namespace podbench::kernels::bench
