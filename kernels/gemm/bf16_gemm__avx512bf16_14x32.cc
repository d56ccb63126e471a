// bf16 GEMM for AVX-512 BF16: vdpbf16ps multiplies pairs of bf16 along depth
// and adds both products into fp32 accumulators, 14 x 32 register tile.
// Panels are packed in depth pairs (PackA/B_Bf16Pairs). Compiled with
// -mavx512f -mavx512bf16 (this file only); only selected when the CPU has it.
// Note: vdpbf16ps flushes bf16 denormal inputs and fp32 denormal results to
// zero; the tests' tolerance allows for it.
#include <immintrin.h>

#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {
namespace {

using std::int64_t;

// The first R <= 14 rows of the tile from a 14-row pair panel (R < 14: the
// last rows of an m that 14 does not divide).
template <int R>
void MicroKernelRows(int64_t kc_padded, const void* ap, const void* bp, float* c, int64_t ldc, bool accumulate) {
  const int* a = static_cast<const int*>(ap);        // one (k, k+1) bf16 pair per row
  const __m512i* b = static_cast<const __m512i*>(bp);  // 32 pairs = 2 vectors per depth pair
  // C is read (accumulate) and written after the depth loop: have it on the way.
  for (int r = 0; r < R; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + 16), _MM_HINT_T0);
  }
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t q = 0; q < kc_padded; q += 2) {
    _mm_prefetch(reinterpret_cast<const char*>(a + 16 * 14), _MM_HINT_T0);  // A and B stream from L2
    _mm_prefetch(reinterpret_cast<const char*>(b + 16 * 2), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 16 * 2 + 1), _MM_HINT_T0);
    const __m512bh b0 = __builtin_bit_cast(__m512bh, _mm512_load_si512(b));
    const __m512bh b1 = __builtin_bit_cast(__m512bh, _mm512_load_si512(b + 1));
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      const __m512bh av = __builtin_bit_cast(__m512bh, _mm512_set1_epi32(a[r]));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
    }
    a += 14;
    b += 2;
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

// Depth blocks of 1024 (512 pairs): as for the fp32 14 x 32 kernel, fewer
// passes over C pay for a B micro-panel (64 KiB) that streams from L2. The
// pair panels are packed in AVX-512 registers (pack_impl.h): on the Zen 5,
// where vdpbf16ps does twice the FMA unit's FLOPs, the portable packers took
// 10% of a 2-thread 2048^3 GEMM.
const gemm_internal::BlockedGemmConfig* bf16_gemm__avx512bf16_14x32_config() {
  static const gemm_internal::BlockedGemmConfig config = {
      14, 32, 112, 1024, 4064, 2, sizeof(std::uint16_t),
      gemm_internal::VectorPackers__avx512f().pack_a_bf16_pairs,
      gemm_internal::VectorPackers__avx512f().pack_b_bf16_pairs, MicroKernelRows<14>, kRowKernels};
  return &config;
}

void bf16_gemm__avx512bf16_14x32(const GemmProblem& p, int threads) {
  gemm_internal::RunBlockedGemm(*bf16_gemm__avx512bf16_14x32_config(), p, threads);
}

}  // namespace podbench::kernels
