// Packing in vector registers. A panels packed by transposing 8 x 8 tiles in AVX2 registers: the same
// panels as PackA_F32 / PackA_Bf16ToF32 and the implicit-im2col packer, bit
// for bit (gemm_driver.h). Compiled with -mavx2 (this file only).
// No standard-library templates or header inline functions here (see
// gemm_driver.h): bf16 is read as its 16 bits.
#include <immintrin.h>

#include <cstdint>

#include "kernels/bf16_simd.h"
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

// Lane masks: kLanes + 8 - n selects the first n of 8.
alignas(32) constexpr std::int32_t kLanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
inline __m256i FirstLanes(int64_t n) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 8 - n)); }

// 8 consecutive elements of a row as fp32; n < 8 reads only n (the rest 0).
inline __m256 Load8(const float* src, int64_t n) {
  return n == 8 ? _mm256_loadu_ps(src) : _mm256_maskload_ps(src, FirstLanes(n));
}
inline __m256 Load8(const std::uint16_t* src, int64_t n) {
  __m128i h;
  if (n == 8) {
    h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  } else {
    alignas(16) std::uint16_t part[8] = {};
    for (int64_t i = 0; i < n; ++i) part[i] = src[i];
    h = _mm_load_si128(reinterpret_cast<const __m128i*>(part));
  }
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

// out[t * mr + j] = src[j][t] for t < len and j < rows (<= mr <= 8), as
// fp32 (rounded to bf16 values if kRound); 0 for rows j in [rows, mr).
template <typename In, bool kRound>
void TransposeRun(const In* const* src, int64_t rows, int64_t len, int mr, float* out) {
  const __m256i lanes = FirstLanes(mr);
  for (int64_t q = 0; q < len; q += 8) {
    const int64_t n = len - q < 8 ? len - q : 8;
    __m256 r[8];
    for (int64_t j = 0; j < 8; ++j) {
      r[j] = j < rows ? Load8(src[j] + q, n) : _mm256_setzero_ps();
      if (kRound) r[j] = simd::RoundToBf16x8(r[j]);
    }
    Transpose8x8(r);
    for (int64_t d = 0; d < n; ++d) _mm256_maskstore_ps(out + (q + d) * mr, lanes, r[d]);
  }
}

template <typename In>
void PackA(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr, float* out) {
  const In* a = static_cast<const In*>(p.a);
  for (int64_t ir = 0; ir < mc; ir += mr, out += kcp * mr) {
    const int64_t rows = mc - ir < mr ? mc - ir : mr;
    const In* src[8];
    for (int64_t j = 0; j < rows; ++j) src[j] = a + (i0 + ir + j) * p.rsa + k0;
    TransposeRun<In, false>(src, rows, kc, mr, out);
    for (int64_t i = kc * mr; i < kcp * mr; ++i) out[i] = 0.0f;
  }
}

// Row-major B, depth [k0, k0 + kc) x columns [j0, j0 + nc), rounded to bf16
// values into nr-column micro-panels (nr a multiple of 8): each row read once,
// front to back; columns past nc and depth past kc are zero.
void PackBRounded(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
                  float* out) {
  const float* b = static_cast<const float*>(p.b);
  for (int64_t q = 0; q < kcp; ++q) {
    const bool in_depth = q < kc;
    const float* row = in_depth ? b + (k0 + q) * p.rsb + j0 : nullptr;
    float* o = out + q * nr;
    for (int64_t jr = 0; jr < nc; jr += nr, o += kcp * nr) {
      for (int64_t j = 0; j < nr; j += 8) {
        const int64_t left = in_depth ? nc - jr - j : 0;
        const int64_t n = left < 8 ? (left > 0 ? left : 0) : 8;
        __m256 v = _mm256_setzero_ps();
        if (n == 8) {
          v = _mm256_loadu_ps(row + jr + j);
        } else if (n > 0) {
          v = _mm256_maskload_ps(row + jr + j, FirstLanes(n));
        }
        _mm256_storeu_ps(o + j, simd::RoundToBf16x8(v));
      }
    }
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

void TransposeRows_F32__avx2(const float* const* src, int rows, int64_t len, int mr, bool round, float* out) {
  if (round) {
    TransposeRun<float, true>(src, rows, len, mr, out);
  } else {
    TransposeRun<float, false>(src, rows, len, mr, out);
  }
}

void PackB_F32RoundedToBf16__avx2(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp,
                                  int nr, void* dst) {
  if (p.csb != 1 || nr % 8 != 0) return PackB_F32RoundedToBf16(p, k0, j0, nc, kc, kcp, nr, dst);
  PackBRounded(p, k0, j0, nc, kc, kcp, nr, static_cast<float*>(dst));
}

}  // namespace podbench::kernels::gemm_internal
