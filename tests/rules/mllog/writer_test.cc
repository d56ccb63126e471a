#include "rules/mllog/writer.h"

#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "rules/mllog/reader.h"

namespace podbench::mllog {
namespace {

std::vector<Record> ReadBack(const std::string& text, Format f) {
  auto r = LogReader::FromString(text, f);
  std::vector<Record> out;
  Record rec;
  while (r->Next(&rec)) out.push_back(rec);
  EXPECT_TRUE(r->errors().empty()) << r->errors().front().message;
  return out;
}

TEST(WriterTest, MllLineShapeAndMetadata) {
  std::ostringstream out;
  LogWriter w(out, Format::kMll);
  Value meta = Value::Dict();
  meta.Set("epoch_num", Value::Int(4));
  ASSERT_TRUE(w.Write(1558640478.906, "eval_accuracy", Value::Float(0.7591), meta, "POINT_IN_TIME",
                      "resnet.cc", 42).ok());
  EXPECT_EQ(out.str(),
            ":::MLL 1558640478.906 eval_accuracy: {\"value\":0.7591,\"metadata\":{\"file\":\"resnet.cc\","
            "\"lineno\":42,\"epoch_num\":4}}\n");
  auto recs = ReadBack(out.str(), Format::kMll);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_DOUBLE_EQ(recs[0].timestamp, 1558640478.906);
  EXPECT_EQ(recs[0].metadata().Find("epoch_num")->as_int(), 4);
}

TEST(WriterTest, MllogLineShape) {
  std::ostringstream out;
  LogWriter w(out, Format::kMllog, "podbench");
  ASSERT_TRUE(w.Write(12.3456, "run_start", Value(), Value(), "INTERVAL_START").ok());
  auto recs = ReadBack(out.str(), Format::kMllog);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].timestamp, 12346.0);  // time_ms, rounded
  EXPECT_EQ(recs[0].event_type, "INTERVAL_START");
  EXPECT_EQ(recs[0].ns, "podbench");
  EXPECT_EQ(recs[0].metadata().Find("file")->as_string(), "podbench");
}

TEST(WriterTest, StringsAreEscaped) {
  std::ostringstream out;
  LogWriter w(out, Format::kMll);
  std::string nasty = "quote\" backslash\\ newline\n tab\t e\xc3\xa9 :::MLL 1 fake: {}";
  ASSERT_TRUE(w.Write(1, "submission_entry", Value::String(nasty), Value(), "POINT_IN_TIME",
                      "dir with \"quotes\"/x.py", 1).ok());
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  // The reader takes the last token on a line: the writer must not emit one
  // from inside a value.
  EXPECT_EQ(text.find(":::MLL", 1), std::string::npos) << text;
  auto recs = ReadBack(out.str(), Format::kMll);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].payload().as_string(), nasty);
  EXPECT_EQ(recs[0].metadata().Find("file")->as_string(), "dir with \"quotes\"/x.py");
}

TEST(WriterTest, TimestampsNeverGoBackwards) {
  std::ostringstream out;
  LogWriter w(out, Format::kMll);
  ASSERT_TRUE(w.Write(10.0, "a", Value()).ok());
  ASSERT_TRUE(w.Write(9.5, "b", Value()).ok());
  auto recs = ReadBack(out.str(), Format::kMll);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[1].timestamp, 10.0);
}

TEST(WriterTest, NonFiniteValuesAreWrittenAsPythonDoes) {
  std::ostringstream out;
  LogWriter w(out, Format::kMll);
  Value list = Value::List({Value::Float(NAN), Value::Float(INFINITY), Value::Float(-INFINITY)});
  ASSERT_TRUE(w.Write(1, "eval_accuracy", list).ok());
  EXPECT_NE(out.str().find("[NaN,Infinity,-Infinity]"), std::string::npos) << out.str();
  auto recs = ReadBack(out.str(), Format::kMll);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_TRUE(std::isnan(recs[0].payload().items()[0].as_float()));
  EXPECT_EQ(recs[0].payload().items()[2].as_float(), -INFINITY);
}

TEST(WriterTest, RejectsBadInput) {
  std::ostringstream out;
  LogWriter w(out, Format::kMll);
  EXPECT_EQ(w.Write(-1, "a", Value()).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(w.Write(NAN, "a", Value()).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(w.Write(1, "bad key", Value()).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(w.Write(1, "a", Value(), Value::Int(3)).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(out.str(), "");
}

TEST(WriterTest, FailedStreamIsAnIOError) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  LogWriter w(out, Format::kMll);
  EXPECT_EQ(w.Write(1, "a", Value()).code(), Status::Code::kIOError);
}

}  // namespace
}  // namespace podbench::mllog
