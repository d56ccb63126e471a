// fp32 GEMM for AVX-512F: 14 x 32 register tile (28 zmm accumulators, two B
// vectors, one broadcast). Compiled with -mavx512f (this file only); only
// selected when the CPU and OS support AVX-512.
#include <immintrin.h>

#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {
namespace {

using std::int64_t;
// Software prefetch distances in depth steps: A and B stream from L2 (the
// 512 x 32 B micro-panel does not fit L1); hardware prefetch alone lost ~7%.
constexpr int kPfa = 16, kPfb = 16;

// C (the first R <= 14 rows of the tile) from a 14-row A micro-panel: R = 14
// is the kernel; the shorter ones take the last rows of an m that 14 does
// not divide, at the cost of R rows instead of 14 (at m=128 the full tile
// on the last 2 rows was 9% of the arithmetic).
template <int R>
void MicroKernelRows(int64_t kc, const void* ap, const void* bp, float* c, int64_t ldc, bool accumulate) {
  const float* a = static_cast<const float*>(ap);
  const float* b = static_cast<const float*>(bp);
  // C is read (accumulate) and written after the depth loop: have it on the way.
  for (int r = 0; r < R; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + 16), _MM_HINT_T0);
  }
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t q = 0; q < kc; ++q) {
    _mm_prefetch(reinterpret_cast<const char*>(a + kPfa * 14), _MM_HINT_T0);  // A streams from L2
    _mm_prefetch(reinterpret_cast<const char*>(b + kPfb * 32), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + kPfb * 32 + 16), _MM_HINT_T0);
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
    a += 14;
    b += 32;
  }
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r) {
    if (accumulate) {
      acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_loadu_ps(c + r * ldc));
      acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_loadu_ps(c + r * ldc + 16));
    }
    _mm512_storeu_ps(c + r * ldc, acc[r][0]);
    _mm512_storeu_ps(c + r * ldc + 16, acc[r][1]);
  }
}

constexpr gemm_internal::MicroKernelFn kRowKernels[14] = {
    nullptr,             MicroKernelRows<1>,  MicroKernelRows<2>,  MicroKernelRows<3>,  MicroKernelRows<4>,
    MicroKernelRows<5>,  MicroKernelRows<6>,  MicroKernelRows<7>,  MicroKernelRows<8>,  MicroKernelRows<9>,
    MicroKernelRows<10>, MicroKernelRows<11>, MicroKernelRows<12>, MicroKernelRows<13>};

}  // namespace

// Depth blocks of 512: C is read and written once per block, which costs more
// here than streaming the 512 x 32 B micro-panel (64 KiB) from L2 (measured
// at 2048^3 on a Xeon with AVX-512: kc 512 beat 256 by 10-25%).
const gemm_internal::BlockedGemmConfig* f32_gemm__avx512f_14x32_config() {
  static const gemm_internal::BlockedGemmConfig config = {
      14, 32, 112, 512, 4064, 1, sizeof(float),
      gemm_internal::VectorPackers__avx512f().pack_a_f32, gemm_internal::VectorPackers__avx512f().pack_b_f32, MicroKernelRows<14>, kRowKernels};
  return &config;
}

void f32_gemm__avx512f_14x32(const GemmProblem& p, int threads) {
  gemm_internal::RunBlockedGemm(*f32_gemm__avx512f_14x32_config(), p, threads);
}

}  // namespace podbench::kernels
