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
// Per 32-bit lane: fp32 lane u rounded to nearest even at bit 16, a NaN with
// its quiet bit set instead. The top 16 bits are the bf16 bits; the low 16
// are left over from the rounding add, so callers shift them out or mask them.
static inline __m256i RoundedTop8(__m256i u) {
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i sum = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
  const __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x00400000));
  const __m256 v = _mm256_castsi256_ps(u);
  return _mm256_blendv_epi8(sum, quiet, _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
}
// Per 32-bit lane: the bf16 bits of fp32 lane u, in the low 16 bits.
static inline __m256i Bf16Bits8(__m256i u) { return _mm256_srli_epi32(RoundedTop8(u), 16); }
// The lanes of v rounded to bf16 values (fp32, low 16 bits zero): the top
// half masked, not shifted down and back.
static inline __m256 RoundToBf16x8(__m256 v) {
  return _mm256_castsi256_ps(
      _mm256_and_si256(RoundedTop8(_mm256_castps_si256(v)), _mm256_set1_epi32(int(0xffff0000u))));
}
#endif

#if defined(__AVX512F__)
// Per 32-bit lane: fp32 lane u rounded to nearest even at bit 16, a NaN
// (found by an unordered compare) quieted under its mask. The top 16 bits are
// the bf16 bits; the low 16 are left over from the rounding add. (The maskz
// forms: the plain ones trip GCC 12's -Wmaybe-uninitialized.)
static inline __m512i RoundedTop16(__m512i u) {
  const __m512i lsb = _mm512_and_si512(_mm512_maskz_srli_epi32(0xffff, u, 16), _mm512_set1_epi32(1));
  const __m512i sum = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb));
  const __m512 v = _mm512_castsi512_ps(u);
  return _mm512_mask_or_epi32(sum, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), u, _mm512_set1_epi32(0x00400000));
}
// Per 32-bit lane: the bf16 bits of fp32 lane u, in the low 16 bits.
static inline __m512i Bf16Bits16(__m512i u) { return _mm512_maskz_srli_epi32(0xffff, RoundedTop16(u), 16); }
// The lanes of v rounded to bf16 values (fp32, low 16 bits zero): the top
// half masked, not shifted down and back (7 instructions where that took 10;
// the rounded transposes of the widening lowerings' filter packers spend most
// of their time here).
static inline __m512 RoundToBf16x16(__m512 v) {
  return _mm512_castsi512_ps(
      _mm512_and_si512(RoundedTop16(_mm512_castps_si512(v)), _mm512_set1_epi32(int(0xffff0000u))));
}
#endif

}  // namespace podbench::kernels::simd
