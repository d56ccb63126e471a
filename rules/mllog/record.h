// One MLPerf log line, as the official parsers see it.
#pragma once

#include <cstdint>
#include <string>

#include "rules/mllog/value.h"

namespace podbench::mllog {

enum class Format {
  kMll,    // v0.6: ":::MLL <seconds> <key>: <json>"
  kMllog,  // v0.7 and later: ":::MLLOG {json}"
};

const char* FormatName(Format f);  // "MLL" or "MLLOG"

struct Record {
  // Timestamp as the rule files see it (ll.timestamp): seconds for :::MLL,
  // time_ms (milliseconds) for :::MLLOG.
  double timestamp = 0;
  std::string key;
  // {"value": X, "metadata": {...}}: what rule files call `v`. For :::MLL it
  // is the parsed JSON payload as written; for :::MLLOG it is built from the
  // line's "value" and "metadata" fields.
  Value value;
  // The official line index (ll.lineno): the 0-based index of this line among
  // the lines of the file that contain the format's token.
  int64_t index = 0;
  // 1-based physical line number in the file, for diagnostics.
  int64_t file_line = 0;
  // :::MLLOG only: the namespace and event type ("POINT_IN_TIME", ...).
  std::string ns;
  std::string event_type;

  // The "value" member of `value` (null when absent).
  const Value& payload() const;
  // The "metadata" member of `value` (null when absent).
  const Value& metadata() const;
};

// A line that contains the format's token but could not be parsed.
struct LineError {
  int64_t file_line = 0;  // 1-based physical line
  int64_t index = 0;      // official line index, as for Record::index
  std::string text;       // the line from the token on (latin-1 decoded, UTF-8)
  std::string message;    // why it did not parse
};

}  // namespace podbench::mllog
