#include "base/text.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace podbench {
namespace {

TEST(TextTest, PluralTakesTheNumbersNoun) {
  EXPECT_EQ(Plural(0, "run"), "0 runs");
  EXPECT_EQ(Plural(1, "run"), "1 run");
  EXPECT_EQ(Plural(2, "run"), "2 runs");
  EXPECT_EQ(Plural(-1, "slice"), "-1 slices");
  EXPECT_EQ(Plural(1, "entry", "entries"), "1 entry");
  EXPECT_EQ(Plural(3, "entry", "entries"), "3 entries");
  EXPECT_EQ(PluralNoun(1, "log"), "log");
  EXPECT_EQ(PluralNoun(5, "log"), "logs");
}

TEST(TextTest, JoinNamesSeparatesWithACommaAndASpace) {
  EXPECT_EQ(JoinNames({}), "");
  EXPECT_EQ(JoinNames({"google-v0.6"}), "google-v0.6");
  EXPECT_EQ(JoinNames({"google-v0.6", "functional", ""}), "google-v0.6, functional, ");
}

TEST(TextTest, NaturalOrderReadsDigitRunsAsNumbers) {
  std::vector<std::string> slices{"tpu-v3-1024", "tpu-v3-128", "tpu-v3-8", "tpu-v3-2048", "tpu-v3-32", "tpu-v3-16"};
  std::sort(slices.begin(), slices.end(), [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
  EXPECT_EQ(slices, (std::vector<std::string>{"tpu-v3-8", "tpu-v3-16", "tpu-v3-32", "tpu-v3-128", "tpu-v3-1024",
                                              "tpu-v3-2048"}));
}

TEST(TextTest, NaturalOrderIsAStrictOrder) {
  EXPECT_FALSE(NaturalLess("a", "a"));
  EXPECT_TRUE(NaturalLess("a", "b"));
  EXPECT_TRUE(NaturalLess("a", "a1"));
  EXPECT_FALSE(NaturalLess("a1", "a"));
  EXPECT_TRUE(NaturalLess("x9", "x10"));
  EXPECT_TRUE(NaturalLess("x2y", "x10a"));
  EXPECT_TRUE(NaturalLess("tpu-v2-512", "tpu-v3-8"));
  // Equal values, different spelling: ordered, never equal.
  EXPECT_NE(NaturalLess("v08", "v8"), NaturalLess("v8", "v08"));
  EXPECT_TRUE(NaturalLess("-", "tpu-v3-8"));
}

}  // namespace
}  // namespace podbench
