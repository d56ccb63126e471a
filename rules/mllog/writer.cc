#include "rules/mllog/writer.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace podbench::mllog {

namespace {

using Json = nlohmann::ordered_json;

// JSON has no NaN or Infinity, Python's json module writes them bare. The
// library writes such floats as these marker strings, replaced afterwards.
constexpr const char* kNanMark = "\x01podbench-NaN\x01";
constexpr const char* kInfMark = "\x01podbench-Infinity\x01";
constexpr const char* kNegInfMark = "\x01podbench-neg-Infinity\x01";

Json ToJson(const Value& v, bool* non_finite) {
  switch (v.type()) {
    case Value::Type::kNull: return nullptr;
    case Value::Type::kBool: return v.as_bool();
    case Value::Type::kInt: return v.as_int();
    case Value::Type::kFloat: {
      double d = v.as_float();
      if (std::isfinite(d)) return d;
      *non_finite = true;
      return std::isnan(d) ? kNanMark : (d > 0 ? kInfMark : kNegInfMark);
    }
    case Value::Type::kString: return v.as_string();
    case Value::Type::kList: {
      Json a = Json::array();
      for (const Value& item : v.items()) a.push_back(ToJson(item, non_finite));
      return a;
    }
    case Value::Type::kDict: {
      Json o = Json::object();
      for (size_t i = 0; i < v.keys().size(); ++i) o[v.keys()[i]] = ToJson(v.items()[i], non_finite);
      return o;
    }
  }
  return nullptr;
}

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t p = s->find(from); p != std::string::npos; p = s->find(from, p + to.size())) {
    s->replace(p, from.size(), to);
  }
}

std::string Dump(const Json& j, bool non_finite) {
  std::string out = j.dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
  if (non_finite) {
    // The marks are dumped as quoted strings with \u0001 escapes.
    auto quoted = [](const char* mark) { return Json(mark).dump(-1, ' ', true); };
    ReplaceAll(&out, quoted(kNanMark), "NaN");
    ReplaceAll(&out, quoted(kInfMark), "Infinity");
    ReplaceAll(&out, quoted(kNegInfMark), "-Infinity");
  }
  // Readers take the LAST token on a line: a token inside a string value
  // would hijack the line. Within JSON strings "M" may be written \u004d.
  ReplaceAll(&out, ":::MLL", ":::\\u004dLL");
  return out;
}

// Shortest decimal that reads back as `t`, without an exponent (the :::MLL
// timestamp pattern is \d[\d.]*).
std::string FixedSeconds(double t) {
  char buf[512];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, t, std::chars_format::fixed);
  (void)ec;
  return std::string(buf, end);
}

}  // namespace

LogWriter::LogWriter(std::ostream& out, Format format, std::string ns)
    : out_(out), format_(format), ns_(std::move(ns)) {}

Status LogWriter::Emit(const std::string& line) {
  out_ << line << '\n';
  out_.flush();
  if (!out_) return Status::IOError("writing the MLPerf log failed at line " + std::to_string(lines_ + 1));
  ++lines_;
  return Status::Ok();
}

Status LogWriter::Write(double timestamp_s, std::string_view key, const Value& value,
                        const Value& metadata, std::string_view event_type,
                        std::string_view source_file, int source_line) {
  if (!std::isfinite(timestamp_s) || timestamp_s < 0) {
    return Status::InvalidArgument("log timestamp must be finite and >= 0, got " +
                                   std::to_string(timestamp_s));
  }
  if (!metadata.is_null() && !metadata.is_dict()) {
    return Status::InvalidArgument("metadata of '" + std::string(key) + "' must be a dict");
  }
  if (key.empty()) return Status::InvalidArgument("log key must not be empty");
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return Status::InvalidArgument("log key '" + std::string(key) +
                                     "' may only hold letters, digits and '_'");
    }
  }
  if (timestamp_s < last_ts_) timestamp_s = last_ts_;
  last_ts_ = timestamp_s;

  bool non_finite = false;
  Json meta = Json::object();
  meta["file"] = std::string(source_file);
  meta["lineno"] = source_line;
  if (metadata.is_dict()) {
    for (size_t i = 0; i < metadata.keys().size(); ++i) {
      meta[metadata.keys()[i]] = ToJson(metadata.items()[i], &non_finite);
    }
  }
  Json v = ToJson(value, &non_finite);
  if (format_ == Format::kMll) {
    Json payload = Json::object();
    payload["value"] = std::move(v);
    payload["metadata"] = std::move(meta);
    return Emit(":::MLL " + FixedSeconds(timestamp_s) + " " + std::string(key) + ": " +
                Dump(payload, non_finite));
  }
  Json line = Json::object();
  line["namespace"] = ns_;
  line["time_ms"] = static_cast<int64_t>(std::llround(timestamp_s * 1000.0));
  line["event_type"] = std::string(event_type);
  line["key"] = std::string(key);
  line["value"] = std::move(v);
  line["metadata"] = std::move(meta);
  return Emit(":::MLLOG " + Dump(line, non_finite));
}

Status LogWriter::WriteRecord(const Record& r) {
  bool non_finite = false;
  if (format_ == Format::kMll) {
    if (!std::isfinite(r.timestamp) || r.timestamp < 0) {
      return Status::InvalidArgument("record timestamp cannot be written as :::MLL");
    }
    return Emit(":::MLL " + FixedSeconds(r.timestamp) + " " + r.key + ": " +
                Dump(ToJson(r.value, &non_finite), non_finite));
  }
  Json line = Json::object();
  line["namespace"] = r.ns;
  double ms = r.timestamp;
  if (ms == std::floor(ms) && std::fabs(ms) < 9e15) {
    line["time_ms"] = static_cast<int64_t>(ms);
  } else {
    line["time_ms"] = ToJson(Value::Float(ms), &non_finite);
  }
  line["event_type"] = r.event_type;
  line["key"] = r.key;
  line["value"] = ToJson(r.payload(), &non_finite);
  line["metadata"] = ToJson(r.metadata(), &non_finite);
  return Emit(":::MLLOG " + Dump(line, non_finite));
}

}  // namespace podbench::mllog
