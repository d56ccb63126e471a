// The JSON grammar of Python's json.loads, parameterised by what it builds.
//
// One parser serves every consumer, so all of them accept and reject exactly
// the same texts: mllog::ParseJson builds mllog::Value, the checker builds
// interpreter values straight from the text (rules/py), and the log reader
// validates lines without building anything (JsonValidator).
//
// A Builder provides:
//   using Value = ...;                       // default-constructible, movable
//   Value Null(); Value Bool(bool); Value Int(int64_t); Value Float(double);
//   Value String(std::string_view utf8);     // the view dies after the call
//   Value NewList();  void Append(Value* list, Value item);
//   Value NewDict();  void Set(Value* dict, std::string_view utf8_key, Value item);
// Set must keep a repeated key's first position and its last value, as a
// Python dict does.
//
// Grammar (Python's json module, strict mode): NaN, Infinity and -Infinity are
// floats; integers beyond int64 become floats; strings may not hold control
// characters; each input byte is a latin-1 code point (stored as UTF-8);
// \uXXXX escapes combine surrogate pairs and keep lone surrogates as their
// 3-byte form. Nesting deeper than 512 levels is an error.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace podbench::mllog {

template <class Builder>
class JsonParser {
 public:
  using Value = typename Builder::Value;

  JsonParser(std::string_view text, Builder* builder) : t_(text), b_(builder) {}

  // Parses the whole text as one value with optional surrounding white space.
  // On failure returns false and sets *error to "<what> at column N" (0-based).
  bool Parse(Value* out, std::string* error) {
    SkipWs();
    if (!ParseValue(out, 0)) {
      *error = error_ + " at column " + std::to_string(pos_);
      return false;
    }
    SkipWs();
    if (pos_ != t_.size()) {
      *error = "extra data at column " + std::to_string(pos_);
      return false;
    }
    return true;
  }

  // Step-wise use (the log reader walks a :::MLLOG object member by member).
  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= t_.size(); }
  char peek() const { return t_[pos_]; }  // REQUIRES: !at_end()
  void advance() { ++pos_; }
  void SkipWs() {
    while (pos_ < t_.size() &&
           (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) {
      ++pos_;
    }
  }
  // The reason of the last failure, without the column.
  const std::string& error() const { return error_; }
  bool Fail(const char* msg) {
    error_ = msg;
    return false;
  }

  // One value at pos(). `depth` counts the enclosing containers.
  bool ParseValue(Value* out, int depth) {
    if (depth > kMaxDepth) return Fail("nesting too deep");
    if (pos_ >= t_.size()) return Fail("expecting value");
    char c = t_[pos_];
    switch (c) {
      case '{': return ParseObject(out, depth);
      case '[': return ParseArray(out, depth);
      case '"': {
        std::string_view s;
        if (!ParseString(&s)) return false;
        *out = b_->String(s);
        return true;
      }
      case 'n':
        if (Consume("null")) { *out = b_->Null(); return true; }
        break;
      case 't':
        if (Consume("true")) { *out = b_->Bool(true); return true; }
        break;
      case 'f':
        if (Consume("false")) { *out = b_->Bool(false); return true; }
        break;
      case 'N':
        if (Consume("NaN")) { *out = b_->Float(std::numeric_limits<double>::quiet_NaN()); return true; }
        break;
      case 'I':
        if (Consume("Infinity")) { *out = b_->Float(std::numeric_limits<double>::infinity()); return true; }
        break;
      case '-':
        if (Consume("-Infinity")) { *out = b_->Float(-std::numeric_limits<double>::infinity()); return true; }
        return ParseNumber(out);
      default:
        if (c >= '0' && c <= '9') return ParseNumber(out);
    }
    return Fail("expecting value");
  }

  // A string at pos() (REQUIRES: peek() == '"'). *out views the text itself
  // when the string is plain ASCII without escapes, else a decoded copy; it is
  // valid until the next ParseString.
  bool ParseString(std::string_view* out) {
    ++pos_;  // opening quote
    const size_t begin = pos_;
    // Fast path: a run of plain ASCII up to the closing quote.
    pos_ = SkipPlain(pos_);
    if (pos_ < t_.size() && t_[pos_] == '"') {
      *out = t_.substr(begin, pos_ - begin);
      ++pos_;
      return true;
    }
    scratch_.assign(t_.data() + begin, pos_ - begin);
    if (!DecodeStringTail(&scratch_)) return false;
    *out = scratch_;
    return true;
  }

 private:
  static constexpr int kMaxDepth = 512;

  bool Consume(std::string_view word) {
    if (t_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  // The first position at or after `p` that holds a byte that ends a run of
  // plain string characters: '"', '\\', a control character or a non-ASCII byte.
  size_t SkipPlain(size_t p) const {
    const char* s = t_.data();
    const size_t n = t_.size();
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (p + 16 <= n) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i_u*>(s + p));
      // Signed compare: bytes >= 0x80 are negative, so "< 0x20" also finds them.
      __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                  _mm_cmplt_epi8(x, space));
      auto mask = static_cast<unsigned>(_mm_movemask_epi8(stop));
      if (mask != 0) return p + static_cast<size_t>(__builtin_ctz(mask));
      p += 16;
    }
#endif
    while (p < n) {
      auto c = static_cast<unsigned char>(s[p]);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++p;
    }
    return p;
  }

  // Python's NUMBER_RE: -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?
  bool ParseNumber(Value* out) {
    size_t start = pos_;
    if (t_[pos_] == '-') ++pos_;
    if (pos_ >= t_.size() || !IsDigit(t_[pos_])) return Fail("expecting value");
    if (t_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < t_.size() && IsDigit(t_[pos_])) ++pos_;
    }
    bool is_float = false;
    if (pos_ + 1 < t_.size() && t_[pos_] == '.' && IsDigit(t_[pos_ + 1])) {
      is_float = true;
      pos_ += 1;
      while (pos_ < t_.size() && IsDigit(t_[pos_])) ++pos_;
    }
    if (pos_ < t_.size() && (t_[pos_] == 'e' || t_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < t_.size() && (t_[p] == '+' || t_[p] == '-')) ++p;
      if (p < t_.size() && IsDigit(t_[p])) {
        is_float = true;
        while (p < t_.size() && IsDigit(t_[p])) ++p;
        pos_ = p;
      }
    }
    std::string_view num = t_.substr(start, pos_ - start);
    if (!is_float) {
      int64_t i = 0;
      auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), i);
      if (ec == std::errc() && ptr == num.data() + num.size()) {
        *out = b_->Int(i);
        return true;
      }
      // Beyond int64: held as float.
    }
    double d = 0;
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), d);
    if (ec == std::errc::result_out_of_range) {
      // Python: overflow gives +/-inf, underflow gives 0.0.
      bool neg = num[0] == '-';
      bool tiny = num.find("e-") != std::string_view::npos || num.find("E-") != std::string_view::npos;
      d = tiny ? (neg ? -0.0 : 0.0)
               : (neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
    } else if (ec != std::errc() || ptr != num.data() + num.size()) {
      return Fail("bad number");
    }
    *out = b_->Float(d);
    return true;
  }

  static void AppendUtf8(uint32_t cp, std::string* s) {
    if (cp < 0x80) {
      s->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool Hex4(uint32_t* cp) {
    if (pos_ + 4 > t_.size()) return Fail("invalid \\uXXXX escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = t_[pos_ + i];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else return Fail("invalid \\uXXXX escape");
    }
    pos_ += 4;
    *cp = v;
    return true;
  }

  // The rest of a string from pos() on, appended to *s, through the closing quote.
  bool DecodeStringTail(std::string* s) {
    while (true) {
      if (pos_ >= t_.size()) return Fail("unterminated string");
      auto c = static_cast<unsigned char>(t_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return Fail("invalid control character in string");
      if (c < 0x80 && c != '\\') {
        size_t end = SkipPlain(pos_ + 1);
        s->append(t_.data() + pos_, end - pos_);
        pos_ = end;
        continue;
      }
      if (c != '\\') {
        AppendUtf8(c, s);  // a latin-1 byte is its code point
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= t_.size()) return Fail("unterminated string");
      char e = t_[pos_++];
      switch (e) {
        case '"': s->push_back('"'); break;
        case '\\': s->push_back('\\'); break;
        case '/': s->push_back('/'); break;
        case 'b': s->push_back('\b'); break;
        case 'f': s->push_back('\f'); break;
        case 'n': s->push_back('\n'); break;
        case 'r': s->push_back('\r'); break;
        case 't': s->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF && t_.substr(pos_, 2) == "\\u") {
            size_t save = pos_;
            pos_ += 2;
            uint32_t lo = 0;
            if (Hex4(&lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              pos_ = save;
            }
          }
          AppendUtf8(cp, s);  // a lone surrogate is kept as its 3-byte form
          break;
        }
        default: return Fail("invalid escape");
      }
    }
  }

  bool ParseArray(Value* out, int depth) {
    ++pos_;
    *out = b_->NewList();
    SkipWs();
    if (pos_ < t_.size() && t_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipWs();
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      b_->Append(out, std::move(item));
      SkipWs();
      if (pos_ >= t_.size()) return Fail("unterminated array");
      if (t_[pos_] == ',') { ++pos_; continue; }
      if (t_[pos_] == ']') { ++pos_; return true; }
      return Fail("expecting ',' delimiter");
    }
  }

  bool ParseObject(Value* out, int depth) {
    ++pos_;
    *out = b_->NewDict();
    SkipWs();
    if (pos_ < t_.size() && t_[pos_] == '}') {
      ++pos_;
      return true;
    }
    std::string key;
    while (true) {
      SkipWs();
      if (pos_ >= t_.size() || t_[pos_] != '"') {
        return Fail("expecting property name enclosed in double quotes");
      }
      std::string_view kv;
      if (!ParseString(&kv)) return false;
      // The value may contain strings that reuse scratch_: keep a decoded key.
      if (kv.data() == scratch_.data()) {
        key.assign(kv);
        kv = key;
      }
      SkipWs();
      if (pos_ >= t_.size() || t_[pos_] != ':') return Fail("expecting ':' delimiter");
      ++pos_;
      SkipWs();
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      b_->Set(out, kv, std::move(item));
      SkipWs();
      if (pos_ >= t_.size()) return Fail("unterminated object");
      if (t_[pos_] == ',') { ++pos_; continue; }
      if (t_[pos_] == '}') { ++pos_; return true; }
      return Fail("expecting ',' delimiter");
    }
  }

  std::string_view t_;
  Builder* b_;
  size_t pos_ = 0;
  std::string error_;
  std::string scratch_;  // decoded strings with escapes or non-ASCII bytes
};

// A Builder that builds nothing: validation only.
struct JsonValidator {
  struct Value {};
  Value Null() { return {}; }
  Value Bool(bool) { return {}; }
  Value Int(int64_t) { return {}; }
  Value Float(double) { return {}; }
  Value String(std::string_view) { return {}; }
  Value NewList() { return {}; }
  void Append(Value*, Value) {}
  Value NewDict() { return {}; }
  void Set(Value*, std::string_view, Value) {}
};

// True when `text` is one JSON value as json.loads accepts it; else sets *error.
inline bool ValidateJson(std::string_view text, std::string* error) {
  JsonValidator v;
  JsonParser<JsonValidator> p(text, &v);
  JsonValidator::Value out;
  return p.Parse(&out, error);
}

}  // namespace podbench::mllog
