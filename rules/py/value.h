// py::Val: the values of podbench's embedded Python-subset interpreter.
//
// Rule files are Python expressions evaluated by the official checker, so the
// values keep Python's distinctions and semantics: None, bool, int (64-bit;
// results that overflow become float, where Python would keep an exact big
// int), float, str (UTF-8), and reference types list, dict (insertion order),
// set and the log-line object `ll` (fields timestamp, key, value, lineno,
// full_string). Builtin functions, types and modules are values too.
//
// Lists, dicts, sets and lines are shared by reference, as in Python: copying
// a Val copies the reference.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rules/mllog/value.h"

namespace podbench::rules::py {

enum class Kind : uint8_t {
  kNone, kBool, kInt, kFloat, kStr, kList, kDict, kSet, kLine,
  kBuiltin,  // a builtin function or type; Val::i holds the Builtin id
  kModule,   // math, yaml, sys, sys.stdout; Val::i holds the Module id
};

// Builtin functions and types. Types (kInt.. kSet) are callable and are what
// type(x) returns.
enum class Builtin : int64_t {
  kTypeNone, kTypeBool, kTypeInt, kTypeFloat, kTypeStr, kTypeList, kTypeDict, kTypeSet, kTypeLine,
  kLen, kMin, kMax, kAbs, kSorted, kIsInstance, kType, kPrint, kRound, kSum, kAny, kAll,
  kIsInteger, kEnqueueConfig, kReplace,
};

enum class Module : int64_t { kMath, kYaml, kSys, kSysStdout };

struct Object {
  virtual ~Object() = default;
  uint64_t mark = 0;  // BreakCycles' visit stamp
};

class Val;

// A Python-level error (TypeError, KeyError, ...). Thrown inside the
// interpreter only; the public interface (interp.h) turns it into a Status.
struct PyError : std::runtime_error {
  PyError(std::string type_name, const std::string& msg)
      : std::runtime_error(type_name + ": " + msg), type(std::move(type_name)) {}
  std::string type;
};

class Val {
 public:
  Val() : i_(0) {}
  static Val None() { return Val(); }
  static Val Bool(bool b) { Val v; v.kind_ = Kind::kBool; v.i_ = b ? 1 : 0; return v; }
  static Val Int(int64_t i) { Val v; v.kind_ = Kind::kInt; v.i_ = i; return v; }
  static Val Float(double d) { Val v; v.kind_ = Kind::kFloat; v.d_ = d; return v; }
  static Val Str(std::string s);
  static Val NewList(std::vector<Val> items = {});
  static Val NewDict();
  static Val NewSet();
  static Val Of(Builtin b) { Val v; v.kind_ = Kind::kBuiltin; v.i_ = static_cast<int64_t>(b); return v; }
  static Val Of(Module m) { Val v; v.kind_ = Kind::kModule; v.i_ = static_cast<int64_t>(m); return v; }
  static Val FromObject(Kind k, std::shared_ptr<Object> o) { Val v; v.kind_ = k; v.obj_ = std::move(o); return v; }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_number() const { return kind_ == Kind::kInt || kind_ == Kind::kFloat || kind_ == Kind::kBool; }
  bool as_bool() const { return i_ != 0; }
  int64_t as_int() const { return i_; }  // REQUIRES: kInt or kBool
  double as_float() const { return d_; }  // REQUIRES: kFloat
  // REQUIRES: is_number().
  double to_double() const { return kind_ == Kind::kFloat ? d_ : static_cast<double>(i_); }
  Builtin builtin() const { return static_cast<Builtin>(i_); }
  Module module() const { return static_cast<Module>(i_); }

  // REQUIRES: the matching kind.
  const std::string& str() const;
  std::vector<Val>& list() const;
  class DictObj& dict() const;
  class DictObj& set() const;  // sets are dicts whose values are None
  struct LineObj& line() const;
  const Object* identity() const { return obj_.get(); }

 private:
  Kind kind_ = Kind::kNone;
  union {
    int64_t i_;
    double d_;
  };
  std::shared_ptr<Object> obj_;
};

struct StrObj : Object {
  explicit StrObj(std::string text) : s(std::move(text)) {}
  std::string s;
};
struct ListObj : Object {
  std::vector<Val> items;
};

// An insertion-ordered hash map keyed by hashable Vals (Python dict rules:
// 1, 1.0 and True are the same key).
class DictObj : public Object {
 public:
  // nullptr when absent. Throws PyError for an unhashable key.
  Val* Find(const Val& key);
  // Find for a str key, without building a Val.
  Val* FindStr(std::string_view key);
  void Set(const Val& key, Val value);
  size_t size() const { return entries_.size(); }
  const std::vector<std::pair<Val, Val>>& entries() const { return entries_; }
  void Clear() {
    entries_.clear();
    index_.clear();
  }

 private:
  std::vector<std::pair<Val, Val>> entries_;
  std::unordered_multimap<uint64_t, size_t> index_;  // hash -> entry position
};

// The official checker's LogLine dataclass.
struct LineObj : Object {
  Val full_string, timestamp, key, value, lineno;
  int64_t file_line = 0;  // physical line in the log, for messages (not visible to rule code)
};

// Python truthiness.
bool Truthy(const Val& v);
// Python ==.
bool Equal(const Val& a, const Val& b);
// Python <. Throws PyError(TypeError) for unorderable operands.
bool Less(const Val& a, const Val& b);
// Python's hash for hashable values. Throws PyError(TypeError) otherwise.
uint64_t Hash(const Val& v);
// Python's type name ("int", "NoneType", ...).
std::string TypeName(const Val& v);
// Python str() and repr().
std::string Str(const Val& v);
std::string Repr(const Val& v);
// Python's repr of a float ("1.0", "1e-05", "inf").
std::string FloatRepr(double d);

// Values are reference counted, so rule code can make cycles (s['me'] = s)
// that would never be freed. Empties every list, dict, set and line reachable
// from `roots`, breaking all cycles; call it when none of these values is
// needed any more.
void BreakCycles(const std::vector<Val>& roots);

// Conversion from a log value (JSON) to an interpreter value: fresh lists and
// dicts, so rule code may mutate them.
Val FromJson(const mllog::Value& j);

// Builds interpreter values straight from JSON text (the grammar of
// mllog::ParseJson, so FromJson(ParseJson(t)) and Parse(t) give equal values),
// without an intermediate mllog::Value. Lists and dicts are fresh on every
// call; strings of up to kMaxInterned bytes are shared between the values one
// builder makes (str values are immutable, so only `is` could tell, and
// Python leaves `is` between equal strings to the implementation).
// Not thread-safe: one builder per thread (a log's checker owns one).
class JsonToVal {
 public:
  static constexpr size_t kMaxInterned = 64;

  JsonToVal();
  ~JsonToVal();
  JsonToVal(const JsonToVal&) = delete;
  JsonToVal& operator=(const JsonToVal&) = delete;

  // False (with a message naming the column) when `json` is not valid JSON.
  bool Parse(std::string_view json, Val* out, std::string* error);
  // The shared str value for `s` (a fresh one when s is longer than kMaxInterned).
  Val Intern(std::string_view s);

 private:
  std::unordered_map<std::string_view, Val> strings_;  // views into the values' own text
  // Recently interned strings by a cheap hash: most lookups (the same few
  // dict keys and file names on every line) end here, without hashing the text.
  std::vector<Val> recent_;
};

}  // namespace podbench::rules::py
