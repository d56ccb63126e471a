// fp32 -> bf16 rounding (kernels/bf16.h semantics, bit for bit) for
// AVX-512F, 16 values per step. (Not vcvtneps2bf16: it treats fp32 denormal
// inputs as zero.) Compiled with -mavx512f (this file only).
#include <immintrin.h>

#include <cstdint>

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
  if (i < n) {  // the tail through the same code on a padded copy (no header inline function here)
    alignas(64) float in[16] = {};
    alignas(64) std::uint16_t out[16];  // Bf16's bits (no Bf16 object: its constructor is a header inline)
    for (long k = 0; k < n - i; ++k) in[k] = src[i + k];
    ConvertToBf16_Avx512f(in, reinterpret_cast<Bf16*>(out), 16);
    for (long k = 0; k < n - i; ++k) dst[i + k].bits = out[k];
  }
}

void RoundToBf16Runs8_Avx512f(const float* src, long runs, float* dst, const std::int64_t* run_offsets) {
  long r = 0;
  for (; r + 2 <= runs; r += 2) {  // two runs per register; one store where they lie side by side
    const __m512 v = simd::RoundToBf16x16(_mm512_loadu_ps(src + 8 * r));
    if (run_offsets[r + 1] == run_offsets[r] + 8) {
      _mm512_storeu_ps(dst + run_offsets[r], v);
    } else {  // lanes 0-7 at the first run; 8-15, swapped down, at the second (masked: 8 lanes each)
      _mm512_mask_storeu_ps(dst + run_offsets[r], 0x00ff, v);
      _mm512_mask_storeu_ps(dst + run_offsets[r + 1], 0x00ff, _mm512_maskz_shuffle_f32x4(0xffff, v, v, 0x4e));
    }
  }
  if (r < runs) {
    _mm512_mask_storeu_ps(dst + run_offsets[r], 0x00ff, simd::RoundToBf16x16(_mm512_maskz_loadu_ps(0x00ff, src + 8 * r)));
  }
}

}  // namespace podbench::kernels::bf16_internal
