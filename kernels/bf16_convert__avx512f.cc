// fp32 -> bf16 rounding (kernels/bf16.h semantics, bit for bit) for
// AVX-512F, 16 values per step. (Not vcvtneps2bf16: it treats fp32 denormal
// inputs as zero.) Compiled with -mavx512f (this file only).
#include <immintrin.h>

#include "kernels/bf16.h"
#include "kernels/bf16_convert.h"
#include "kernels/bf16_simd.h"

namespace podbench::kernels::bf16_internal {

void ConvertToBf16_Avx512f(const float* src, Bf16* dst, long n) {
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i r = simd::Bf16Bits16(_mm512_loadu_si512(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_maskz_cvtepi32_epi16(0xffff, r));
  }
  for (; i < n; ++i) dst[i] = Bf16(src[i]);
}

}  // namespace podbench::kernels::bf16_internal
