// bfloat16 with TPU semantics: 1 sign, 8 exponent, 7 mantissa bits (the top
// half of an IEEE fp32). Conversion from fp32 rounds to nearest, ties to even;
// NaN stays NaN (quiet, sign kept); infinities and signed zeros are kept;
// values that round past the largest finite bf16 become infinity.
//
// The MXU contract: a bf16 x bf16 product is exact in fp32 (8+8 significant
// bits fit in 24), and products are accumulated in fp32.
#pragma once

#include <bit>
#include <cstdint>

namespace podbench::kernels {

struct Bf16 {
  std::uint16_t bits = 0;

  constexpr Bf16() = default;
  // Rounds to nearest even.
  explicit Bf16(float f) : bits(RoundFromFloat(f)) {}

  static constexpr Bf16 FromBits(std::uint16_t b) {
    Bf16 r;
    r.bits = b;
    return r;
  }
  // Exact: every bf16 is an fp32.
  float ToFloat() const { return std::bit_cast<float>(std::uint32_t(bits) << 16); }
  explicit operator float() const { return ToFloat(); }

  static std::uint16_t RoundFromFloat(float f) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      // NaN: keep sign and the top payload bits, force the quiet bit so a
      // payload living only in the low 16 bits cannot turn into infinity.
      return std::uint16_t((u >> 16) | 0x0040u);
    }
    const std::uint32_t lsb = (u >> 16) & 1u;
    return std::uint16_t((u + 0x7fffu + lsb) >> 16);
  }

  friend bool operator==(Bf16 a, Bf16 b) { return a.bits == b.bits; }
};

static_assert(sizeof(Bf16) == 2);

// What a tensor's fp32 elements are: any fp32 values, or each one a bf16
// value (RoundToBf16(v) == v, bit for bit). A producer asked for kBf16
// rounds what it writes, as the bf16 activations of Google's v0.6 models
// are; a consumer told its input is kBf16 may skip rounding it again, with
// the same result.
enum class Values { kF32, kBf16 };

// fp32 -> bf16 -> fp32: what a value becomes when it passes through the MXU inputs.
inline float RoundToBf16(float f) { return Bf16(f).ToFloat(); }
// RoundToBf16 without a branch, so that loops over it vectorise: the same
// bits for every input (NaN: sign and top payload kept, quiet bit forced;
// else round to nearest even). Checked against RoundToBf16 by bf16_test.
// Internal linkage and a builtin bit cast (no library template): the loops
// built once per ISA (ops/vector_ops_impl.h) call it too, and no copy
// compiled for one ISA can stand in for another's.
static inline float RoundToBf16Branchless(float f) {
  const std::uint32_t u = __builtin_bit_cast(std::uint32_t, f);
  const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  const std::uint32_t quiet_nan = (u | 0x00400000u) & 0xffff0000u;
  const std::int32_t magnitude = std::int32_t(u & 0x7fffffffu);
  return __builtin_bit_cast(float, magnitude > 0x7f800000 ? quiet_nan : rounded);
}

// REQUIRES: dst and src hold n elements each (RoundToBf16: they may be the same).
void ConvertToBf16(const float* src, Bf16* dst, long n);
void ConvertToFloat(const Bf16* src, float* dst, long n);
// dst[i] = RoundToBf16(src[i]).
void RoundToBf16(const float* src, float* dst, long n);
// Whether src looks like Values::kBf16: every one of up to `samples`
// elements spread evenly over [0, n) (first and last included) is a bf16
// value. For assertions of a caller's promise, at a cost independent of n.
bool SampledBf16Values(const float* src, long n, long samples = 64);
// src rounded (RoundToBf16) in runs of 8 to scattered places: for r < runs
// and k < 8, dst[run_offsets[r] + k] = RoundToBf16(src[8 r + k]). One call
// per row of a blocked layout (8 channels side by side) instead of one per
// run. REQUIRES: the runs do not overlap src.
void RoundToBf16Runs8(const float* src, long runs, float* dst, const std::int64_t* run_offsets);

}  // namespace podbench::kernels
