// The vector-register packers (pack_impl.h) on AVX2: 8 x 8 transposes.
// Compiled with -mavx2 (this file only).
#include <immintrin.h>

#include <cstdint>

#include "kernels/bf16_simd.h"
#include "kernels/gemm/gemm_driver.h"

namespace podbench::kernels::gemm_internal {
namespace {

// Lane masks: kLanes + 8 - n selects the first n of 8.
alignas(32) constexpr std::int32_t kLanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
__m256i FirstLanes(std::int64_t n) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 8 - n)); }

struct V {
  static constexpr int kWidth = 8;
  using Reg = __m256;
  static Reg Zero() { return _mm256_setzero_ps(); }
  static Reg Load(const float* src, std::int64_t n) {
    return n == 8 ? _mm256_loadu_ps(src) : _mm256_maskload_ps(src, FirstLanes(n));
  }
  // The first n <= 8 bf16 of src, the rest zero.
  static __m128i Half(const std::uint16_t* src, std::int64_t n) {
    if (n == 8) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    alignas(16) std::uint16_t part[8] = {};
    for (std::int64_t i = 0; i < n; ++i) part[i] = src[i];
    return _mm_load_si128(reinterpret_cast<const __m128i*>(part));
  }
  static Reg Load(const std::uint16_t* src, std::int64_t n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(Half(src, n)), 16));
  }
  static Reg Pairs(const std::uint16_t* lo, const std::uint16_t* hi, std::int64_t n) {
    const __m256i l = lo != nullptr ? _mm256_cvtepu16_epi32(Half(lo, n)) : _mm256_setzero_si256();
    const __m256i h = hi != nullptr ? _mm256_cvtepu16_epi32(Half(hi, n)) : _mm256_setzero_si256();
    return _mm256_castsi256_ps(_mm256_or_si256(l, _mm256_slli_epi32(h, 16)));
  }
  static Reg Round(Reg v) { return simd::RoundToBf16x8(v); }
  static Reg RoundedPairs(Reg lo, Reg hi) {
    const __m256i l = simd::Bf16Bits8(_mm256_castps_si256(lo)), h = simd::Bf16Bits8(_mm256_castps_si256(hi));
    return _mm256_castsi256_ps(_mm256_or_si256(l, _mm256_slli_epi32(h, 16)));
  }
  template <bool kRound>
  static __m256i Bits(Reg v) {
    return kRound ? simd::Bf16Bits8(_mm256_castps_si256(v)) : _mm256_srli_epi32(_mm256_castps_si256(v), 16);
  }
  template <bool kRound>
  static Reg AdjacentPairs(Reg lo, Reg hi) {
    // The bits are below 2^16, so the saturating pack keeps them; it packs per
    // 128-bit lane (lo 0-3, hi 0-3, lo 4-7, hi 4-7), and the permute puts the
    // 64-bit quarters in order.
    const __m256i packed = _mm256_packus_epi32(Bits<kRound>(lo), Bits<kRound>(hi));
    return _mm256_castsi256_ps(_mm256_permute4x64_epi64(packed, 0xd8));
  }
  static void Store(float* dst, Reg v) { _mm256_storeu_ps(dst, v); }
  static void StoreFirst(float* dst, int lanes, Reg v) { _mm256_maskstore_ps(dst, FirstLanes(lanes), v); }
  static void Transpose(Reg r[8]) {
    Reg t[8];
    for (int i = 0; i < 8; i += 2) {  // pairs of rows interleaved by 32-bit element
      t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {  // 4 rows per 128-bit lane
      r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
      r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
      r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
      r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int i = 0; i < 4; ++i) {  // 128-bit lanes of row groups 4 apart
      t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
      t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
    }
    for (int i = 0; i < 8; ++i) r[i] = t[i];
  }
};

}  // namespace
}  // namespace podbench::kernels::gemm_internal

#include "kernels/gemm/pack_impl.h"

namespace podbench::kernels::gemm_internal {

const VectorPackers& VectorPackers__avx2() {
  return kPackers;
}

}  // namespace podbench::kernels::gemm_internal
