// Private to kernels/gemm: the one body of the vector-register packers,
// included by each pack__<isa>.cc after it defines `V`, its register traits:
//   kWidth (lanes: the transpose is kWidth x kWidth), Reg, Zero(),
//   Load(const float*, n) / Load(const std::uint16_t* bf16 bits, n) (the
//   first n <= kWidth lanes only, the rest zero; the float one moves bits
//   untouched, so it also loads 32-bit words of bf16 pairs), Pairs(lo, hi, n) (words lo[i] | hi[i] << 16 of
//   n <= kWidth bf16 each; a null row reads zeros), Round(Reg) (to bf16
//   values, simd::RoundToBf16x*), Transpose(Reg r[kWidth]) (row j in, column
//   j out; it only moves bits), Store(float*, Reg) and StoreFirst(float*, int
//   lanes, Reg), RoundedPairs(lo, hi) (words of the bf16 bits, RoundFromFloat's,
//   of lane i of lo and of hi) and AdjacentPairs<kRound>(lo, hi) (word i of
//   the bf16 bits of lanes 2i and 2i + 1 of lo then hi, side by side: rounded,
//   or each lane's top half).
// Everything here has internal linkage (anonymous namespace) and calls no
// inline library template, so no function compiled for one ISA can be picked
// by the linker for another (gemm_driver.h).
#pragma once

#include <cassert>
#include <cstdint>

#include "kernels/gemm/gemm_driver.h"

namespace podbench::kernels::gemm_internal {
namespace {

using std::int64_t;

// out[t * ld + j] = src[j][t] for t < len and j < rows (<= mr <= kWidth), as
// fp32 (rounded to bf16 values if kRound); 0 for rows j in [rows, mr).
template <typename In, bool kRound>
void TransposeRun(const In* const* src, int64_t rows, int64_t len, int mr, int64_t ld, float* out) {
  constexpr int64_t w = V::kWidth;
  for (int64_t q = 0; q < len; q += w) {
    const int64_t n = len - q < w ? len - q : w;
    typename V::Reg r[w];
    for (int64_t j = 0; j < w; ++j) {
      r[j] = j < rows ? V::Load(src[j] + q, n) : V::Zero();
      if (kRound) r[j] = V::Round(r[j]);
    }
    V::Transpose(r);
    for (int64_t d = 0; d < n; ++d) V::StoreFirst(out + (q + d) * ld, mr, r[d]);
  }
}

// PackA_F32 / PackA_Bf16ToF32 for row-major A and mr <= kWidth.
template <typename In>
void PackA(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr, float* out) {
  const In* a = static_cast<const In*>(p.a);
  for (int64_t ir = 0; ir < mc; ir += mr, out += kcp * mr) {
    const int64_t rows = mc - ir < mr ? mc - ir : mr;
    const In* src[V::kWidth];
    for (int64_t j = 0; j < rows; ++j) src[j] = a + (i0 + ir + j) * p.rsa + k0;
    TransposeRun<In, false>(src, rows, kc, mr, mr, out);
    for (int64_t i = kc * mr; i < kcp * mr; ++i) out[i] = 0.0f;
  }
}

// PackB_F32 / PackB_Bf16ToF32 / PackB_F32RoundedToBf16 (In = float and
// kRound) for row-major B and nr a multiple of kWidth: each row read once,
// front to back; columns past nc and depth past kc are zero.
template <typename In, bool kRound>
void PackBRows(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
               float* out) {
  constexpr int64_t w = V::kWidth;
  const In* b = static_cast<const In*>(p.b);
  for (int64_t q = 0; q < kcp; ++q) {
    const bool in_depth = q < kc;
    const In* row = in_depth ? b + (k0 + q) * p.rsb + j0 : nullptr;
    float* o = out + q * nr;
    for (int64_t jr = 0; jr < nc; jr += nr, o += kcp * nr) {
      for (int64_t j = 0; j < nr; j += w) {
        const int64_t left = in_depth ? nc - jr - j : 0;
        const int64_t n = left < w ? (left > 0 ? left : 0) : w;
        const typename V::Reg v = n > 0 ? V::Load(row + jr + j, n) : V::Zero();
        V::Store(o + j, kRound ? V::Round(v) : v);
      }
    }
  }
}

// PackA_Bf16Pairs for row-major A and mr <= kWidth. A row's depth pairs
// (k, k + 1) are 32-bit words side by side, so a micro-panel is the
// transpose of those words: the fp32 transpose moves them, bits untouched.
// An odd depth's last pair is (A(i, kc - 1), 0); pairs past kc are zero.
void PackAPairs(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                std::uint32_t* out) {
  constexpr int64_t w = V::kWidth;
  const std::uint16_t* a = static_cast<const std::uint16_t*>(p.a);
  const int64_t pairs = kcp / 2, full = kc / 2;
  for (int64_t ir = 0; ir < mc; ir += mr, out += pairs * mr) {
    const int64_t rows = mc - ir < mr ? mc - ir : mr;
    const std::uint16_t* src[V::kWidth];
    for (int64_t j = 0; j < rows; ++j) src[j] = a + (i0 + ir + j) * p.rsa + k0;
    for (int64_t q = 0; q < full; q += w) {
      const int64_t n = full - q < w ? full - q : w;
      typename V::Reg r[w];
      for (int64_t j = 0; j < w; ++j) {  // n pair words of row j, as the float lanes they fill
        r[j] = j < rows ? V::Load(reinterpret_cast<const float*>(src[j] + 2 * q), n) : V::Zero();
      }
      V::Transpose(r);
      for (int64_t d = 0; d < n; ++d) V::StoreFirst(reinterpret_cast<float*>(out + (q + d) * mr), mr, r[d]);
    }
    int64_t q = full;
    if (kc % 2 != 0) {
      for (int64_t j = 0; j < mr; ++j) out[q * mr + j] = j < rows ? src[j][kc - 1] : 0u;
      ++q;
    }
    for (int64_t i = q * mr; i < pairs * mr; ++i) out[i] = 0u;
  }
}

// VectorPackers::transpose_pairs: the words of 2 * kWidth depths of each
// row, then their kWidth x kWidth transpose.
template <bool kRound>
void TransposePairs(const float* const* src, int rows, int64_t len, int mr, int64_t ld, std::uint32_t* out) {
  constexpr int64_t w = V::kWidth;
  for (int64_t q = 0; q < len; q += 2 * w) {
    const int64_t left = len - q < 2 * w ? len - q : 2 * w;
    const int64_t n0 = left < w ? left : w, n1 = left - n0, words = (left + 1) / 2;
    typename V::Reg r[w];
    for (int64_t j = 0; j < w; ++j) {
      r[j] = j < rows ? V::template AdjacentPairs<kRound>(V::Load(src[j] + q, n0),
                                                         n1 > 0 ? V::Load(src[j] + q + w, n1) : V::Zero())
                      : V::Zero();
    }
    V::Transpose(r);
    for (int64_t d = 0; d < words; ++d) V::StoreFirst(reinterpret_cast<float*>(out + (q / 2 + d) * ld), mr, r[d]);
  }
}
void TransposePairsF32(const float* const* src, int rows, int64_t len, int mr, int64_t ld, bool round,
                       std::uint32_t* out) {
  assert(0 <= rows && rows <= mr && 1 <= mr && mr <= V::kWidth && mr <= ld && len >= 0);
  if (round) {
    TransposePairs<true>(src, rows, len, mr, ld, out);
  } else {
    TransposePairs<false>(src, rows, len, mr, ld, out);
  }
}

// The pair words of n <= kWidth columns of depth rows r0 and r1 (null:
// past the depth, zeros): bf16 rows as they are, fp32 rows rounded.
typename V::Reg PairsOf(const std::uint16_t* r0, const std::uint16_t* r1, int64_t n) { return V::Pairs(r0, r1, n); }
typename V::Reg PairsOf(const float* r0, const float* r1, int64_t n) {
  return V::RoundedPairs(V::Load(r0, n), r1 != nullptr ? V::Load(r1, n) : V::Zero());
}

// PackB_Bf16Pairs (In = std::uint16_t, bf16 bits) or
// PackB_F32RoundedToBf16Pairs (In = float) for row-major B and nr a multiple
// of kWidth: per depth pair, rows 2q and 2q + 1 are read once, front to
// back, and interleaved into words; columns past nc and depth past kc are
// zero.
template <typename In>
void PackBPairs(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
                std::uint32_t* out) {
  constexpr int64_t w = V::kWidth;
  const In* b = static_cast<const In*>(p.b);
  const int64_t pairs = kcp / 2;
  for (int64_t q = 0; q < pairs; ++q) {
    const In* r0 = 2 * q < kc ? b + (k0 + 2 * q) * p.rsb + j0 : nullptr;
    const In* r1 = 2 * q + 1 < kc ? b + (k0 + 2 * q + 1) * p.rsb + j0 : nullptr;
    std::uint32_t* o = out + q * nr;
    for (int64_t jr = 0; jr < nc; jr += nr, o += pairs * nr) {
      for (int64_t j = 0; j < nr; j += w) {
        const int64_t left = r0 != nullptr ? nc - jr - j : 0;
        const int64_t n = left < w ? (left > 0 ? left : 0) : w;
        const typename V::Reg v = n > 0 ? PairsOf(r0 + jr + j, r1 != nullptr ? r1 + jr + j : nullptr, n) : V::Zero();
        V::Store(reinterpret_cast<float*>(o + j), v);
      }
    }
  }
}

// This ISA's VectorPackers (gemm_driver.h): the vector paths where the
// layout allows, the portable packers elsewhere.
void PackAF32(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr, void* dst) {
  if (p.csa != 1 || mr > V::kWidth) return PackA_F32(p, i0, k0, mc, kc, kcp, mr, dst);
  PackA<float>(p, i0, k0, mc, kc, kcp, mr, static_cast<float*>(dst));
}
void PackABf16ToF32(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                    void* dst) {
  if (p.csa != 1 || mr > V::kWidth) return PackA_Bf16ToF32(p, i0, k0, mc, kc, kcp, mr, dst);
  PackA<std::uint16_t>(p, i0, k0, mc, kc, kcp, mr, static_cast<float*>(dst));
}
void TransposeRowsF32(const float* const* src, int rows, int64_t len, int mr, int64_t ld, bool round, float* out) {
  assert(0 <= rows && rows <= mr && 1 <= mr && mr <= V::kWidth && mr <= ld && len >= 0);
  if (round) {
    TransposeRun<float, true>(src, rows, len, mr, ld, out);
  } else {
    TransposeRun<float, false>(src, rows, len, mr, ld, out);
  }
}
void PackBF32(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr, void* dst) {
  if (p.csb != 1 || nr % V::kWidth != 0) return PackB_F32(p, k0, j0, nc, kc, kcp, nr, dst);
  PackBRows<float, false>(p, k0, j0, nc, kc, kcp, nr, static_cast<float*>(dst));
}
void PackBBf16ToF32(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
                    void* dst) {
  if (p.csb != 1 || nr % V::kWidth != 0) return PackB_Bf16ToF32(p, k0, j0, nc, kc, kcp, nr, dst);
  PackBRows<std::uint16_t, false>(p, k0, j0, nc, kc, kcp, nr, static_cast<float*>(dst));
}
void PackBF32RoundedToBf16(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp,
                           int nr, void* dst) {
  if (p.csb != 1 || nr % V::kWidth != 0) return PackB_F32RoundedToBf16(p, k0, j0, nc, kc, kcp, nr, dst);
  PackBRows<float, true>(p, k0, j0, nc, kc, kcp, nr, static_cast<float*>(dst));
}
void PackABf16Pairs(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                    void* dst) {
  if (p.csa != 1 || mr > V::kWidth) return PackA_Bf16Pairs(p, i0, k0, mc, kc, kcp, mr, dst);
  PackAPairs(p, i0, k0, mc, kc, kcp, mr, static_cast<std::uint32_t*>(dst));
}
void PackBBf16Pairs(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
                    void* dst) {
  if (p.csb != 1 || nr % V::kWidth != 0) return PackB_Bf16Pairs(p, k0, j0, nc, kc, kcp, nr, dst);
  PackBPairs<std::uint16_t>(p, k0, j0, nc, kc, kcp, nr, static_cast<std::uint32_t*>(dst));
}

void PackBF32RoundedPairs(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
                          void* dst) {
  if (p.csb != 1 || nr % V::kWidth != 0) return PackB_F32RoundedToBf16Pairs(p, k0, j0, nc, kc, kcp, nr, dst);
  PackBPairs<float>(p, k0, j0, nc, kc, kcp, nr, static_cast<std::uint32_t*>(dst));
}

// This ISA's table, which the pack__<isa>.cc that includes this file returns.
constexpr VectorPackers kPackers = {.width = V::kWidth,
                                    .pack_a_f32 = PackAF32,
                                    .pack_a_bf16_to_f32 = PackABf16ToF32,
                                    .pack_b_f32 = PackBF32,
                                    .pack_b_bf16_to_f32 = PackBBf16ToF32,
                                    .pack_b_f32_rounded = PackBF32RoundedToBf16,
                                    .pack_a_bf16_pairs = PackABf16Pairs,
                                    .pack_b_bf16_pairs = PackBBf16Pairs,
                                    .pack_b_f32_rounded_pairs = PackBF32RoundedPairs,
                                    .transpose_rows = TransposeRowsF32,
                                    .transpose_pairs = TransposePairsF32};

}  // namespace
}  // namespace podbench::kernels::gemm_internal
