#include "rules/mllog/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace podbench::mllog {

Value Value::Bool(bool b) {
  Value v;
  v.type_ = Type::kBool;
  v.b_ = b;
  return v;
}
Value Value::Int(int64_t i) {
  Value v;
  v.type_ = Type::kInt;
  v.i_ = i;
  return v;
}
Value Value::Float(double d) {
  Value v;
  v.type_ = Type::kFloat;
  v.d_ = d;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.type_ = Type::kString;
  v.s_ = std::move(s);
  return v;
}
Value Value::List(std::vector<Value> items) {
  Value v;
  v.type_ = Type::kList;
  v.items_ = std::move(items);
  return v;
}
Value Value::Dict() {
  Value v;
  v.type_ = Type::kDict;
  return v;
}

double Value::as_number() const {
  switch (type_) {
    case Type::kInt: return static_cast<double>(i_);
    case Type::kFloat: return d_;
    case Type::kBool: return b_ ? 1.0 : 0.0;
    default: return 0.0;
  }
}

const Value* Value::Find(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

void Value::Set(std::string key, Value v) {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) {
      items_[i] = std::move(v);
      return;
    }
  }
  keys_.push_back(std::move(key));
  items_.push_back(std::move(v));
}

namespace {
bool IsNumeric(const Value& v) { return v.is_bool() || v.is_int() || v.is_float(); }
}  // namespace

bool operator==(const Value& a, const Value& b) {
  if (IsNumeric(a) && IsNumeric(b)) {
    if (a.is_float() || b.is_float()) return a.as_number() == b.as_number();
    auto as_i = [](const Value& v) { return v.is_bool() ? int64_t{v.as_bool()} : v.as_int(); };
    return as_i(a) == as_i(b);
  }
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Value::Type::kNull: return true;
    case Value::Type::kString: return a.s_ == b.s_;
    case Value::Type::kList: return a.items_ == b.items_;
    case Value::Type::kDict: {
      if (a.keys_.size() != b.keys_.size()) return false;
      for (size_t i = 0; i < a.keys_.size(); ++i) {
        const Value* other = b.Find(a.keys_[i]);
        if (other == nullptr || !(a.items_[i] == *other)) return false;
      }
      return true;
    }
    default: return false;  // numeric handled above
  }
}

// ---------------------------------------------------------------- parsing

namespace {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : t_(text) {}

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

 private:
  static constexpr int kMaxDepth = 512;

  bool Fail(const char* msg) {
    error_ = msg;
    return false;
  }
  void SkipWs() {
    while (pos_ < t_.size() &&
           (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(std::string_view word) {
    if (t_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  bool ParseValue(Value* out, int depth) {
    if (depth > kMaxDepth) return Fail("nesting too deep");
    if (pos_ >= t_.size()) return Fail("expecting value");
    char c = t_[pos_];
    switch (c) {
      case '{': return ParseObject(out, depth);
      case '[': return ParseArray(out, depth);
      case '"': {
        std::string s;
        if (!ParseString(&s)) return false;
        *out = Value::String(std::move(s));
        return true;
      }
      case 'n':
        if (Consume("null")) { *out = Value::Null(); return true; }
        break;
      case 't':
        if (Consume("true")) { *out = Value::Bool(true); return true; }
        break;
      case 'f':
        if (Consume("false")) { *out = Value::Bool(false); return true; }
        break;
      case 'N':
        if (Consume("NaN")) { *out = Value::Float(std::numeric_limits<double>::quiet_NaN()); return true; }
        break;
      case 'I':
        if (Consume("Infinity")) { *out = Value::Float(std::numeric_limits<double>::infinity()); return true; }
        break;
      case '-':
        if (Consume("-Infinity")) { *out = Value::Float(-std::numeric_limits<double>::infinity()); return true; }
        return ParseNumber(out);
      default:
        if (c >= '0' && c <= '9') return ParseNumber(out);
    }
    return Fail("expecting value");
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
        *out = Value::Int(i);
        return true;
      }
      // Beyond int64: held as float (see value.h).
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
    *out = Value::Float(d);
    return true;
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

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

  // The text is latin-1: each byte is one code point, stored here as UTF-8.
  bool ParseString(std::string* s) {
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= t_.size()) return Fail("unterminated string");
      auto c = static_cast<unsigned char>(t_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return Fail("invalid control character in string");
      if (c < 0x80 && c != '\\') {
        // A run of plain ASCII is appended at once.
        size_t end = pos_ + 1;
        while (end < t_.size()) {
          auto d = static_cast<unsigned char>(t_[end]);
          if (d == '"' || d == '\\' || d < 0x20 || d >= 0x80) break;
          ++end;
        }
        s->append(t_.data() + pos_, end - pos_);
        pos_ = end;
        continue;
      }
      if (c != '\\') {
        AppendUtf8(c, s);
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
    *out = Value::List();
    SkipWs();
    if (pos_ < t_.size() && t_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipWs();
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      out->Append(std::move(item));
      SkipWs();
      if (pos_ >= t_.size()) return Fail("unterminated array");
      if (t_[pos_] == ',') { ++pos_; continue; }
      if (t_[pos_] == ']') { ++pos_; return true; }
      return Fail("expecting ',' delimiter");
    }
  }

  bool ParseObject(Value* out, int depth) {
    ++pos_;
    *out = Value::Dict();
    out->Reserve(4);  // MLPerf values and metadata are small dicts
    SkipWs();
    if (pos_ < t_.size() && t_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipWs();
      if (pos_ >= t_.size() || t_[pos_] != '"') {
        return Fail("expecting property name enclosed in double quotes");
      }
      std::string key;
      if (!ParseString(&key)) return false;
      SkipWs();
      if (pos_ >= t_.size() || t_[pos_] != ':') return Fail("expecting ':' delimiter");
      ++pos_;
      SkipWs();
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      out->Set(std::move(key), std::move(item));
      SkipWs();
      if (pos_ >= t_.size()) return Fail("unterminated object");
      if (t_[pos_] == ',') { ++pos_; continue; }
      if (t_[pos_] == '}') { ++pos_; return true; }
      return Fail("expecting ',' delimiter");
    }
  }

  std::string_view t_;
  size_t pos_ = 0;
  std::string error_;
};

// Python's repr(float): shortest round-trip digits; exponent form when the
// decimal exponent is < -4 or >= 16.
void AppendPyFloat(double d, std::string* out) {
  if (std::isnan(d)) { *out += "NaN"; return; }
  if (std::isinf(d)) { *out += d > 0 ? "Infinity" : "-Infinity"; return; }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  (void)ec;
  std::string sci(buf, end);  // [-]d[.ddd]e[+-]XX
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  int exp = std::stoi(sci.substr(e + 1));
  if (neg) out->push_back('-');
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      *out += "0.";
      out->append(static_cast<size_t>(-exp - 1), '0');
      *out += digits;
    } else {
      size_t int_len = static_cast<size_t>(exp) + 1;
      if (digits.size() <= int_len) {
        *out += digits;
        out->append(int_len - digits.size(), '0');
        *out += ".0";
      } else {
        *out += digits.substr(0, int_len);
        out->push_back('.');
        *out += digits.substr(int_len);
      }
    }
  } else {
    out->push_back(digits[0]);
    if (digits.size() > 1) {
      out->push_back('.');
      *out += digits.substr(1);
    }
    out->push_back('e');
    out->push_back(exp < 0 ? '-' : '+');
    int a = exp < 0 ? -exp : exp;
    if (a < 10) out->push_back('0');
    *out += std::to_string(a);
  }
}

void AppendPyString(const std::string& s, std::string* out) {
  static const char* kHex = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0x80) {  // decode UTF-8 (as produced by the parser)
      if ((c & 0xE0) == 0xC0 && i + 1 < s.size()) { cp = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3F); len = 2; }
      else if ((c & 0xF0) == 0xE0 && i + 2 < s.size()) { cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3F); len = 3; }
      else if ((c & 0xF8) == 0xF0 && i + 3 < s.size()) { cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3F); len = 4; }
    }
    i += len;
    switch (cp) {
      case '"': *out += "\\\""; continue;
      case '\\': *out += "\\\\"; continue;
      case '\n': *out += "\\n"; continue;
      case '\r': *out += "\\r"; continue;
      case '\t': *out += "\\t"; continue;
      case '\b': *out += "\\b"; continue;
      case '\f': *out += "\\f"; continue;
      default: break;
    }
    auto put_u = [&](uint32_t u) {
      *out += "\\u";
      for (int sh = 12; sh >= 0; sh -= 4) out->push_back(kHex[(u >> sh) & 0xF]);
    };
    if (cp < 0x20 || (cp >= 0x7F && cp < 0x10000)) {
      put_u(cp);
    } else if (cp >= 0x10000) {
      uint32_t v = cp - 0x10000;
      put_u(0xD800 + (v >> 10));
      put_u(0xDC00 + (v & 0x3FF));
    } else {
      out->push_back(static_cast<char>(cp));
    }
  }
  out->push_back('"');
}

void AppendJson(const Value& v, std::string* out) {
  switch (v.type()) {
    case Value::Type::kNull: *out += "null"; return;
    case Value::Type::kBool: *out += v.as_bool() ? "true" : "false"; return;
    case Value::Type::kInt: *out += std::to_string(v.as_int()); return;
    case Value::Type::kFloat: AppendPyFloat(v.as_float(), out); return;
    case Value::Type::kString: AppendPyString(v.as_string(), out); return;
    case Value::Type::kList:
      out->push_back('[');
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) *out += ", ";
        AppendJson(v.items()[i], out);
      }
      out->push_back(']');
      return;
    case Value::Type::kDict:
      out->push_back('{');
      for (size_t i = 0; i < v.keys().size(); ++i) {
        if (i) *out += ", ";
        AppendPyString(v.keys()[i], out);
        *out += ": ";
        AppendJson(v.items()[i], out);
      }
      out->push_back('}');
      return;
  }
}

}  // namespace

bool ParseJson(std::string_view text, Value* out, std::string* error) {
  JsonParser p(text);
  return p.Parse(out, error);
}

std::string Value::ToJson() const {
  std::string out;
  AppendJson(*this, &out);
  return out;
}

}  // namespace podbench::mllog
