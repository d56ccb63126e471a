// Packing in vector registers. A panels packed by transposing 16 x 16 tiles in AVX-512 registers: the
// same panels as PackA_F32 / PackA_Bf16ToF32 and the implicit-im2col packer,
// bit for bit (gemm_driver.h). Compiled with -mavx512f (this file only).
// No standard-library templates or header inline functions here (see
// gemm_driver.h): bf16 is read as its 16 bits.
#include <immintrin.h>

#include <cstdint>

#include "kernels/bf16_simd.h"
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

// 16 consecutive elements of a row as fp32; n < 16 reads only n (the rest 0).
inline __m512 Load16(const float* src, int64_t n) {
  return n == 16 ? _mm512_loadu_ps(src) : _mm512_maskz_loadu_ps(__mmask16((1u << n) - 1), src);
}
inline __m512 Load16(const std::uint16_t* src, int64_t n) {
  __m256i h;
  if (n == 16) {
    h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
  } else {
    alignas(32) std::uint16_t part[16] = {};
    for (int64_t i = 0; i < n; ++i) part[i] = src[i];
    h = _mm256_load_si256(reinterpret_cast<const __m256i*>(part));
  }
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll16, _mm512_maskz_cvtepu16_epi32(kAll16, h), 16));
}

// out[t * mr + j] = src[j][t] for t < len and j < rows (<= mr <= 16), as
// fp32 (rounded to bf16 values if kRound); 0 for rows j in [rows, mr).
template <typename In, bool kRound>
void TransposeRun(const In* const* src, int64_t rows, int64_t len, int mr, float* out) {
  const __mmask16 lanes = __mmask16((1u << mr) - 1);
  for (int64_t q = 0; q < len; q += 16) {
    const int64_t n = len - q < 16 ? len - q : 16;
    __m512 r[16];
    for (int64_t j = 0; j < 16; ++j) {
      r[j] = j < rows ? Load16(src[j] + q, n) : _mm512_setzero_ps();
      if (kRound) r[j] = simd::RoundToBf16x16(r[j]);
    }
    Transpose16x16(r);
    for (int64_t d = 0; d < n; ++d) _mm512_mask_storeu_ps(out + (q + d) * mr, lanes, r[d]);
  }
}

template <typename In>
void PackA(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr, float* out) {
  const In* a = static_cast<const In*>(p.a);
  for (int64_t ir = 0; ir < mc; ir += mr, out += kcp * mr) {
    const int64_t rows = mc - ir < mr ? mc - ir : mr;
    const In* src[16];
    for (int64_t j = 0; j < rows; ++j) src[j] = a + (i0 + ir + j) * p.rsa + k0;
    TransposeRun<In, false>(src, rows, kc, mr, out);
    for (int64_t i = kc * mr; i < kcp * mr; ++i) out[i] = 0.0f;
  }
}

// Row-major B, depth [k0, k0 + kc) x columns [j0, j0 + nc), rounded to bf16
// values into nr-column micro-panels (nr a multiple of 16): each row read once,
// front to back; columns past nc and depth past kc are zero.
void PackBRounded(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
                  float* out) {
  const float* b = static_cast<const float*>(p.b);
  for (int64_t q = 0; q < kcp; ++q) {
    const bool in_depth = q < kc;
    const float* row = in_depth ? b + (k0 + q) * p.rsb + j0 : nullptr;
    float* o = out + q * nr;
    for (int64_t jr = 0; jr < nc; jr += nr, o += kcp * nr) {
      for (int64_t j = 0; j < nr; j += 16) {
        const int64_t left = in_depth ? nc - jr - j : 0;
        const int64_t n = left < 16 ? (left > 0 ? left : 0) : 16;
        __m512 v = _mm512_setzero_ps();
        if (n == 16) {
          v = _mm512_loadu_ps(row + jr + j);
        } else if (n > 0) {
          v = _mm512_maskz_loadu_ps(__mmask16((1u << n) - 1), row + jr + j);
        }
        _mm512_storeu_ps(o + j, simd::RoundToBf16x16(v));
      }
    }
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

void TransposeRows_F32__avx512f(const float* const* src, int rows, int64_t len, int mr, bool round, float* out) {
  if (round) {
    TransposeRun<float, true>(src, rows, len, mr, out);
  } else {
    TransposeRun<float, false>(src, rows, len, mr, out);
  }
}

void PackB_F32RoundedToBf16__avx512f(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc,
                                     int64_t kcp, int nr, void* dst) {
  if (p.csb != 1 || nr % 16 != 0) return PackB_F32RoundedToBf16(p, k0, j0, nc, kc, kcp, nr, dst);
  PackBRounded(p, k0, j0, nc, kc, kcp, nr, static_cast<float*>(dst));
}

}  // namespace podbench::kernels::gemm_internal
