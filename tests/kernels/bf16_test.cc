#include "kernels/bf16.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

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
