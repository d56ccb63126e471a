// Row-major A packed by transposing 8 x 8 tiles in AVX2 registers: the same
// panels as PackA_F32 / PackA_Bf16ToF32 (gemm_driver.h), bit for bit.
// Compiled with -mavx2 (this file only); only the AVX2 variants use it.
// No standard-library templates or header inline functions here (see
// gemm_driver.h): bf16 is read as its 16 bits.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/gemm/gemm_driver.h"

namespace podbench::kernels::gemm_internal {
namespace {

using std::int64_t;

// r[j] = row j on entry, column j on exit.
inline void Transpose8x8(__m256 r[8]) {
  __m256 t[8];
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

// 8 consecutive elements of A at `src` as fp32.
inline __m256 Load8(const float* src) { return _mm256_loadu_ps(src); }
inline __m256 Load8(const std::uint16_t* src) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
inline float ToF32(float x) { return x; }
inline float ToF32(std::uint16_t bits) {  // exact: bf16 is the top half of an fp32
  const std::uint32_t u = std::uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// One micro-panel: `rows` (<= mr <= 8) rows of row-major A from `src`
// (leading dimension lda), depth kc, zero to kcp and to mr rows.
template <typename In>
void PackPanel(const In* src, int64_t lda, int64_t rows, int64_t kc, int64_t kcp, int mr, float* out) {
  alignas(32) static constexpr std::int32_t kLanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  const __m256i lanes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 8 - mr));
  int64_t q = 0;
  for (; q + 8 <= kc; q += 8, out += 8 * mr) {
    __m256 r[8];
    for (int64_t j = 0; j < 8; ++j) r[j] = j < rows ? Load8(src + j * lda + q) : _mm256_setzero_ps();
    Transpose8x8(r);
    for (int d = 0; d < 8; ++d) _mm256_maskstore_ps(out + d * mr, lanes, r[d]);
  }
  for (; q < kc; ++q, out += mr) {
    int64_t j = 0;
    for (; j < rows; ++j) out[j] = ToF32(src[j * lda + q]);
    for (; j < mr; ++j) out[j] = 0.0f;
  }
  for (; q < kcp; ++q, out += mr) {
    for (int j = 0; j < mr; ++j) out[j] = 0.0f;
  }
}

template <typename In>
void PackA(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr, float* out) {
  const In* a = static_cast<const In*>(p.a);
  for (int64_t ir = 0; ir < mc; ir += mr, out += kcp * mr) {
    PackPanel(a + (i0 + ir) * p.rsa + k0, p.rsa, mc - ir < mr ? mc - ir : mr, kc, kcp, mr, out);
  }
}

}  // namespace

void PackA_F32__avx2(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                     void* dst) {
  if (p.csa != 1 || mr > 8) return PackA_F32(p, i0, k0, mc, kc, kcp, mr, dst);
  PackA<float>(p, i0, k0, mc, kc, kcp, mr, static_cast<float*>(dst));
}

void PackA_Bf16ToF32__avx2(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                           void* dst) {
  if (p.csa != 1 || mr > 8) return PackA_Bf16ToF32(p, i0, k0, mc, kc, kcp, mr, dst);
  PackA<std::uint16_t>(p, i0, k0, mc, kc, kcp, mr, static_cast<float*>(dst));
}

}  // namespace podbench::kernels::gemm_internal
