#include "rules/mllog/value.h"

#include <cmath>

#include <gtest/gtest.h>

namespace podbench::mllog {
namespace {

Value Parse(std::string_view text) {
  Value v;
  std::string err;
  EXPECT_TRUE(ParseJson(text, &v, &err)) << text << ": " << err;
  return v;
}

std::string ParseError(std::string_view text) {
  Value v;
  std::string err;
  EXPECT_FALSE(ParseJson(text, &v, &err)) << text;
  return err;
}

TEST(ValueTest, IntsAndFloatsStayDistinct) {
  EXPECT_TRUE(Parse("1").is_int());
  EXPECT_TRUE(Parse("1.0").is_float());
  EXPECT_TRUE(Parse("1e3").is_float());
  EXPECT_TRUE(Parse("-0").is_int());
  EXPECT_EQ(Parse("-17").as_int(), -17);
  EXPECT_DOUBLE_EQ(Parse("2.5E-1").as_float(), 0.25);
  // Beyond int64: held as float.
  EXPECT_TRUE(Parse("123456789012345678901234").is_float());
}

TEST(ValueTest, PythonNonFiniteLiterals) {
  EXPECT_TRUE(std::isnan(Parse("NaN").as_float()));
  EXPECT_EQ(Parse("Infinity").as_float(), INFINITY);
  EXPECT_EQ(Parse("-Infinity").as_float(), -INFINITY);
  EXPECT_EQ(Parse("1e999").as_float(), INFINITY);
}

TEST(ValueTest, ObjectsKeepOrderAndLastDuplicateWins) {
  Value v = Parse(R"({"b": 1, "a": 2, "b": 3})");
  ASSERT_TRUE(v.is_dict());
  ASSERT_EQ(v.keys().size(), 2u);
  EXPECT_EQ(v.keys()[0], "b");
  EXPECT_EQ(v.Find("b")->as_int(), 3);
  EXPECT_EQ(v.Find("a")->as_int(), 2);
  EXPECT_EQ(v.Find("c"), nullptr);
}

TEST(ValueTest, StringEscapesAndLatin1) {
  EXPECT_EQ(Parse(R"("a\"b\\c\/\n\t")").as_string(), "a\"b\\c/\n\t");
  EXPECT_EQ(Parse(R"("\u00e9")").as_string(), "\xc3\xa9");
  EXPECT_EQ(Parse(R"("\ud83d\ude00")").as_string(), "\xf0\x9f\x98\x80");
  // A raw latin-1 byte is its code point.
  EXPECT_EQ(Parse("\"\xe9\"").as_string(), "\xc3\xa9");
}

TEST(ValueTest, RejectsWhatPythonRejects) {
  EXPECT_NE(ParseError("{'a': 1}").find("property name"), std::string::npos);
  EXPECT_NE(ParseError("[1, 2").find("unterminated"), std::string::npos);
  EXPECT_NE(ParseError("01").find("extra data"), std::string::npos);
  EXPECT_NE(ParseError("\"a\tb\"").find("control character"), std::string::npos);
  EXPECT_NE(ParseError("nan").find("expecting value"), std::string::npos);
  EXPECT_NE(ParseError("1 2").find("extra data"), std::string::npos);
  EXPECT_NE(ParseError("").find("expecting value"), std::string::npos);
  EXPECT_NE(ParseError("1.").find("extra data"), std::string::npos);
}

TEST(ValueTest, EqualityFollowsPython) {
  EXPECT_EQ(Parse("1"), Parse("1.0"));
  EXPECT_EQ(Parse("true"), Parse("1"));
  EXPECT_FALSE(Parse("NaN") == Parse("NaN"));
  EXPECT_FALSE(Parse("\"1\"") == Parse("1"));
  EXPECT_EQ(Parse(R"({"a": [1, {"b": null}]})"), Parse(R"({"a": [1.0, {"b": null}]})"));
  EXPECT_FALSE(Parse(R"({"a": 1})") == Parse(R"({"a": 1, "b": 2})"));
}

TEST(ValueTest, ToJsonWritesPythonStyle) {
  EXPECT_EQ(Parse(R"({"a":[1,2.5,null,true],"b":"x\u00e9"})").ToJson(),
            R"({"a": [1, 2.5, null, true], "b": "x\u00e9"})");
  EXPECT_EQ(Value::Float(100.0).ToJson(), "100.0");
  EXPECT_EQ(Value::Float(1e16).ToJson(), "1e+16");
  EXPECT_EQ(Value::Float(1.5e-5).ToJson(), "1.5e-05");
  EXPECT_EQ(Value::Float(0.0001).ToJson(), "0.0001");
  EXPECT_EQ(Value::Float(0.1).ToJson(), "0.1");
  EXPECT_EQ(Value::Float(-2.75).ToJson(), "-2.75");
  EXPECT_EQ(Value::Float(NAN).ToJson(), "NaN");
}

TEST(ValueTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  EXPECT_NE(ParseError(deep).find("too deep"), std::string::npos);
}

}  // namespace
}  // namespace podbench::mllog
