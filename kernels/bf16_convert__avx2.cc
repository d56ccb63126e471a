// fp32 -> bf16 rounding (kernels/bf16.h semantics, bit for bit) for AVX2,
// 16 values per step. Compiled with -mavx2 (this file only). The tails go
// through the same vector code on a padded copy: no header inline function
// is called here (see kernels/gemm/gemm_driver.h on why an ISA file must not).
#include <immintrin.h>

#include <cstdint>

#include "kernels/bf16.h"
#include "kernels/bf16_convert.h"
#include "kernels/bf16_simd.h"

namespace podbench::kernels::bf16_internal {

using simd::Bf16Bits8;

void ConvertToBf16_Avx2(const float* src, Bf16* dst, long n) {
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a = Bf16Bits8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    const __m256i b = Bf16Bits8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 8)));
    // packus works per 128-bit lane: a0-3 b0-3 a4-7 b4-7; put the lanes in order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  if (i < n) {
    alignas(32) float in[16] = {};
    alignas(32) std::uint16_t out[16];  // Bf16's bits (no Bf16 object: its constructor is a header inline)
    for (long k = 0; k < n - i; ++k) in[k] = src[i + k];
    ConvertToBf16_Avx2(in, reinterpret_cast<Bf16*>(out), 16);
    for (long k = 0; k < n - i; ++k) dst[i + k].bits = out[k];
  }
}

void ConvertToFloat_Avx2(const Bf16* src, float* dst, long n) {
  long i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_slli_epi32(h, 16));
  }
  if (i < n) {
    alignas(32) std::uint16_t in[8] = {};
    alignas(32) float out[8];
    for (long k = 0; k < n - i; ++k) in[k] = src[i + k].bits;
    ConvertToFloat_Avx2(reinterpret_cast<const Bf16*>(in), out, 8);
    for (long k = 0; k < n - i; ++k) dst[i + k] = out[k];
  }
}

void RoundToBf16_Avx2(const float* src, float* dst, long n) {
  long i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i r = Bf16Bits8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_slli_epi32(r, 16));
  }
  if (i < n) {
    alignas(32) float in[8] = {}, out[8];
    for (long k = 0; k < n - i; ++k) in[k] = src[i + k];
    RoundToBf16_Avx2(in, out, 8);
    for (long k = 0; k < n - i; ++k) dst[i + k] = out[k];
  }
}

void RoundToBf16Runs8_Avx2(const float* src, long runs, float* dst, const std::int64_t* run_offsets) {
  for (long r = 0; r < runs; ++r) {
    const __m256i v = Bf16Bits8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 8 * r)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + run_offsets[r]), _mm256_slli_epi32(v, 16));
  }
}

}  // namespace podbench::kernels::bf16_internal
