// The vector-register packers (pack_impl.h) on AVX-512F: 16 x 16 transposes.
// Compiled with -mavx512f (this file only).
#include <immintrin.h>

#include <cstdint>

#include "kernels/bf16_simd.h"
#include "kernels/gemm/gemm_driver.h"

namespace podbench::kernels::gemm_internal {
namespace {

// All lanes: the masked forms of the intrinsics below, because the plain ones
// trip GCC 12's -Wmaybe-uninitialized (as in kernels/bf16_simd.h).
constexpr __mmask16 kAll16 = 0xffff;
constexpr __mmask8 kAll8 = 0xff;

struct V {
  static constexpr int kWidth = 16;
  using Reg = __m512;
  static Reg Zero() { return _mm512_setzero_ps(); }
  static Reg Load(const float* src, std::int64_t n) {
    return n == 16 ? _mm512_loadu_ps(src) : _mm512_maskz_loadu_ps(__mmask16((1u << n) - 1), src);
  }
  // The first n <= 16 bf16 of src, the rest zero.
  static __m256i Half(const std::uint16_t* src, std::int64_t n) {
    if (n == 16) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
    alignas(32) std::uint16_t part[16] = {};
    for (std::int64_t i = 0; i < n; ++i) part[i] = src[i];
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(part));
  }
  static Reg Load(const std::uint16_t* src, std::int64_t n) {
    return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll16, _mm512_maskz_cvtepu16_epi32(kAll16, Half(src, n)), 16));
  }
  static Reg Pairs(const std::uint16_t* lo, const std::uint16_t* hi, std::int64_t n) {
    const __m512i l = lo != nullptr ? _mm512_maskz_cvtepu16_epi32(kAll16, Half(lo, n)) : _mm512_setzero_si512();
    const __m512i h = hi != nullptr ? _mm512_maskz_cvtepu16_epi32(kAll16, Half(hi, n)) : _mm512_setzero_si512();
    return _mm512_castsi512_ps(_mm512_or_si512(l, _mm512_maskz_slli_epi32(kAll16, h, 16)));
  }
  static Reg Round(Reg v) { return simd::RoundToBf16x16(v); }
  static Reg RoundedPairs(Reg lo, Reg hi) {
    const __m512i l = simd::Bf16Bits16(_mm512_castps_si512(lo)), h = simd::Bf16Bits16(_mm512_castps_si512(hi));
    return _mm512_castsi512_ps(_mm512_or_si512(l, _mm512_maskz_slli_epi32(kAll16, h, 16)));
  }
  template <bool kRound>
  static __m512i Bits(Reg v) {
    return kRound ? simd::Bf16Bits16(_mm512_castps_si512(v)) : _mm512_maskz_srli_epi32(kAll16, _mm512_castps_si512(v), 16);
  }
  template <bool kRound>
  static Reg AdjacentPairs(Reg lo, Reg hi) {  // vpmovdw: the low 16 bits of each lane, in order
    const __m256i l = _mm512_maskz_cvtepi32_epi16(kAll16, Bits<kRound>(lo));
    const __m256i h = _mm512_maskz_cvtepi32_epi16(kAll16, Bits<kRound>(hi));
    const __m512i low = _mm512_maskz_inserti64x4(kAll8, _mm512_setzero_si512(), l, 0);
    return _mm512_castsi512_ps(_mm512_maskz_inserti64x4(kAll8, low, h, 1));
  }
  static void Store(float* dst, Reg v) { _mm512_storeu_ps(dst, v); }
  static void StoreFirst(float* dst, int lanes, Reg v) { _mm512_mask_storeu_ps(dst, __mmask16((1u << lanes) - 1), v); }
  static void Transpose(Reg r[16]) {
    Reg t[16];
    for (int i = 0; i < 16; i += 2) {  // pairs of rows interleaved by 32-bit element
      t[i] = _mm512_maskz_unpacklo_ps(kAll16, r[i], r[i + 1]);
      t[i + 1] = _mm512_maskz_unpackhi_ps(kAll16, r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {  // then by 64-bit element: 4 rows per 128-bit lane
      const __m512d t0 = _mm512_castps_pd(t[i]), t1 = _mm512_castps_pd(t[i + 1]);
      const __m512d t2 = _mm512_castps_pd(t[i + 2]), t3 = _mm512_castps_pd(t[i + 3]);
      r[i] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(kAll8, t0, t2));
      r[i + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(kAll8, t0, t2));
      r[i + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(kAll8, t1, t3));
      r[i + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(kAll8, t1, t3));
    }
    for (int h = 0; h < 16; h += 8) {  // 128-bit lanes of row groups 4 apart
      for (int i = 0; i < 4; ++i) {
        t[h + i] = _mm512_maskz_shuffle_f32x4(kAll16, r[h + i], r[h + i + 4], 0x88);
        t[h + i + 4] = _mm512_maskz_shuffle_f32x4(kAll16, r[h + i], r[h + i + 4], 0xdd);
      }
    }
    for (int i = 0; i < 8; ++i) {  // and 8 apart
      r[i] = _mm512_maskz_shuffle_f32x4(kAll16, t[i], t[i + 8], 0x88);
      r[i + 8] = _mm512_maskz_shuffle_f32x4(kAll16, t[i], t[i + 8], 0xdd);
    }
  }
};

}  // namespace
}  // namespace podbench::kernels::gemm_internal

#include "kernels/gemm/pack_impl.h"

namespace podbench::kernels::gemm_internal {

const VectorPackers& VectorPackers__avx512f() {
  return kPackers;
}

}  // namespace podbench::kernels::gemm_internal
