#include "rules/mllog/reader.h"

#include <fstream>

#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"

namespace podbench::mllog {
namespace {

std::vector<Record> ReadAll(const std::string& text, Format f, std::vector<LineError>* errors) {
  auto r = LogReader::FromString(text, f, "t.log");
  std::vector<Record> out;
  Record rec;
  while (r->Next(&rec)) out.push_back(rec);
  EXPECT_TRUE(r->status().ok());
  *errors = r->errors();
  return out;
}

TEST(ReaderTest, MllLinesWithPrefixesAndOfficialIndex) {
  std::string log =
      "starting\n"
      ":::MLL 1558640478.906 run_start: {\"value\": null, \"metadata\": {\"lineno\": 1}}\n"
      "[1,0]<stdout>::::MLL 1558640479.5 epoch_start: {\"value\": null, \"metadata\": {\"epoch_num\": 1}}\n"
      "junk :::MLL 1.0 bad :::MLL 2.5 eval_accuracy : {\"value\": 0.75, \"metadata\": {}}\n";
  std::vector<LineError> errors;
  auto recs = ReadAll(log, Format::kMll, &errors);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(recs[0].key, "run_start");
  EXPECT_DOUBLE_EQ(recs[0].timestamp, 1558640478.906);
  EXPECT_EQ(recs[0].index, 0);
  EXPECT_EQ(recs[0].file_line, 2);
  EXPECT_TRUE(recs[0].payload().is_null());
  EXPECT_EQ(recs[1].key, "epoch_start");
  EXPECT_EQ(recs[1].metadata().Find("epoch_num")->as_int(), 1);
  // The last :::MLL on a line wins; "key :" (space before the colon) is allowed.
  EXPECT_EQ(recs[2].key, "eval_accuracy");
  EXPECT_DOUBLE_EQ(recs[2].payload().as_float(), 0.75);
  EXPECT_EQ(recs[2].index, 2);
  EXPECT_EQ(recs[2].file_line, 4);
}

TEST(ReaderTest, UnparsableLinesAreCollectedWithFileLine) {
  std::string log =
      ":::MLL 1.0 a: {\"value\": 1}\n"
      "\n"
      ":::MLL 1.2.3 b: {\"value\": 1}\n"
      ":::MLL 2.0 c: {'value': 1}\n"
      ":::MLL 3.0 d:\n"
      ":::MLL 4.0 e: {\"value\": 2}\n";
  std::vector<LineError> errors;
  auto recs = ReadAll(log, Format::kMll, &errors);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[1].key, "e");
  EXPECT_EQ(recs[1].index, 4);  // failed lines still take an index
  EXPECT_EQ(recs[1].file_line, 6);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].file_line, 3);
  EXPECT_NE(errors[0].message.find("timestamp"), std::string::npos);
  EXPECT_EQ(errors[1].file_line, 4);
  EXPECT_NE(errors[1].message.find("JSON"), std::string::npos);
  EXPECT_EQ(errors[1].text, ":::MLL 2.0 c: {'value': 1}");
  EXPECT_EQ(errors[2].file_line, 5);
}

TEST(ReaderTest, UniversalNewlines) {
  std::string log = ":::MLL 1 a: {\"value\": 1}\r\n:::MLL 2 b: {\"value\": 2}\r:::MLL 3 c: {\"value\": 3}";
  std::vector<LineError> errors;
  auto recs = ReadAll(log, Format::kMll, &errors);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[1].file_line, 2);
  EXPECT_EQ(recs[2].file_line, 3);
  EXPECT_EQ(recs[2].key, "c");
}

TEST(ReaderTest, MllogLines) {
  std::string log =
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1593990464283, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"cache_clear\", \"value\": true, \"metadata\": {\"file\": \"a.py\", \"lineno\": 3}}\n"
      "noise\n"
      "0: :::MLLOG {\"time_ms\": 5, \"key\": \"x\", \"value\": null}\n"
      ":::MLL 1.0 old: {\"value\": 1}\n";
  std::vector<LineError> errors;
  auto recs = ReadAll(log, Format::kMllog, &errors);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].key, "cache_clear");
  EXPECT_DOUBLE_EQ(recs[0].timestamp, 1593990464283.0);
  EXPECT_TRUE(recs[0].payload().as_bool());
  EXPECT_EQ(recs[0].metadata().Find("lineno")->as_int(), 3);
  EXPECT_EQ(recs[0].event_type, "POINT_IN_TIME");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file_line, 3);
  EXPECT_EQ(errors[0].index, 1);
  EXPECT_NE(errors[0].message.find("metadata"), std::string::npos);
}

TEST(ReaderTest, StreamsAcrossBlockBoundaries) {
  // Lines longer than, and straddling, the 1 MiB read block.
  std::string big(3 << 20, 'x');
  std::string log = "#" + big + "\r";
  for (int i = 0; i < 2000; ++i) {
    log += ":::MLL " + std::to_string(i) + " k: {\"value\": \"" + std::string(700, 'y') + "\"}\r\n";
  }
  podbench::testing::TempDir dir;
  {
    std::ofstream f(dir / "big.log", std::ios::binary);
    f << log;
  }
  std::vector<LineError> errors;
  auto recs = ReadLog(dir / "big.log", Format::kMll, &errors);
  ASSERT_TRUE(recs.ok());
  ASSERT_EQ(recs->size(), 2000u);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ((*recs)[1999].file_line, 2001);
  EXPECT_DOUBLE_EQ((*recs)[1999].timestamp, 1999.0);
}

TEST(ReaderTest, MissingFileIsAnIOErrorNamingIt) {
  auto r = LogReader::Open("/nonexistent/x.log", Format::kMll);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIOError);
  EXPECT_NE(r.status().message().find("/nonexistent/x.log"), std::string::npos);
}

TEST(ReaderTest, DetectFormat) {
  podbench::testing::TempDir dir;
  {
    std::ofstream(dir / "a.log") << "x\n:::MLL 1 a: {\"value\": 1}\n";
    std::ofstream(dir / "b.log") << "x\n:::MLLOG {}\n";
    std::ofstream(dir / "c.log") << "nothing here\n";
  }
  EXPECT_EQ(*DetectFormat(dir / "a.log"), Format::kMll);
  EXPECT_EQ(*DetectFormat(dir / "b.log"), Format::kMllog);
  EXPECT_EQ(DetectFormat(dir / "c.log").status().code(), Status::Code::kNotFound);
}

TEST(ReaderTest, RawRecordsViewTheTextsOfTheValues) {
  std::string log =
      "[1,0]<stdout>::::MLL 12.5 run_start :   {\"value\": null, \"metadata\": {\"a\": 1}}\n"
      ":::MLLOG {\"namespace\": \"w\", \"time_ms\": \" 7 \", \"event_type\": 3, \"k\\u0065y\": \"x\\ty\", "
      "\"value\": [1, {\"b\": 2}], \"metadata\": {}, \"value\": 5}\n";
  auto mll = LogReader::FromString(log, Format::kMll);
  RawRecord raw;
  ASSERT_TRUE(mll->NextRaw(&raw));
  EXPECT_EQ(raw.key, "run_start");
  EXPECT_DOUBLE_EQ(raw.timestamp, 12.5);
  EXPECT_EQ(raw.value_json, "{\"value\": null, \"metadata\": {\"a\": 1}}");
  EXPECT_EQ(raw.index, 0);
  EXPECT_EQ(raw.file_line, 1);
  EXPECT_FALSE(mll->NextRaw(&raw));  // the :::MLLOG line has no ":::MLL " token

  auto mllog = LogReader::FromString(log, Format::kMllog);
  ASSERT_TRUE(mllog->NextRaw(&raw));
  EXPECT_EQ(raw.key, "x\ty");  // escapes decoded
  EXPECT_DOUBLE_EQ(raw.timestamp, 7.0);  // a numeric string, as float() reads it
  EXPECT_EQ(raw.value_json, "5");        // a repeated member keeps its last value
  EXPECT_EQ(raw.metadata_json, "{}");
  EXPECT_EQ(raw.ns, "w");
  EXPECT_EQ(raw.event_type, "");  // not a string
  EXPECT_EQ(raw.index, 0);
  EXPECT_EQ(raw.file_line, 2);
  Record rec;
  ToRecord(raw, Format::kMllog, &rec);
  EXPECT_EQ(rec.value.ToJson(), "{\"value\": 5, \"metadata\": {}}");
}

TEST(ReaderTest, LastTokenIsFoundAtEveryOffset) {
  // The token search works 16 bytes at a time: put the token at every offset
  // around those boundaries, after prefixes full of colons and decoys.
  for (size_t pad = 0; pad < 40; ++pad) {
    for (const char* filler : {"x", ":", "::", ":::ML"}) {
      std::string prefix;
      while (prefix.size() < pad) prefix += filler;
      std::string log = prefix + ":::MLL 1.0 decoy: {\"value\": 0}" + prefix + ":::MLL 2.0 key_" +
                        std::to_string(pad) + ": {\"value\": 1}\n" + prefix + "\n";
      std::vector<LineError> errors;
      auto recs = ReadAll(log, Format::kMll, &errors);
      ASSERT_EQ(recs.size(), 1u) << log;
      EXPECT_EQ(recs[0].key, "key_" + std::to_string(pad)) << log;
      EXPECT_TRUE(errors.empty()) << log;
    }
  }
}

TEST(ReaderTest, MllogJsonErrorsAreTheParsersErrors) {
  // The reader walks a :::MLLOG object member by member; its messages for
  // invalid JSON are exactly mllog::ParseJson's on the whole object.
  const std::vector<std::string> bad = {
      R"({"time_ms": 1, "key": "k", "value": 1, "metadata": {},})",
      R"({"time_ms": 1 "key": "k"})",
      R"({"time_ms": 1, "key": "k", "value": [1, 2, "metadata": {}})",
      R"({"time_ms": 1, "key": "k", "value": 1, "metadata": {}} extra)",
      R"({"time_ms": 1, 'key': "k"})",
      R"({"time_ms": 1, "key": "k\x", "value": 1, "metadata": {}})",
      R"({"time_ms": 1, "key")",
      R"({"time_ms": 1, "key": "k", "value": 1, "metadata": {})",
      R"([1, 2)",
  };
  for (const auto& json : bad) {
    Value v;
    std::string want;
    ASSERT_FALSE(ParseJson(json, &v, &want)) << json;
    std::vector<LineError> errors;
    auto recs = ReadAll(":::MLLOG " + json + "\n", Format::kMllog, &errors);
    EXPECT_TRUE(recs.empty());
    ASSERT_EQ(errors.size(), 1u) << json;
    EXPECT_EQ(errors[0].message, "invalid JSON: " + want) << json;
  }
  // Valid JSON that is not a usable :::MLLOG object.
  std::vector<LineError> errors;
  ReadAll(":::MLLOG [1]\n:::MLLOG {\"time_ms\": 1, \"key\": 2, \"value\": 1, \"metadata\": {}}\n"
          ":::MLLOG {\"time_ms\": \"x\", \"key\": \"k\", \"value\": 1, \"metadata\": {}}\n:::MLLOG {}\n",
          Format::kMllog, &errors);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].message, "the :::MLLOG payload is not a JSON object");
  EXPECT_EQ(errors[1].message, "key is not a string");
  EXPECT_EQ(errors[2].message, "could not convert time_ms to float");
  EXPECT_EQ(errors[3].message, "missing one of time_ms, key, value, metadata");
}

}  // namespace
}  // namespace podbench::mllog
