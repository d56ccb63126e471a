// fp32 -> bf16 rounding in vector registers, bit for bit Bf16 / RoundToBf16
// (kernels/bf16.h): round to nearest even; a NaN keeps its sign and top
// payload, quiet bit set. For the per-ISA files only (compiled with that
// ISA's flags). Every function here has internal linkage, so a copy built for
// one ISA can never stand in for a caller built for another (see
// kernels/gemm/gemm_driver.h).
#pragma once

#include <immintrin.h>

namespace podbench::kernels::simd {

#if defined(__AVX2__)
// Per 32-bit lane: the bf16 bits of fp32 lane u, in the low 16 bits.
static inline __m256i Bf16Bits8(__m256i u) {
  const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff);
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(bias, lsb)), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
  return _mm256_blendv_epi8(rounded, quiet, nan);
}
// The lanes of v rounded to bf16 values (fp32, low 16 bits zero): Bf16Bits8
// without the shift down and back (the top half masked instead), and NaN
// found by an unordered compare.
static inline __m256 RoundToBf16x8(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i sum = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
  const __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x00400000));
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  return _mm256_castsi256_ps(_mm256_and_si256(_mm256_blendv_epi8(sum, quiet, nan), _mm256_set1_epi32(int(0xffff0000u))));
}
#endif

#if defined(__AVX512F__)
// Per 32-bit lane: the bf16 bits of fp32 lane u, in the low 16 bits. (The
// maskz forms: the plain ones trip GCC 12's -Wmaybe-uninitialized.)
static inline __m512i Bf16Bits16(__m512i u) {
  const __m512i one = _mm512_set1_epi32(1), bias = _mm512_set1_epi32(0x7fff);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
  const __m512i high = _mm512_maskz_srli_epi32(0xffff, u, 16);
  const __m512i lsb = _mm512_and_si512(high, one);
  const __m512i r = _mm512_maskz_srli_epi32(0xffff, _mm512_add_epi32(u, _mm512_add_epi32(bias, lsb)), 16);
  const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, abs_mask), inf);
  return _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(high, _mm512_set1_epi32(0x40)));
}
// The lanes of v rounded to bf16 values (fp32, low 16 bits zero): Bf16Bits16
// without the shift down and back (the top half masked instead), NaN found
// by an unordered compare and quieted under its mask: 7 instructions where
// the bits and the shift back took 10 (the rounded transposes of the
// widening lowerings' filter packers spend most of their time here).
static inline __m512 RoundToBf16x16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_maskz_srli_epi32(0xffff, u, 16), _mm512_set1_epi32(1));
  const __m512i sum = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb));
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  const __m512i fixed = _mm512_mask_or_epi32(sum, nan, u, _mm512_set1_epi32(0x00400000));
  return _mm512_castsi512_ps(_mm512_and_si512(fixed, _mm512_set1_epi32(int(0xffff0000u))));
}
#endif

}  // namespace podbench::kernels::simd
