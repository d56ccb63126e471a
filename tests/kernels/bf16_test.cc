#include "kernels/bf16.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/bf16_convert.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_driver.h"

namespace podbench::kernels {
namespace {

std::uint16_t B(float f) { return Bf16(f).bits; }
float F(std::uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(Bf16Test, ExactValuesRoundTrip) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65280.0f, 1.0f / 1024}) {
    EXPECT_EQ(Bf16(f).ToFloat(), f);
  }
  EXPECT_TRUE(std::signbit(Bf16(-0.0f).ToFloat()));
}

TEST(Bf16Test, RoundsToNearestEven) {
  // Below halfway rounds down, above rounds up.
  EXPECT_EQ(B(F(0x3f807fffu)), 0x3f80u);
  EXPECT_EQ(B(F(0x3f808001u)), 0x3f81u);
  // Exactly halfway: to the even neighbour.
  EXPECT_EQ(B(F(0x3f808000u)), 0x3f80u);  // 0x3f80 is even
  EXPECT_EQ(B(F(0x3f818000u)), 0x3f82u);  // 0x3f81 is odd -> up
  EXPECT_EQ(B(F(0xbf818000u)), 0xbf82u);  // sign does not matter
}

TEST(Bf16Test, OverflowAndInfinity) {
  EXPECT_EQ(B(std::numeric_limits<float>::infinity()), 0x7f80u);
  EXPECT_EQ(B(-std::numeric_limits<float>::infinity()), 0xff80u);
  EXPECT_EQ(B(std::numeric_limits<float>::max()), 0x7f80u);  // rounds past the largest bf16
  EXPECT_EQ(B(F(0x7f7f7fffu)), 0x7f7fu);                     // largest bf16 stays
}

TEST(Bf16Test, NanStaysNan) {
  EXPECT_TRUE(std::isnan(Bf16(std::numeric_limits<float>::quiet_NaN()).ToFloat()));
  // A NaN whose payload is only in the low 16 bits would truncate to infinity.
  const float low_payload_nan = F(0x7f800001u);
  ASSERT_TRUE(std::isnan(low_payload_nan));
  EXPECT_TRUE(std::isnan(Bf16(low_payload_nan).ToFloat()));
  EXPECT_TRUE(std::signbit(Bf16(F(0xff800001u)).ToFloat()));
}

TEST(Bf16Test, DenormalsRound) {
  EXPECT_EQ(B(F(0x00008000u)), 0x0000u);  // halfway to the smallest, ties to even (0)
  EXPECT_EQ(B(F(0x00018000u)), 0x0002u);
  EXPECT_EQ(B(F(0x00010000u)), 0x0001u);
}

TEST(Bf16Test, BranchlessRoundingGivesTheSameBits) {
  std::vector<std::uint32_t> inputs = {0x00000000u, 0x80000000u, 0x00000001u, 0x00008000u, 0x00018000u, 0x007fffffu,
                                       0x00800000u, 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x7f7fffffu, 0xff7fffffu,
                                       0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f80ffffu,
                                       0xff800001u, 0x7fffffffu};
  std::mt19937 rng(11);
  for (int i = 0; i < 100000; ++i) inputs.push_back(std::uint32_t(rng()));
  for (std::uint32_t bits : inputs) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(RoundToBf16Branchless(F(bits))), std::bit_cast<std::uint32_t>(RoundToBf16(F(bits))))
        << std::hex << bits;
  }
}

TEST(Bf16Test, ArrayConversions) {
  const float in[3] = {1.0f, 3.0f + 1.0f / 128, -7.0f};
  Bf16 mid[3];
  float out[3];
  ConvertToBf16(in, mid, 3);
  ConvertToFloat(mid, out, 3);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 3.0f);  // 3 + 2^-7 is halfway between bf16 3 and 3 + 2^-6: ties to even (3)
  EXPECT_EQ(out[2], -7.0f);
}

}  // namespace
}  // namespace podbench::kernels

namespace podbench::kernels {
namespace {

// Every ISA variant of the bulk conversion equals Bf16(x) bit for bit:
// ties, denormals, infinities, NaN payloads (low and high), lengths off the
// vector width.
TEST(Bf16ConvertTest, EveryVariantMatchesTheScalarRounding) {
  std::vector<std::uint32_t> bits = {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u,
                                     0x3f808000u, 0x3f818000u, 0x3f80ffffu, 0x7f7fffffu, 0x7f800000u,
                                     0xff800000u, 0x7f800001u, 0x7fc00000u, 0xffbf0001u, 0x7f80ffffu};
  std::mt19937 rng(7);
  for (int i = 0; i < 1000; ++i) bits.push_back(rng());
  std::vector<float> src(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) src[i] = std::bit_cast<float>(bits[i]);
  struct Variant {
    const char* name;
    Isa isa;
    void (*fn)(const float*, Bf16*, long);
  };
  const Variant variants[] = {{"dispatched", Isa::kScalar, ConvertToBf16},
                              {"avx2", Isa::kAvx2Fma, bf16_internal::ConvertToBf16_Avx2},
                              {"avx512f", Isa::kAvx512f, bf16_internal::ConvertToBf16_Avx512f}};
  for (const Variant& v : variants) {
    if (!CpuSupports(v.isa)) continue;
    for (long n : {long(src.size()), 15L, 17L, 33L}) {
      std::vector<Bf16> got(static_cast<std::size_t>(n));
      v.fn(src.data(), got.data(), n);
      for (long i = 0; i < n; ++i) {
        ASSERT_EQ(got[std::size_t(i)].bits, Bf16(src[std::size_t(i)]).bits)
            << v.name << " n=" << n << " input 0x" << std::hex << bits[std::size_t(i)];
      }
    }
  }
}

// The vector roundings (to bf16 bits, bulk, in runs of 8, in the rounded B
// packer and in the rounded transpose, for each ISA the CPU has) equal the
// scalar rounding (Bf16, RoundToBf16) bit for
// bit on every top half (sign, exponent, top 7 mantissa bits: all zeros,
// denormals, infinities and NaN encodings) with each low half that decides a
// rounding: 0, 1, just under, at and just over the tie, 0x4000, 0xc000, 0xffff.
TEST(Bf16ConvertTest, EveryTopHalfWithEveryRoundingCaseMatchesTheScalarRounding) {
  constexpr std::uint32_t kLows[] = {0x0000u, 0x0001u, 0x4000u, 0x7fffu, 0x8000u, 0x8001u, 0xc000u, 0xffffu};
  constexpr long kN = 65536L * 8;
  std::vector<float> src(kN), want(kN);
  for (std::uint32_t hi = 0; hi < 65536u; ++hi) {
    for (int l = 0; l < 8; ++l) {
      const std::size_t i = std::size_t(hi) * 8 + std::size_t(l);
      src[i] = std::bit_cast<float>(hi << 16 | kLows[l]);
      want[i] = RoundToBf16(src[i]);
    }
  }
  auto check = [&](const char* what, const std::vector<float>& got) {
    for (long i = 0; i < kN; ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[std::size_t(i)]), std::bit_cast<std::uint32_t>(want[std::size_t(i)]))
          << what << ": input 0x" << std::hex << std::bit_cast<std::uint32_t>(src[std::size_t(i)]);
    }
  };
  // The bf16 bits (Bf16Bits8 / Bf16Bits16, the conversion and pair packers' rounding).
  for (Isa isa : {Isa::kAvx2Fma, Isa::kAvx512f}) {
    if (!CpuSupports(isa)) continue;
    std::vector<Bf16> bits(kN);
    if (isa == Isa::kAvx512f) {
      bf16_internal::ConvertToBf16_Avx512f(src.data(), bits.data(), kN);
    } else {
      bf16_internal::ConvertToBf16_Avx2(src.data(), bits.data(), kN);
    }
    for (long i = 0; i < kN; ++i) {
      ASSERT_EQ(bits[std::size_t(i)].bits, Bf16(src[std::size_t(i)]).bits)
          << (isa == Isa::kAvx512f ? "ConvertToBf16_Avx512f" : "ConvertToBf16_Avx2") << ": input 0x" << std::hex
          << std::bit_cast<std::uint32_t>(src[std::size_t(i)]);
    }
  }
  std::vector<std::int64_t> offsets(kN / 8);
  for (long r = 0; r < kN / 8; ++r) offsets[std::size_t(r)] = 8 * r;
  std::vector<float> got(kN);
  if (CpuSupports(Isa::kAvx2Fma)) {
    bf16_internal::RoundToBf16_Avx2(src.data(), got.data(), kN);
    check("RoundToBf16_Avx2", got);
    bf16_internal::RoundToBf16Runs8_Avx2(src.data(), kN / 8, got.data(), offsets.data());
    check("RoundToBf16Runs8_Avx2", got);
  }
  if (CpuSupports(Isa::kAvx512f)) {
    bf16_internal::RoundToBf16Runs8_Avx512f(src.data(), kN / 8, got.data(), offsets.data());
    check("RoundToBf16Runs8_Avx512f", got);
  }
  for (Isa isa : {Isa::kAvx2Fma, Isa::kAvx512f}) {
    if (!CpuSupports(isa)) continue;
    const gemm_internal::VectorPackers& vp =
        isa == Isa::kAvx512f ? gemm_internal::VectorPackers__avx512f() : gemm_internal::VectorPackers__avx2();
    // src as B, k x n row-major with n = one panel of nr columns: the panel is B itself.
    const int nr = 2 * vp.width;
    GemmProblem p;
    p.k = kN / nr;
    p.n = nr;
    p.b = src.data();
    p.rsb = nr;
    p.csb = 1;
    std::fill(got.begin(), got.end(), 0.0f);
    vp.pack_b_f32_rounded(p, 0, 0, nr, p.k, p.k, nr, got.data());
    check(isa == Isa::kAvx512f ? "pack_b_f32_rounded avx512f" : "pack_b_f32_rounded avx2", got);
    // src as `width` rows of kN / width, transposed back: out[t * w + j] = row j [t].
    const int w = vp.width;
    const long len = kN / w;
    std::vector<const float*> rows(static_cast<std::size_t>(w));
    for (int j = 0; j < w; ++j) rows[std::size_t(j)] = src.data() + j * len;
    vp.transpose_rows(rows.data(), w, len, w, w, true, got.data());
    std::vector<float> back(kN);
    for (long t = 0; t < len; ++t) {
      for (int j = 0; j < w; ++j) back[std::size_t(j * len + t)] = got[std::size_t(t * w + j)];
    }
    check(isa == Isa::kAvx512f ? "transpose_rows avx512f" : "transpose_rows avx2", back);
  }
}

// RoundToBf16Runs8 (dispatched, and each ISA variant the CPU has) puts run r
// of 8 rounded values at its own offset, in any order, and writes nothing
// between the runs: runs side by side (one 16-lane store on AVX-512), runs
// apart, and an odd last run.
TEST(Bf16ConvertTest, RunsOfEightLandAtTheirOffsetsRounded) {
  std::mt19937 rng(5);
  constexpr int kRuns = 7;
  std::vector<float> src(8 * kRuns);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::bit_cast<float>(std::uint32_t(rng()));
  src[3] = std::bit_cast<float>(0x3f808000u);   // a tie: rounds to even (down)
  src[12] = std::bit_cast<float>(0x7f800001u);  // a signalling NaN: quieted
  const std::int64_t offsets[kRuns] = {40, 48, 0, 72, 16, 24, 88};  // out of order; pairs side by side and apart
  struct Variant {
    const char* name;
    Isa isa;
    void (*fn)(const float*, long, float*, const std::int64_t*);
  };
  const Variant variants[] = {{"dispatched", Isa::kScalar, RoundToBf16Runs8},
                              {"avx2", Isa::kAvx2Fma, bf16_internal::RoundToBf16Runs8_Avx2},
                              {"avx512f", Isa::kAvx512f, bf16_internal::RoundToBf16Runs8_Avx512f}};
  for (const Variant& v : variants) {
    if (!CpuSupports(v.isa)) continue;
    std::vector<float> dst(104, -2.5f);
    v.fn(src.data(), kRuns, dst.data(), offsets);
    std::vector<bool> written(dst.size(), false);
    for (int r = 0; r < kRuns; ++r) {
      for (int k = 0; k < 8; ++k) {
        const std::size_t at = std::size_t(offsets[r] + k);
        written[at] = true;
        ASSERT_EQ(std::bit_cast<std::uint32_t>(dst[at]), std::bit_cast<std::uint32_t>(RoundToBf16(src[std::size_t(8 * r + k)])))
            << v.name << " run " << r << " lane " << k;
      }
    }
    for (std::size_t i = 0; i < dst.size(); ++i) {
      if (!written[i]) {
        ASSERT_EQ(dst[i], -2.5f) << v.name << " wrote between the runs at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace podbench::kernels
