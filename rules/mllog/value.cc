#include "rules/mllog/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "rules/mllog/json.h"

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

// Builds mllog::Value trees for JsonParser.
struct ValueBuilder {
  using Value = mllog::Value;
  Value Null() { return Value::Null(); }
  Value Bool(bool b) { return Value::Bool(b); }
  Value Int(int64_t i) { return Value::Int(i); }
  Value Float(double d) { return Value::Float(d); }
  Value String(std::string_view s) { return Value::String(std::string(s)); }
  Value NewList() { return Value::List(); }
  void Append(Value* list, Value item) { list->Append(std::move(item)); }
  Value NewDict() {
    Value d = Value::Dict();
    d.Reserve(4);  // MLPerf values and metadata are small dicts
    return d;
  }
  void Set(Value* dict, std::string_view key, Value item) { dict->Set(std::string(key), std::move(item)); }
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
  ValueBuilder b;
  JsonParser<ValueBuilder> p(text, &b);
  return p.Parse(out, error);
}

bool ParseJson(std::string_view text, Value* out, std::string* error, size_t* error_offset) {
  ValueBuilder b;
  JsonParser<ValueBuilder> p(text, &b);
  std::string positioned;
  if (p.Parse(out, &positioned)) return true;
  *error = p.error().empty() ? "extra data" : p.error();
  *error_offset = p.pos();
  return false;
}

std::string Value::ToJson() const {
  std::string out;
  AppendJson(*this, &out);
  return out;
}

}  // namespace podbench::mllog
