// Row-major A packed by transposing 16 x 16 tiles in AVX-512 registers: the
// same panels as PackA_F32 / PackA_Bf16ToF32 (gemm_driver.h), bit for bit.
// Compiled with -mavx512f (this file only); only the AVX-512 variants use it.
// No standard-library templates or header inline functions here (see
// gemm_driver.h): bf16 is read as its 16 bits.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/gemm/gemm_driver.h"

namespace podbench::kernels::gemm_internal {
namespace {

using std::int64_t;

// All lanes: the masked forms of the intrinsics below, because the plain ones
// trip GCC 12's -Wmaybe-uninitialized (as in bf16_convert__avx512f.cc).
constexpr __mmask16 kAll16 = 0xffff;
constexpr __mmask8 kAll8 = 0xff;

// r[j] = row j on entry, column j on exit.
inline void Transpose16x16(__m512 r[16]) {
  __m512 t[16];
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

// 16 consecutive elements of A at `src` as fp32.
inline __m512 Load16(const float* src) { return _mm512_loadu_ps(src); }
inline __m512 Load16(const std::uint16_t* src) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll16, _mm512_maskz_cvtepu16_epi32(kAll16, h), 16));
}
inline float ToF32(float x) { return x; }
inline float ToF32(std::uint16_t bits) {  // exact: bf16 is the top half of an fp32
  const std::uint32_t u = std::uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// One micro-panel: `rows` (<= mr <= 16) rows of row-major A from `src`
// (leading dimension lda), depth kc, zero to kcp and to mr rows.
template <typename In>
void PackPanel(const In* src, int64_t lda, int64_t rows, int64_t kc, int64_t kcp, int mr, float* out) {
  const __mmask16 lanes = __mmask16((1u << mr) - 1);
  int64_t q = 0;
  for (; q + 16 <= kc; q += 16, out += 16 * mr) {
    __m512 r[16];
    for (int64_t j = 0; j < 16; ++j) r[j] = j < rows ? Load16(src + j * lda + q) : _mm512_setzero_ps();
    Transpose16x16(r);
    for (int d = 0; d < 16; ++d) _mm512_mask_storeu_ps(out + d * mr, lanes, r[d]);
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

void PackA_F32__avx512f(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                        void* dst) {
  if (p.csa != 1 || mr > 16) return PackA_F32(p, i0, k0, mc, kc, kcp, mr, dst);
  PackA<float>(p, i0, k0, mc, kc, kcp, mr, static_cast<float*>(dst));
}

void PackA_Bf16ToF32__avx512f(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp,
                              int mr, void* dst) {
  if (p.csa != 1 || mr > 16) return PackA_Bf16ToF32(p, i0, k0, mc, kc, kcp, mr, dst);
  PackA<std::uint16_t>(p, i0, k0, mc, kc, kcp, mr, static_cast<float*>(dst));
}

}  // namespace podbench::kernels::gemm_internal
