// base/unicode.h against what Python 3.11's str methods and unicodedata
// (Unicode 14.0.0) give for the same code points.
#include "base/unicode.h"

#include <gtest/gtest.h>

namespace podbench::unicode {
namespace {

std::string LowerUtf8(std::string_view s) {
  auto r = DecodeUtf8(s, "test");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? EncodeUtf8(Lower(*r)) : std::string();
}

TEST(UnicodeTest, VersionIsTheGeneratorsPython) { EXPECT_EQ(UnicodeVersion(), "14.0.0"); }

TEST(UnicodeTest, DecodeEncodeRoundTrip) {
  const std::string s = "a\u00e4\u20ac\U0001F600";
  auto r = DecodeUtf8(s, "line");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::u32string{U'a', U'\u00e4', U'\u20ac', U'\U0001F600'}));
  EXPECT_EQ(EncodeUtf8(*r), s);
}

TEST(UnicodeTest, DecodeRefusesInvalidUtf8NamingIt) {
  for (std::string_view bad : {std::string_view("a\x80"), std::string_view("\xc0\xaf"), std::string_view("\xed\xa0\x80"),
                               std::string_view("\xf4\x90\x80\x80"), std::string_view("ab\xe2\x82")}) {
    auto r = DecodeUtf8(bad, "hypothesis 7");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("hypothesis 7"), std::string::npos) << r.status().message();
  }
  EXPECT_EQ(DecodeAt("\xe2\x82\xac", 0).bytes, 3u);
  EXPECT_EQ(DecodeAt("\xe2\x82\xac", 0).c, U'\u20ac');
  EXPECT_EQ(DecodeAt("\xe2\x82\xac", 1).bytes, 0u);
}

TEST(UnicodeTest, MajorCategories) {
  // N*: Nd, Nl, No in several scripts.
  for (char32_t c : {U'0', U'\u0661', U'\uff11', U'\u2167', U'\u00b2', U'\u00bd'}) EXPECT_TRUE(IsNumber(c)) << int(c);
  // P*: Pc Pd Ps Pe Pi Pf Po.
  for (char32_t c : {U'_', U'-', U'(', U')', U'\u00ab', U'\u00bb', U'.', U'\u201e', U'\u3002', U'\u060c', U'\u00a7',
                     U'\u2030', U'\u066b'}) {
    EXPECT_TRUE(IsPunctuation(c)) << int(c);
  }
  // S*: Sm Sc Sk So.
  for (char32_t c : {U'+', U'$', U'\u20ac', U'^', U'`', U'\u00a9', U'\u00b0', U'\U0001F600'}) EXPECT_TRUE(IsSymbol(c)) << int(c);
  // Letters, marks, spaces, unassigned: none of the three.
  for (char32_t c : {U'a', U'\u00b5', U'\u4e2d', U'\u0301', U' ', U'\u00ad', U'\U0010FFFF', U'\u0378'}) {
    EXPECT_FALSE(IsNumber(c) || IsPunctuation(c) || IsSymbol(c)) << int(c);
  }
}

TEST(UnicodeTest, SpaceIsPythonsIsspace) {
  for (char32_t c : {U' ', U'\t', U'\n', U'\x0b', U'\x0c', U'\r', U'\x1c', U'\x1f', U'\u0085', U'\u00a0', U'\u1680',
                     U'\u2000', U'\u200a', U'\u2028', U'\u2029', U'\u202f', U'\u205f', U'\u3000'}) {
    EXPECT_TRUE(IsSpace(c)) << int(c);
  }
  for (char32_t c : {U'a', U'\u200b', U'\u180e', U'\ufeff', U'\u00ad'}) EXPECT_FALSE(IsSpace(c)) << int(c);
  EXPECT_EQ(CollapseSpaces(U"  a \u3000 b\t"), U"a b");
  EXPECT_EQ(CollapseSpaces(U" \u00a0 "), U"");
}

TEST(UnicodeTest, LowerIsPythonsStrLower) {
  EXPECT_EQ(LowerUtf8("ÄÖÜ ABC Straße STRAẞE"), "äöü abc straße straße");
  EXPECT_EQ(LowerUtf8("STRASSE"), "strasse");  // lower, not casefold
  EXPECT_EQ(LowerUtf8("\u0130stanbul"), "i\u0307stanbul");  // the one two-code-point mapping
  EXPECT_EQ(LowerUtf8("IJ"), "ij");
  EXPECT_EQ(LowerUtf8("Ǆ ǅ"), "ǆ ǆ");  // title case too
  EXPECT_EQ(LowerUtf8("ПРИВЕТ ÅNGSTRÖM"), "привет ångström");
  EXPECT_EQ(LowerUtf8("\u2126 \u212a \u2160 \u24b6 \U00010400"), "\u03c9 k \u2170 \u24d0 \U00010428");
  EXPECT_EQ(LowerUtf8("\u0100\u0101\u0102"), "\u0101\u0101\u0103");  // alternating upper/lower
}

TEST(UnicodeTest, FinalSigma) {
  EXPECT_EQ(LowerUtf8("ΟΔΥΣΣΕΥΣ"), "οδυσσευς");
  EXPECT_EQ(LowerUtf8("Σ"), "σ");          // no cased letter before
  EXPECT_EQ(LowerUtf8("ΑΣ."), "ας.");      // punctuation after is not cased
  EXPECT_EQ(LowerUtf8("ΑΣ'Α"), "ασ'α");    // apostrophe is case-ignorable: a letter follows
  EXPECT_EQ(LowerUtf8("Α'Σ"), "α'ς");      // and skipped before, too
  EXPECT_EQ(LowerUtf8("1Σ"), "1σ");
  EXPECT_EQ(LowerUtf8("ΑΣ\u0301 Β"), "ας\u0301 β");  // a combining mark is case-ignorable
}

}  // namespace
}  // namespace podbench::unicode
