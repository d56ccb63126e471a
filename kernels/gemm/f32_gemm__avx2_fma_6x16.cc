// fp32 GEMM for AVX2 + FMA: 6 x 16 register tile (12 accumulators, two B
// vectors, one broadcast), packed panels, blocks sized for 32 KiB L1d and
// 512 KiB+ L2. Compiled with -mavx2 -mfma (this file only).
#include <immintrin.h>

#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {
namespace {

using std::int64_t;

void MicroKernel6x16(int64_t kc, const void* ap, const void* bp, float* c, int64_t ldc,
                     bool accumulate) {
  const float* a = static_cast<const float*>(ap);
  const float* b = static_cast<const float*>(bp);
  for (int r = 0; r < 6; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + 15), _MM_HINT_T0);
  }
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
#define PODBENCH_STEP(off)                                            \
  {                                                                   \
    const __m256 b0 = _mm256_load_ps(b + (off) * 16);                 \
    const __m256 b1 = _mm256_load_ps(b + (off) * 16 + 8);             \
    __m256 av = _mm256_broadcast_ss(a + (off) * 6 + 0);               \
    c00 = _mm256_fmadd_ps(av, b0, c00);                               \
    c01 = _mm256_fmadd_ps(av, b1, c01);                               \
    av = _mm256_broadcast_ss(a + (off) * 6 + 1);                      \
    c10 = _mm256_fmadd_ps(av, b0, c10);                               \
    c11 = _mm256_fmadd_ps(av, b1, c11);                               \
    av = _mm256_broadcast_ss(a + (off) * 6 + 2);                      \
    c20 = _mm256_fmadd_ps(av, b0, c20);                               \
    c21 = _mm256_fmadd_ps(av, b1, c21);                               \
    av = _mm256_broadcast_ss(a + (off) * 6 + 3);                      \
    c30 = _mm256_fmadd_ps(av, b0, c30);                               \
    c31 = _mm256_fmadd_ps(av, b1, c31);                               \
    av = _mm256_broadcast_ss(a + (off) * 6 + 4);                      \
    c40 = _mm256_fmadd_ps(av, b0, c40);                               \
    c41 = _mm256_fmadd_ps(av, b1, c41);                               \
    av = _mm256_broadcast_ss(a + (off) * 6 + 5);                      \
    c50 = _mm256_fmadd_ps(av, b0, c50);                               \
    c51 = _mm256_fmadd_ps(av, b1, c51);                               \
  }
  int64_t q = 0;
  for (; q + 4 <= kc; q += 4) {
    _mm_prefetch(reinterpret_cast<const char*>(b + 16 * 8), _MM_HINT_T0);
    PODBENCH_STEP(0)
    PODBENCH_STEP(1)
    PODBENCH_STEP(2)
    PODBENCH_STEP(3)
    a += 24;
    b += 64;
  }
  for (; q < kc; ++q) {
    PODBENCH_STEP(0)
    a += 6;
    b += 16;
  }
#undef PODBENCH_STEP
#define PODBENCH_STORE(r, lo, hi)                                                   \
  if (accumulate) {                                                                 \
    lo = _mm256_add_ps(lo, _mm256_loadu_ps(c + (r) * ldc));                         \
    hi = _mm256_add_ps(hi, _mm256_loadu_ps(c + (r) * ldc + 8));                     \
  }                                                                                 \
  _mm256_storeu_ps(c + (r) * ldc, lo);                                              \
  _mm256_storeu_ps(c + (r) * ldc + 8, hi);
  PODBENCH_STORE(0, c00, c01)
  PODBENCH_STORE(1, c10, c11)
  PODBENCH_STORE(2, c20, c21)
  PODBENCH_STORE(3, c30, c31)
  PODBENCH_STORE(4, c40, c41)
  PODBENCH_STORE(5, c50, c51)
#undef PODBENCH_STORE
}

}  // namespace

// mc x kc of A (168 x 256 x 4 B = 168 KiB) stays in L2, a 256 x 16 B
// micro-panel (16 KiB) in L1, the kc x nc block of B in L3.
const gemm_internal::BlockedGemmConfig* f32_gemm__avx2_fma_6x16_config() {
  static const gemm_internal::BlockedGemmConfig config = {
      6, 16, 168, 256, 4080, 1, sizeof(float),
      gemm_internal::VectorPackers__avx2().pack_a_f32, gemm_internal::VectorPackers__avx2().pack_b_f32, MicroKernel6x16};
  return &config;
}

void f32_gemm__avx2_fma_6x16(const GemmProblem& p, int threads) {
  gemm_internal::RunBlockedGemm(*f32_gemm__avx2_fma_6x16_config(), p, threads);
}

}  // namespace podbench::kernels
