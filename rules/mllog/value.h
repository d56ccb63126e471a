// mllog::Value: a JSON value as Python's json module reads it.
//
// MLPerf checkers are Python: a log value is whatever json.loads returns. So
// this type keeps the distinctions Python keeps: integers and floats are
// different types (1 and 1.0), NaN and +/-Infinity are valid floats, objects
// keep their insertion order and a repeated key keeps its last value.
// Strings hold UTF-8 (log bytes are decoded as latin-1, then stored as UTF-8).
// Integers beyond int64 are held as float (Python would keep them exact; no
// MLPerf log has one).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace podbench::mllog {

class Value {
 public:
  enum class Type { kNull, kBool, kInt, kFloat, kString, kList, kDict };

  Value() = default;  // null
  static Value Null() { return Value(); }
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Float(double d);
  static Value String(std::string s);
  static Value List(std::vector<Value> items = {});
  static Value Dict();

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_int() const { return type_ == Type::kInt; }
  bool is_float() const { return type_ == Type::kFloat; }
  bool is_number() const { return type_ == Type::kInt || type_ == Type::kFloat; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_list() const { return type_ == Type::kList; }
  bool is_dict() const { return type_ == Type::kDict; }

  // REQUIRES: the matching type.
  bool as_bool() const { return b_; }
  int64_t as_int() const { return i_; }
  double as_float() const { return d_; }
  // int or float as double. REQUIRES: is_number() or is_bool().
  double as_number() const;
  const std::string& as_string() const { return s_; }
  const std::vector<Value>& items() const { return items_; }  // list items, or dict values
  std::vector<Value>& items() { return items_; }
  const std::vector<std::string>& keys() const { return keys_; }  // dict keys, in order

  // Dict access. REQUIRES: is_dict(). Find returns nullptr when absent.
  const Value* Find(std::string_view key) const;
  // Inserts or replaces (keeping the original position, as a Python dict does).
  void Set(std::string key, Value v);
  size_t size() const { return items_.size(); }

  // Room for `n` list items or dict entries without reallocation.
  void Reserve(size_t n) {
    items_.reserve(n);
    if (type_ == Type::kDict) keys_.reserve(n);
  }

  // List append. REQUIRES: is_list().
  void Append(Value v) { items_.push_back(std::move(v)); }

  // Structural equality with Python's == semantics between JSON values
  // (1 == 1.0 and True == 1 are equal; NaN != NaN).
  friend bool operator==(const Value& a, const Value& b);

  // Compact JSON as Python's json.dumps writes it (", " and ": " separators,
  // NaN/Infinity spelled as Python spells them, non-ASCII as \uXXXX).
  std::string ToJson() const;

 private:
  Type type_ = Type::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Value> items_;
  std::vector<std::string> keys_;
};

// Parses `text` as Python's json.loads does (strict: no control characters in
// strings; NaN, Infinity and -Infinity accepted; surrounding white space
// allowed). On failure returns false and sets `error` to a message with the
// 0-based column.
bool ParseJson(std::string_view text, Value* out, std::string* error);
// As above, but on failure `error` is the reason alone and `error_offset` the
// 0-based byte offset in `text` where parsing stopped (for a line and column).
bool ParseJson(std::string_view text, Value* out, std::string* error, size_t* error_offset);

}  // namespace podbench::mllog
