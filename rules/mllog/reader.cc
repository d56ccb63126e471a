#include "rules/mllog/reader.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>
#include <sstream>

#include "rules/mllog/json.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace podbench::mllog {

namespace {

constexpr size_t kBlockSize = 1 << 20;
// A physical line longer than this is not a log line (the longest in the real
// logs of ../shared/fixtures is 150 KB, a v0.6 NVIDIA Mask R-CNN log's):
// reading stops with an error instead of holding the line in memory, so a
// device or a file without line ends cannot take all memory.
constexpr size_t kMaxLineBytes = size_t{64} << 20;
constexpr std::string_view kMllToken = ":::MLL";
constexpr std::string_view kMllogToken = ":::MLLOG ";

std::string_view TokenOf(Format f) { return f == Format::kMll ? kMllToken : kMllogToken; }

// Where the last `token` starts in `s`, or npos. REQUIRES: the token starts
// with ":::". Candidates (three colons) are found 16 bytes at a time, so a
// line without the token costs one pass over its bytes.
size_t RFindToken(std::string_view s, std::string_view token) {
  const size_t n = token.size();
  if (s.size() < n) return std::string_view::npos;
  const size_t limit = s.size() - n + 1;  // candidate starts lie in [0, limit)
  const char* d = s.data();
  size_t last = std::string_view::npos;
  size_t p = 0;
#if defined(__SSE2__)
  const __m128i colon = _mm_set1_epi8(':');
  while (p + 18 <= s.size()) {  // the loads cover bytes [p, p + 18)
    __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i_u*>(d + p));
    __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i_u*>(d + p + 1));
    __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i_u*>(d + p + 2));
    __m128i three = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(x0, colon), _mm_cmpeq_epi8(x1, colon)),
                                  _mm_cmpeq_epi8(x2, colon));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(three));
    while (mask != 0) {
      size_t i = p + static_cast<size_t>(__builtin_ctz(mask));
      if (i < limit && std::memcmp(d + i, token.data(), n) == 0) last = i;
      mask &= mask - 1;
    }
    p += 16;
  }
#endif
  for (; p < limit; ++p) {
    if (d[p] == ':' && std::memcmp(d + p, token.data(), n) == 0) last = p;
  }
  return last;
}

// Python's str.strip() on a latin-1 decoded string: Unicode white space in
// the 0-255 range.
bool IsPyStripSpace(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F) || c == 0x85 ||
         c == 0xA0;
}
// Python's \s in a str pattern, restricted to code points 0-255 (the same set).
bool IsPyRegexSpace(unsigned char c) { return IsPyStripSpace(c); }

std::string_view PyStrip(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsPyStripSpace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && IsPyStripSpace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Latin1ToUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

// Python float() of a str that matched [\d.]+ after a digit: one optional dot.
bool PyFloatFromDigits(std::string_view s, double* out) {
  if (std::count(s.begin(), s.end(), '.') > 1) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Buffers for the decoded strings of a :::MLLOG line.
struct MllogStrings {
  std::string* key;
  std::string* ns;
  std::string* event_type;
};

// ^:::MLL (\d[\d.]*) ([A-Za-z0-9_]+) ?:\s+(.+)$ on a stripped line.
bool ParseMll(std::string_view line, RawRecord* out, std::string* error) {
  auto fail = [&](const char* msg) {
    *error = msg;
    return false;
  };
  if (line.substr(0, 7) != ":::MLL ") return fail("does not match the :::MLL line pattern");
  size_t p = 7;
  size_t ts_begin = p;
  if (p >= line.size() || !(line[p] >= '0' && line[p] <= '9')) {
    return fail("does not match the :::MLL line pattern (timestamp)");
  }
  while (p < line.size() && ((line[p] >= '0' && line[p] <= '9') || line[p] == '.')) ++p;
  std::string_view ts = line.substr(ts_begin, p - ts_begin);
  if (p >= line.size() || line[p] != ' ') return fail("does not match the :::MLL line pattern");
  ++p;
  size_t key_begin = p;
  auto is_key_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  while (p < line.size() && is_key_char(line[p])) ++p;
  if (p == key_begin) return fail("does not match the :::MLL line pattern (key)");
  std::string_view key = line.substr(key_begin, p - key_begin);
  if (p < line.size() && line[p] == ' ') ++p;
  if (p >= line.size() || line[p] != ':') return fail("does not match the :::MLL line pattern (':')");
  ++p;
  size_t ws = p;
  while (p < line.size() && IsPyRegexSpace(static_cast<unsigned char>(line[p]))) ++p;
  if (p == ws) return fail("does not match the :::MLL line pattern (space after ':')");
  // (.+)$: the regex backtracks so that at least one character is left; white
  // space after ':' then belongs to the value, which json.loads skips anyway.
  if (p >= line.size()) {
    if (p - ws < 2) return fail("does not match the :::MLL line pattern (no value)");
    p = line.size() - 1;
  }
  std::string_view json = line.substr(p);
  double t = 0;
  if (!PyFloatFromDigits(ts, &t)) return fail("could not convert timestamp to float");
  std::string jerr;
  if (!ValidateJson(json, &jerr)) {
    *error = "invalid JSON value: " + jerr;
    return false;
  }
  out->timestamp = t;
  out->key = key;
  out->value_json = json;
  out->metadata_json = {};
  out->ns = {};
  out->event_type = {};
  return true;
}

// The member of a :::MLLOG object that a name denotes.
enum Member { kTimeMs, kKey, kValue, kMetadata, kNamespace, kEventType, kOther, kMembers };

Member MemberOf(std::string_view name) {
  if (name == "time_ms") return kTimeMs;
  if (name == "key") return kKey;
  if (name == "value") return kValue;
  if (name == "metadata") return kMetadata;
  if (name == "namespace") return kNamespace;
  if (name == "event_type") return kEventType;
  return kOther;
}

// A validated JSON text as a Value.
Value ParseValid(std::string_view json) {
  Value v;
  std::string error;
  bool ok = ParseJson(json, &v, &error);
  assert(ok && "the reader validated this JSON text");
  (void)ok;
  return v;
}

// ":::MLLOG " + JSON object with time_ms, key, value, metadata. The object is
// walked member by member (as json.loads would parse it: a repeated member
// keeps its last value), recording the text of each member's value.
bool ParseMllog(std::string_view line, RawRecord* out, const MllogStrings& strings, std::string* error) {
  if (line.substr(0, kMllogToken.size()) != kMllogToken) {
    *error = "does not start with ':::MLLOG '";
    return false;
  }
  std::string_view json = line.substr(kMllogToken.size());
  JsonValidator validator;
  JsonParser<JsonValidator> p(json, &validator);
  JsonValidator::Value ignored;
  auto invalid = [&](std::string_view what, size_t column) {
    *error = "invalid JSON: " + std::string(what) + " at column " + std::to_string(column);
    return false;
  };
  std::string_view members[kMembers];
  bool seen[kMembers] = {};
  p.SkipWs();
  if (p.at_end() || p.peek() != '{') {
    std::string jerr;
    if (!ValidateJson(json, &jerr)) {
      *error = "invalid JSON: " + jerr;
      return false;
    }
    // The official parser raises (and crashes) on a non-object or a missing
    // field; podbench reports those lines as unparsable instead.
    *error = "the :::MLLOG payload is not a JSON object";
    return false;
  }
  p.advance();
  p.SkipWs();
  if (!p.at_end() && p.peek() == '}') {
    p.advance();
  } else {
    while (true) {
      p.SkipWs();
      if (p.at_end() || p.peek() != '"') {
        return invalid("expecting property name enclosed in double quotes", p.pos());
      }
      std::string_view name;
      if (!p.ParseString(&name)) return invalid(p.error(), p.pos());
      Member m = MemberOf(name);
      p.SkipWs();
      if (p.at_end() || p.peek() != ':') return invalid("expecting ':' delimiter", p.pos());
      p.advance();
      p.SkipWs();
      size_t begin = p.pos();
      if (!p.ParseValue(&ignored, 1)) return invalid(p.error(), p.pos());
      members[m] = json.substr(begin, p.pos() - begin);
      seen[m] = true;
      p.SkipWs();
      if (p.at_end()) return invalid("unterminated object", p.pos());
      if (p.peek() == ',') {
        p.advance();
        continue;
      }
      if (p.peek() == '}') {
        p.advance();
        break;
      }
      return invalid("expecting ',' delimiter", p.pos());
    }
  }
  p.SkipWs();
  if (!p.at_end()) {
    *error = "invalid JSON: extra data at column " + std::to_string(p.pos());
    return false;
  }
  if (!seen[kTimeMs] || !seen[kKey] || !seen[kValue] || !seen[kMetadata]) {
    *error = "missing one of time_ms, key, value, metadata";
    return false;
  }
  Value tms = ParseValid(members[kTimeMs]);
  double t = 0;
  if (tms.is_int() || tms.is_float() || tms.is_bool()) {
    t = tms.as_number();
  } else if (tms.is_string()) {
    std::string_view s = PyStrip(tms.as_string());
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), t);
    if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
      *error = "could not convert time_ms to float";
      return false;
    }
  } else {
    *error = "time_ms is not a number";
    return false;
  }
  // A string member's text, decoded; "" when absent or not a string.
  auto string_member = [&](Member m, std::string* buf) -> bool {
    buf->clear();
    if (!seen[m] || members[m].empty() || members[m][0] != '"') return false;
    *buf = ParseValid(members[m]).as_string();
    return true;
  };
  if (!string_member(kKey, strings.key)) {
    *error = "key is not a string";
    return false;
  }
  string_member(kNamespace, strings.ns);
  string_member(kEventType, strings.event_type);
  out->timestamp = t;
  out->key = *strings.key;
  out->value_json = members[kValue];
  out->metadata_json = members[kMetadata];
  out->ns = *strings.ns;
  out->event_type = *strings.event_type;
  return true;
}

// Parses a line from its last token on. REQUIRES: `at` is where that token starts.
bool ParseRawAt(std::string_view line, size_t at, Format format, const MllogStrings& strings,
                RawRecord* out, std::string* error) {
  std::string_view rest = PyStrip(line.substr(at));
  return format == Format::kMll ? ParseMll(rest, out, error) : ParseMllog(rest, out, strings, error);
}

}  // namespace

const char* FormatName(Format f) { return f == Format::kMll ? "MLL" : "MLLOG"; }

const Value& Record::payload() const {
  static const Value kNull;
  const Value* v = value.is_dict() ? value.Find("value") : nullptr;
  return v ? *v : kNull;
}

const Value& Record::metadata() const {
  static const Value kNull;
  const Value* v = value.is_dict() ? value.Find("metadata") : nullptr;
  return v ? *v : kNull;
}

void ToRecord(const RawRecord& raw, Format format, Record* out) {
  out->timestamp = raw.timestamp;
  out->key.assign(raw.key);
  out->index = raw.index;
  out->file_line = raw.file_line;
  out->ns.assign(raw.ns);
  out->event_type.assign(raw.event_type);
  if (format == Format::kMll) {
    out->value = ParseValid(raw.value_json);
  } else {
    Value v = Value::Dict();
    v.Set("value", ParseValid(raw.value_json));
    v.Set("metadata", ParseValid(raw.metadata_json));
    out->value = std::move(v);
  }
}

bool ParseLine(std::string_view line, Format format, int64_t index, int64_t file_line,
               Record* out, std::string* error) {
  std::string_view token = TokenOf(format);
  size_t at = RFindToken(line, token);
  if (at == std::string_view::npos) {
    *error = "no " + std::string(token) + " token";
    return false;
  }
  std::string key, ns, event_type;
  RawRecord raw;
  if (!ParseRawAt(line, at, format, MllogStrings{&key, &ns, &event_type}, &raw, error)) return false;
  raw.index = index;
  raw.file_line = file_line;
  ToRecord(raw, format, out);
  return true;
}

LogReader::LogReader(std::string name, Format format) : name_(std::move(name)), format_(format) {}
LogReader::~LogReader() = default;

Result<std::unique_ptr<LogReader>> LogReader::Open(const std::filesystem::path& path,
                                                   Format format) {
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!in->is_open()) {
    return Status::IOError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  }
  std::unique_ptr<LogReader> r(new LogReader(path.string(), format));
  r->in_ = std::move(in);
  return r;
}

std::unique_ptr<LogReader> LogReader::FromString(std::string text, Format format,
                                                 std::string name) {
  std::unique_ptr<LogReader> r(new LogReader(std::move(name), format));
  r->in_ = std::make_unique<std::istringstream>(std::move(text));
  return r;
}

bool LogReader::FillBuffer() {
  if (eof_) return false;
  if (!block_) block_ = std::make_unique_for_overwrite<char[]>(kBlockSize);
  in_->read(block_.get(), static_cast<std::streamsize>(kBlockSize));
  block_len_ = static_cast<size_t>(in_->gcount());
  block_pos_ = 0;
  bytes_read_ += static_cast<int64_t>(block_len_);
  if (in_->bad()) {
    status_ = Status::IOError(name_ + ": read failed after " + std::to_string(bytes_read_) +
                              " bytes (line " + std::to_string(physical_line_ + 1) + ")");
    block_len_ = 0;
  }
  if (block_len_ == 0) eof_ = true;
  return block_len_ != 0;
}

size_t LogReader::NextLineEnd(bool* colons) const {
  const char* d = block_.get();
  size_t p = block_pos_;
  bool found = false;
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  const __m128i colon = _mm_set1_epi8(':');
  while (p + 18 <= block_len_) {  // the loads cover bytes [p, p + 18)
    __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i_u*>(d + p));
    __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i_u*>(d + p + 1));
    __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i_u*>(d + p + 2));
    auto ends = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x0, lf), _mm_cmpeq_epi8(x0, cr))));
    auto three = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(
        _mm_and_si128(_mm_cmpeq_epi8(x0, colon), _mm_cmpeq_epi8(x1, colon)), _mm_cmpeq_epi8(x2, colon))));
    if (ends != 0) {
      unsigned e = static_cast<unsigned>(__builtin_ctz(ends));
      // Three colons starting before the line end lie inside the line.
      *colons = found || (three & ((1u << e) - 1)) != 0;
      return p + e;
    }
    found = found || three != 0;
    p += 16;
  }
#endif
  for (; p < block_len_; ++p) {
    if (d[p] == '\n' || d[p] == '\r') {
      *colons = found;
      return p;
    }
    if (d[p] == ':' && p + 2 < block_len_ && d[p + 1] == ':' && d[p + 2] == ':') found = true;
  }
  *colons = true;  // unknown: the line goes on in the next block
  return kNone;
}

// Universal newlines, as Python's text mode: "\n", "\r\n" and "\r" end a line.
// A line inside one block is returned as a view into it, without a copy; only
// lines that span blocks are assembled in carry_.
bool LogReader::NextLine(std::string_view* line, bool* colons) {
  carry_.clear();
  bool spanning = false;
  *colons = true;  // lines that span blocks are not pre-screened
  while (true) {
    if (block_pos_ >= block_len_ && !FillBuffer()) {
      if (!spanning) return false;
      ++physical_line_;
      *line = carry_;
      return true;  // last line without a line end
    }
    if (skip_lf_) {
      skip_lf_ = false;
      if (block_[block_pos_] == '\n') {
        ++block_pos_;
        continue;
      }
    }
    bool here_colons = true;
    size_t end = NextLineEnd(&here_colons);
    const char* begin = block_.get() + block_pos_;
    if (end == kNone) {
      carry_.append(begin, block_len_ - block_pos_);
      block_pos_ = block_len_;
      spanning = true;
      if (carry_.size() > kMaxLineBytes) {
        status_ = Status::InvalidArgument(name_ + ":" + std::to_string(physical_line_ + 1) + ": a line longer than " +
                                          std::to_string(kMaxLineBytes >> 20) +
                                          " MiB without a line end; not an MLPerf log, reading stopped");
        eof_ = true;
        block_len_ = block_pos_ = 0;
        carry_.clear();
        return false;
      }
      continue;
    }
    std::string_view here(begin, end - block_pos_);
    skip_lf_ = (block_[end] == '\r');
    block_pos_ = end + 1;
    ++physical_line_;
    if (spanning) {
      carry_.append(here);
      *line = carry_;
    } else {
      *line = here;
      *colons = here_colons;
    }
    return true;
  }
}

bool LogReader::NextRaw(RawRecord* out) {
  std::string_view line;
  std::string_view token = TokenOf(format_);
  const MllogStrings strings{&key_buf_, &ns_buf_, &event_type_buf_};
  bool colons = true;
  while (NextLine(&line, &colons)) {
    if (!colons) continue;  // no ":::", so no token: most lines of most logs
    size_t at = RFindToken(line, token);
    if (at == std::string_view::npos) continue;
    int64_t index = next_index_++;
    std::string error;
    if (ParseRawAt(line, at, format_, strings, out, &error)) {
      out->index = index;
      out->file_line = physical_line_;
      return true;
    }
    LineError e;
    e.file_line = physical_line_;
    e.index = index;
    e.text = Latin1ToUtf8(PyStrip(line.substr(at)));
    e.message = std::move(error);
    errors_.push_back(std::move(e));
  }
  return false;
}

bool LogReader::Next(Record* out) {
  RawRecord raw;
  if (!NextRaw(&raw)) return false;
  ToRecord(raw, format_, out);
  return true;
}

Result<std::vector<Record>> ReadLog(const std::filesystem::path& path, Format format,
                                    std::vector<LineError>* errors) {
  PODBENCH_ASSIGN_OR_RETURN(auto reader, LogReader::Open(path, format));
  std::vector<Record> records;
  Record r;
  while (reader->Next(&r)) records.push_back(std::move(r));
  PODBENCH_RETURN_IF_ERROR(reader->status());
  if (errors != nullptr) *errors = reader->errors();
  return records;
}

Result<Format> DetectFormat(const std::filesystem::path& path, size_t probe_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    return Status::IOError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  }
  std::string head(probe_bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(probe_bytes));
  head.resize(static_cast<size_t>(in.gcount()));
  size_t pos = 0;
  while ((pos = head.find(kMllToken, pos)) != std::string::npos) {
    if (head.compare(pos, kMllogToken.size(), kMllogToken) == 0) return Format::kMllog;
    if (head.compare(pos, 7, ":::MLL ") == 0) return Format::kMll;
    pos += kMllToken.size();
  }
  return Status::NotFound(path.string() + ": no :::MLL or :::MLLOG lines in the first " +
                          std::to_string(head.size()) + " bytes");
}

}  // namespace podbench::mllog
