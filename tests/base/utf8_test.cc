#include "base/utf8.h"

#include <gtest/gtest.h>

namespace podbench {
namespace {

TEST(Utf8Test, ByteOrderMarkIsSeenOnlyAtTheStart) {
  EXPECT_TRUE(StartsWithUtf8Bom("\xEF\xBB\xBF{}"));
  EXPECT_FALSE(StartsWithUtf8Bom("{}\xEF\xBB\xBF"));
  EXPECT_FALSE(StartsWithUtf8Bom("\xEF\xBB"));
  EXPECT_FALSE(StartsWithUtf8Bom(""));
}

TEST(Utf8Test, ValidTextHasNoInvalidByte) {
  EXPECT_EQ(InvalidUtf8At(""), std::nullopt);
  EXPECT_EQ(InvalidUtf8At("tpu-v3-8 base"), std::nullopt);
  EXPECT_EQ(InvalidUtf8At("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"), std::nullopt);
}

TEST(Utf8Test, FindsTheFirstInvalidByte) {
  EXPECT_EQ(InvalidUtf8At("\xff"), 0u);
  EXPECT_EQ(InvalidUtf8At("ab\xc3"), 2u);              // truncated sequence
  EXPECT_EQ(InvalidUtf8At("a\xc0\xaf"), 1u);           // overlong '/'
  EXPECT_EQ(InvalidUtf8At("x\xed\xa0\x80"), 1u);       // a surrogate
  EXPECT_EQ(InvalidUtf8At("\xf4\x90\x80\x80"), 0u);    // above U+10FFFF
  EXPECT_EQ(InvalidUtf8At("ok\x80"), 2u);              // lone continuation byte
}

TEST(Utf8Test, QuotesUnprintableBytesAsHex) {
  EXPECT_EQ(QuoteForMessage("base"), "'base'");
  EXPECT_EQ(QuoteForMessage("\xff"), "'\\xff'");
  EXPECT_EQ(QuoteForMessage("a\tb\xc3\xbc"), "'a\\x09b\xc3\xbc'");
}

}  // namespace
}  // namespace podbench
