// Streaming reader of MLPerf log files, with the official parsers' semantics.
//
// The file is decoded as latin-1. A line takes part when it contains the
// format's token (":::MLL" or ":::MLLOG"); everything before the LAST token on
// the line is dropped (prefixes such as "[1,0]<stdout>:"). Such lines are
// numbered 0,1,2,... (Record::index) as the official checker numbers them.
// A taking-part line that does not parse is collected as a LineError; reading
// goes on. Other lines are skipped and counted. The file is read in blocks, so
// logs of hundreds of MB stream in constant memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rules/mllog/record.h"

namespace podbench::mllog {

// A record as the reader found it, before its value is built (see ToRecord):
// the line's fields and the JSON texts of its value. The views point into the
// reader's buffers and stay valid until the next NextRaw/Next call. The JSON
// texts have been validated: parsing them cannot fail.
struct RawRecord {
  double timestamp = 0;  // as Record::timestamp
  std::string_view key;
  // kMll: the JSON payload as written (may have leading white space).
  // kMllog: the text of the line's "value" member.
  std::string_view value_json;
  // kMllog only: the text of the line's "metadata" member.
  std::string_view metadata_json;
  // kMllog only: "namespace" and "event_type" when they are strings, else "".
  std::string_view ns;
  std::string_view event_type;
  int64_t index = 0;      // as Record::index
  int64_t file_line = 0;  // as Record::file_line
};

// Builds the Record of a raw record read in `format`.
void ToRecord(const RawRecord& raw, Format format, Record* out);

class LogReader {
 public:
  // Opens `path` for reading records of `format`.
  static Result<std::unique_ptr<LogReader>> Open(const std::filesystem::path& path, Format format);
  // Reads records of `format` from an in-memory log; `name` is used in messages.
  static std::unique_ptr<LogReader> FromString(std::string text, Format format,
                                               std::string name = "<string>");
  ~LogReader();

  // Reads the next record into *out. Returns false at end of file or on an
  // I/O error (see status()). Unparsable lines go to errors(), not here.
  bool Next(Record* out);
  // As Next, without building the value: for callers that build their own
  // representation of it (the checker) or need only some fields.
  bool NextRaw(RawRecord* out);

  // OK, or what stopped reading: an I/O error, or a line of more than 64 MiB
  // (a device or a file with no line ends, not a log).
  Status status() const { return status_; }
  const std::vector<LineError>& errors() const { return errors_; }
  const std::string& name() const { return name_; }
  int64_t lines_read() const { return physical_line_; }
  int64_t token_lines() const { return next_index_; }
  int64_t bytes_read() const { return bytes_read_; }

 private:
  LogReader(std::string name, Format format);
  // The next line, without its line end; valid until the next call. *colons
  // is false only when the line surely holds no ":::" (so no token).
  bool NextLine(std::string_view* line, bool* colons);
  bool FillBuffer();
  // Index of the next '\n' or '\r' at or after block_pos_, kNone when the
  // block has none. *colons: whether ":::" may start in between (true when
  // unsure).
  size_t NextLineEnd(bool* colons) const;

  static constexpr size_t kNone = static_cast<size_t>(-1);

  std::string name_;
  Format format_;
  std::unique_ptr<std::istream> in_;
  std::unique_ptr<char[]> block_;
  size_t block_len_ = 0;
  size_t block_pos_ = 0;
  bool eof_ = false;
  std::string carry_;  // a line that spans blocks
  bool skip_lf_ = false;  // the last line ended with '\r': a '\n' next belongs to it
  Status status_;
  std::vector<LineError> errors_;
  int64_t physical_line_ = 0;
  int64_t next_index_ = 0;
  int64_t bytes_read_ = 0;
  // Decoded strings of the current :::MLLOG record (RawRecord views them).
  std::string key_buf_, ns_buf_, event_type_buf_;
};

// Reads a whole file. Parse errors land in *errors (if given); I/O errors in
// the returned status.
Result<std::vector<Record>> ReadLog(const std::filesystem::path& path, Format format,
                                    std::vector<LineError>* errors = nullptr);

// Which format a file uses: the first token found within the first `probe_bytes`
// bytes decides; kMll when the file has ":::MLL " lines, kMllog when it has
// ":::MLLOG". NotFound when it has neither.
Result<Format> DetectFormat(const std::filesystem::path& path, size_t probe_bytes = 1 << 20);

// Parses one line in `format` (token and prefix handling as in the reader).
// `index` and `file_line` are copied into the record.
bool ParseLine(std::string_view line, Format format, int64_t index, int64_t file_line,
               Record* out, std::string* error);

}  // namespace podbench::mllog
