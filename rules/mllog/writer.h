// Writes MLPerf log lines in either format.
//
// JSON is built through a JSON library, so strings are escaped right. Each
// line carries metadata {"file": ..., "lineno": ...} (the caller's source
// position) merged with the event's own metadata. Timestamps must not go
// backwards: a timestamp earlier than the previous line's is raised to it.
// A ":::MLL" inside a string value is written with "M" escaped, so that it
// cannot be taken for the line's token.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "base/status.h"
#include "rules/mllog/record.h"

namespace podbench::mllog {

class LogWriter {
 public:
  // Writes to `out`, which must outlive the writer. `ns` is the :::MLLOG namespace.
  LogWriter(std::ostream& out, Format format, std::string ns = "");

  // Writes one event. `timestamp_s` is seconds on the emulated clock
  // (:::MLLOG writes it as integer time_ms). `metadata` must be a dict or null.
  // For :::MLLOG, `event_type` is POINT_IN_TIME, INTERVAL_START or INTERVAL_END.
  Status Write(double timestamp_s, std::string_view key, const Value& value,
               const Value& metadata = Value(), std::string_view event_type = "POINT_IN_TIME",
               std::string_view source_file = "podbench", int source_line = 0);

  // Writes a record read from a log back out (round-trip): the record's own
  // timestamp unit, value and metadata, unchanged.
  Status WriteRecord(const Record& r);

  Format format() const { return format_; }
  int64_t lines_written() const { return lines_; }

 private:
  Status Emit(const std::string& line);

  std::ostream& out_;
  Format format_;
  std::string ns_;
  double last_ts_ = 0;
  int64_t lines_ = 0;
};

}  // namespace podbench::mllog
