// fp32 -> bf16 rounding (kernels/bf16.h semantics, bit for bit) for AVX2,
// 16 values per step. Compiled with -mavx2 (this file only).
#include <immintrin.h>

#include "kernels/bf16.h"
#include "kernels/bf16_convert.h"

namespace podbench::kernels::bf16_internal {
namespace {

__m256i Round8(__m256i u) {
  const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff);
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(bias, lsb)), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
  return _mm256_blendv_epi8(rounded, quiet, nan);
}

}  // namespace

void ConvertToBf16_Avx2(const float* src, Bf16* dst, long n) {
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a = Round8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    const __m256i b = Round8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 8)));
    // packus works per 128-bit lane: a0-3 b0-3 a4-7 b4-7; put the lanes in order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  for (; i < n; ++i) dst[i] = Bf16(src[i]);
}

void ConvertToFloat_Avx2(const Bf16* src, float* dst, long n) {
  long i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_slli_epi32(h, 16));
  }
  for (; i < n; ++i) dst[i] = src[i].ToFloat();
}

void RoundToBf16_Avx2(const float* src, float* dst, long n) {
  long i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i r = Round8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_slli_epi32(r, 16));
  }
  for (; i < n; ++i) dst[i] = RoundToBf16(src[i]);
}

}  // namespace podbench::kernels::bf16_internal
