// fp32 -> bf16 rounding (kernels/bf16.h semantics, bit for bit) for
// AVX-512F, 16 values per step. (Not vcvtneps2bf16: it treats fp32 denormal
// inputs as zero.) Compiled with -mavx512f (this file only).
#include <immintrin.h>

#include "kernels/bf16.h"
#include "kernels/bf16_convert.h"

namespace podbench::kernels::bf16_internal {

void ConvertToBf16_Avx512f(const float* src, Bf16* dst, long n) {
  const __m512i one = _mm512_set1_epi32(1), bias = _mm512_set1_epi32(0x7fff);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
  const __m512i quiet_bit = _mm512_set1_epi32(0x40);
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i u = _mm512_loadu_si512(src + i);
    // (maskz forms: the plain ones trip GCC 12's -Wmaybe-uninitialized.)
    const __m512i high = _mm512_maskz_srli_epi32(0xffff, u, 16);
    const __m512i lsb = _mm512_and_si512(high, one);
    __m512i r = _mm512_maskz_srli_epi32(0xffff, _mm512_add_epi32(u, _mm512_add_epi32(bias, lsb)), 16);
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, abs_mask), inf);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(high, quiet_bit));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_maskz_cvtepi32_epi16(0xffff, r));
  }
  for (; i < n; ++i) dst[i] = Bf16(src[i]);
}

}  // namespace podbench::kernels::bf16_internal
