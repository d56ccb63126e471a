#include "rules/py/value.h"

#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include "rules/mllog/json.h"

namespace podbench::rules::py {

Val Val::Str(std::string s) {
  return FromObject(Kind::kStr, std::make_shared<StrObj>(std::move(s)));
}
Val Val::NewList(std::vector<Val> items) {
  auto l = std::make_shared<ListObj>();
  l->items = std::move(items);
  return FromObject(Kind::kList, std::move(l));
}
Val Val::NewDict() { return FromObject(Kind::kDict, std::make_shared<DictObj>()); }
Val Val::NewSet() { return FromObject(Kind::kSet, std::make_shared<DictObj>()); }

const std::string& Val::str() const { return static_cast<StrObj*>(obj_.get())->s; }
std::vector<Val>& Val::list() const { return static_cast<ListObj*>(obj_.get())->items; }
DictObj& Val::dict() const { return *static_cast<DictObj*>(obj_.get()); }
DictObj& Val::set() const { return *static_cast<DictObj*>(obj_.get()); }
LineObj& Val::line() const { return *static_cast<LineObj*>(obj_.get()); }

namespace {

constexpr size_t kIndexThreshold = 8;  // dicts smaller than this are searched linearly

uint64_t HashInt(int64_t i) { return std::hash<int64_t>{}(i) * 0x9E3779B97F4A7C15ull; }

}  // namespace

uint64_t Hash(const Val& v) {
  switch (v.kind()) {
    case Kind::kNone: return 0x1234567;
    case Kind::kBool:
    case Kind::kInt: return HashInt(v.as_int());
    case Kind::kFloat: {
      double d = v.as_float();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
        return HashInt(static_cast<int64_t>(d));
      }
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return bits * 0x9E3779B97F4A7C15ull;
    }
    case Kind::kStr: return std::hash<std::string_view>{}(v.str());
    case Kind::kBuiltin:
    case Kind::kModule: return HashInt(v.as_int() + 1000 * static_cast<int>(v.kind()));
    case Kind::kLine: return std::hash<const void*>{}(v.identity());
    default: throw PyError("TypeError", "unhashable type: '" + TypeName(v) + "'");
  }
}

Val* DictObj::Find(const Val& key) {
  if (entries_.size() < kIndexThreshold) {
    if (key.kind() != Kind::kList && key.kind() != Kind::kDict && key.kind() != Kind::kSet) {
      for (auto& e : entries_) {
        if (Equal(e.first, key)) return &e.second;
      }
      return nullptr;
    }
    (void)Hash(key);  // raises the TypeError for unhashable keys
    return nullptr;
  }
  uint64_t h = Hash(key);
  auto [lo, hi] = index_.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    if (Equal(entries_[it->second].first, key)) return &entries_[it->second].second;
  }
  return nullptr;
}

Val* DictObj::FindStr(std::string_view key) {
  if (entries_.size() < kIndexThreshold) {
    for (auto& e : entries_) {
      if (e.first.kind() == Kind::kStr && e.first.str() == key) return &e.second;
    }
    return nullptr;
  }
  auto [lo, hi] = index_.equal_range(std::hash<std::string_view>{}(key));
  for (auto it = lo; it != hi; ++it) {
    const Val& k = entries_[it->second].first;
    if (k.kind() == Kind::kStr && k.str() == key) return &entries_[it->second].second;
  }
  return nullptr;
}

void DictObj::Set(const Val& key, Val value) {
  if (Val* existing = Find(key)) {  // raises for an unhashable key
    *existing = std::move(value);
    return;
  }
  if (entries_.empty()) entries_.reserve(4);  // most dicts (log values, metadata) are this small
  entries_.emplace_back(key, std::move(value));
  if (entries_.size() == kIndexThreshold) {
    for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(Hash(entries_[i].first), i);
  } else if (entries_.size() > kIndexThreshold) {
    index_.emplace(Hash(key), entries_.size() - 1);
  }
}

bool Truthy(const Val& v) {
  switch (v.kind()) {
    case Kind::kNone: return false;
    case Kind::kBool:
    case Kind::kInt: return v.as_int() != 0;
    case Kind::kFloat: return v.as_float() != 0.0;
    case Kind::kStr: return !v.str().empty();
    case Kind::kList: return !v.list().empty();
    case Kind::kDict:
    case Kind::kSet: return v.dict().size() != 0;
    default: return true;
  }
}

namespace {

// Exact comparison of an int64 with a double, as Python compares int and float.
int CompareIntFloat(int64_t i, double d) {
  if (std::isnan(d)) return 2;  // unordered
  if (d >= 9.3e18) return -1;
  if (d <= -9.3e18) return 1;
  double fi = std::floor(d);
  auto di = static_cast<int64_t>(fi);
  if (i < di) return -1;
  if (i > di) return 1;
  return fi < d ? -1 : 0;
}

// -1, 0, 1, or 2 for unordered (NaN). REQUIRES: both numbers.
int CompareNumbers(const Val& a, const Val& b) {
  bool af = a.kind() == Kind::kFloat, bf = b.kind() == Kind::kFloat;
  if (!af && !bf) return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
  if (af && bf) {
    double x = a.as_float(), y = b.as_float();
    if (std::isnan(x) || std::isnan(y)) return 2;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (af) {
    int c = CompareIntFloat(b.as_int(), a.as_float());
    return c == 2 ? 2 : -c;
  }
  return CompareIntFloat(a.as_int(), b.as_float());
}

}  // namespace

namespace {
thread_local int compare_depth = 0;
struct CompareDepth {
  CompareDepth() {
    if (++compare_depth > 500) {
      --compare_depth;
      throw PyError("RecursionError", "maximum recursion depth exceeded in comparison");
    }
  }
  ~CompareDepth() { --compare_depth; }
};
}  // namespace

bool Equal(const Val& a, const Val& b) {
  if (a.is_number() && b.is_number()) return CompareNumbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kNone: return true;
    case Kind::kStr: return a.identity() == b.identity() || a.str() == b.str();
    case Kind::kList: {
      if (a.identity() == b.identity()) return true;
      CompareDepth depth_guard;  // only containers recurse
      const auto &x = a.list(), &y = b.list();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!Equal(x[i], y[i])) return false;
      }
      return true;
    }
    case Kind::kDict:
    case Kind::kSet: {
      if (a.identity() == b.identity()) return true;
      CompareDepth depth_guard;
      if (a.dict().size() != b.dict().size()) return false;
      for (const auto& [k, v] : a.dict().entries()) {
        Val* other = b.dict().Find(k);
        if (!other || (a.kind() == Kind::kDict && !Equal(v, *other))) return false;
      }
      return true;
    }
    case Kind::kBuiltin:
    case Kind::kModule: return a.as_int() == b.as_int();
    default: return a.identity() == b.identity();
  }
}

bool Less(const Val& a, const Val& b) {
  if (a.is_number() && b.is_number()) return CompareNumbers(a, b) == -1;
  CompareDepth depth_guard;
  if (a.kind() == Kind::kStr && b.kind() == Kind::kStr) return a.str() < b.str();
  if (a.kind() == Kind::kList && b.kind() == Kind::kList) {
    const auto &x = a.list(), &y = b.list();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!Equal(x[i], y[i])) return Less(x[i], y[i]);
    }
    return x.size() < y.size();
  }
  if (a.kind() == Kind::kSet && b.kind() == Kind::kSet) {  // proper subset
    if (a.set().size() >= b.set().size()) return false;
    for (const auto& e : a.set().entries()) {
      if (!b.set().Find(e.first)) return false;
    }
    return true;
  }
  throw PyError("TypeError", "'<' not supported between instances of '" + TypeName(a) + "' and '" +
                                 TypeName(b) + "'");
}

std::string TypeName(const Val& v) {
  switch (v.kind()) {
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kStr: return "str";
    case Kind::kList: return "list";
    case Kind::kDict: return "dict";
    case Kind::kSet: return "set";
    case Kind::kLine: return "LogLine";
    case Kind::kBuiltin: return v.builtin() <= Builtin::kTypeLine ? "type" : "builtin_function_or_method";
    case Kind::kModule: return "module";
  }
  return "object";
}

std::string FloatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-trip digits, then Python's layout: positional for
  // 1e-4 <= |d| < 1e16, else scientific with at least two exponent digits.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp = std::stoi(sci.substr(e + 1));
  bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits.push_back(c);
  }
  std::string out;
  if (exp >= -5 && exp < 16) {
    if (exp < 0) {
      out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
    }
    // Python switches to scientific below 1e-4.
    if (exp < -4) {
      out.clear();
    }
  }
  if (out.empty()) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  }
  return neg ? "-" + out : out;
}

namespace {

std::string StrRepr(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char q = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : s) {
    if (c == static_cast<unsigned char>(q) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back(q);
  return out;
}

const char* BuiltinName(Builtin b) {
  switch (b) {
    case Builtin::kTypeNone: return "NoneType";
    case Builtin::kTypeBool: return "bool";
    case Builtin::kTypeInt: return "int";
    case Builtin::kTypeFloat: return "float";
    case Builtin::kTypeStr: return "str";
    case Builtin::kTypeList: return "list";
    case Builtin::kTypeDict: return "dict";
    case Builtin::kTypeSet: return "set";
    case Builtin::kTypeLine: return "LogLine";
    case Builtin::kLen: return "len";
    case Builtin::kMin: return "min";
    case Builtin::kMax: return "max";
    case Builtin::kAbs: return "abs";
    case Builtin::kSorted: return "sorted";
    case Builtin::kIsInstance: return "isinstance";
    case Builtin::kType: return "type";
    case Builtin::kPrint: return "print";
    case Builtin::kRound: return "round";
    case Builtin::kSum: return "sum";
    case Builtin::kAny: return "any";
    case Builtin::kAll: return "all";
    case Builtin::kIsInteger: return "is_integer";
    case Builtin::kEnqueueConfig: return "enqueue_config";
    case Builtin::kReplace: return "replace";
  }
  return "?";
}

constexpr size_t kMaxRepr = 1 << 20;  // longer reprs are cut with "..."

void ReprInto(const Val& v, std::string* out, int depth);

// Containers being printed, so a container inside itself prints as [...]
// or {...}, as Python prints it.
thread_local std::vector<const Object*> repr_stack;

struct ReprGuard {
  explicit ReprGuard(const Object* o) { repr_stack.push_back(o); }
  ~ReprGuard() { repr_stack.pop_back(); }
};

void ReprInto(const Val& v, std::string* out, int depth) {
  if (depth > 100 || out->size() > kMaxRepr) {
    *out += "...";
    return;
  }
  if (v.identity() != nullptr && v.kind() != Kind::kStr) {
    for (const Object* o : repr_stack) {
      if (o == v.identity()) {
        *out += v.kind() == Kind::kList ? "[...]" : "{...}";
        return;
      }
    }
  }
  ReprGuard guard(v.identity());
  switch (v.kind()) {
    case Kind::kStr: *out += StrRepr(v.str()); return;
    case Kind::kList: {
      *out += '[';
      bool first = true;
      for (const auto& x : v.list()) {
        if (!first) *out += ", ";
        first = false;
        ReprInto(x, out, depth + 1);
      }
      *out += ']';
      return;
    }
    case Kind::kDict: {
      *out += '{';
      bool first = true;
      for (const auto& [k, x] : v.dict().entries()) {
        if (!first) *out += ", ";
        first = false;
        ReprInto(k, out, depth + 1);
        *out += ": ";
        ReprInto(x, out, depth + 1);
      }
      *out += '}';
      return;
    }
    case Kind::kSet: {
      if (v.set().size() == 0) {
        *out += "set()";
        return;
      }
      *out += '{';
      bool first = true;
      for (const auto& e : v.set().entries()) {
        if (!first) *out += ", ";
        first = false;
        ReprInto(e.first, out, depth + 1);
      }
      *out += '}';
      return;
    }
    case Kind::kLine: {
      const LineObj& l = v.line();
      *out += "LogLine(full_string=";
      ReprInto(l.full_string, out, depth + 1);
      *out += ", timestamp=";
      ReprInto(l.timestamp, out, depth + 1);
      *out += ", key=";
      ReprInto(l.key, out, depth + 1);
      *out += ", value=";
      ReprInto(l.value, out, depth + 1);
      *out += ", lineno=";
      ReprInto(l.lineno, out, depth + 1);
      *out += ')';
      return;
    }
    default: *out += Str(v); return;
  }
}

}  // namespace

std::string Str(const Val& v) {
  switch (v.kind()) {
    case Kind::kNone: return "None";
    case Kind::kBool: return v.as_bool() ? "True" : "False";
    case Kind::kInt: return std::to_string(v.as_int());
    case Kind::kFloat: return FloatRepr(v.as_float());
    case Kind::kStr: return v.str();
    case Kind::kBuiltin:
      return v.builtin() <= Builtin::kTypeLine
                 ? std::string("<class '") + BuiltinName(v.builtin()) + "'>"
                 : std::string("<built-in function ") + BuiltinName(v.builtin()) + ">";
    case Kind::kModule: {
      switch (v.module()) {
        case Module::kMath: return "<module 'math'>";
        case Module::kYaml: return "<module 'yaml'>";
        case Module::kSys: return "<module 'sys'>";
        case Module::kSysStdout: return "<stdout>";
      }
      return "<module>";
    }
    default: {
      std::string out;
      ReprInto(v, &out, 0);
      return out;
    }
  }
}

std::string Repr(const Val& v) {
  std::string out;
  ReprInto(v, &out, 0);
  return out;
}

void BreakCycles(const std::vector<Val>& roots) {
  static std::atomic<uint64_t> epoch{0};
  const uint64_t stamp = ++epoch;
  std::vector<Val> stack(roots.begin(), roots.end());
  std::vector<Val> containers;
  while (!stack.empty()) {
    Val v = std::move(stack.back());
    stack.pop_back();
    Kind k = v.kind();
    if (k != Kind::kList && k != Kind::kDict && k != Kind::kSet && k != Kind::kLine) continue;
    auto* obj = const_cast<Object*>(v.identity());
    if (obj->mark == stamp) continue;  // visited in this pass
    obj->mark = stamp;
    if (k == Kind::kList) {
      for (const auto& x : v.list()) stack.push_back(x);
    } else if (k == Kind::kLine) {
      const LineObj& l = v.line();
      for (const Val* f : {&l.full_string, &l.timestamp, &l.key, &l.value, &l.lineno}) stack.push_back(*f);
    } else {
      for (const auto& [key, x] : v.dict().entries()) {
        stack.push_back(key);
        stack.push_back(x);
      }
    }
    containers.push_back(std::move(v));
  }
  for (auto& c : containers) {
    switch (c.kind()) {
      case Kind::kList: c.list().clear(); break;
      case Kind::kLine: {
        LineObj& l = c.line();
        l.full_string = l.timestamp = l.key = l.value = l.lineno = Val();
        break;
      }
      default: c.dict().Clear(); break;
    }
  }
}

Val FromJson(const mllog::Value& j) {
  switch (j.type()) {
    case mllog::Value::Type::kNull: return Val::None();
    case mllog::Value::Type::kBool: return Val::Bool(j.as_bool());
    case mllog::Value::Type::kInt: return Val::Int(j.as_int());
    case mllog::Value::Type::kFloat: return Val::Float(j.as_float());
    case mllog::Value::Type::kString: return Val::Str(j.as_string());
    case mllog::Value::Type::kList: {
      std::vector<Val> items;
      items.reserve(j.items().size());
      for (const auto& x : j.items()) items.push_back(FromJson(x));
      return Val::NewList(std::move(items));
    }
    case mllog::Value::Type::kDict: {
      Val d = Val::NewDict();
      const auto& keys = j.keys();
      for (size_t i = 0; i < keys.size(); ++i) d.dict().Set(Val::Str(keys[i]), FromJson(j.items()[i]));
      return d;
    }
  }
  return Val::None();
}

namespace {

// JsonParser's builder of interpreter values.
struct ValBuilder {
  using Value = Val;
  JsonToVal* owner;
  Val Null() { return Val::None(); }
  Val Bool(bool b) { return Val::Bool(b); }
  Val Int(int64_t i) { return Val::Int(i); }
  Val Float(double d) { return Val::Float(d); }
  Val String(std::string_view s) { return owner->Intern(s); }
  Val NewList() { return Val::NewList(); }
  void Append(Val* list, Val item) { list->list().push_back(std::move(item)); }
  Val NewDict() { return Val::NewDict(); }
  void Set(Val* dict, std::string_view key, Val item) { dict->dict().Set(owner->Intern(key), std::move(item)); }
};

}  // namespace

namespace {
constexpr size_t kRecentSlots = 256;
}  // namespace

JsonToVal::JsonToVal() : recent_(kRecentSlots) {}
JsonToVal::~JsonToVal() = default;

Val JsonToVal::Intern(std::string_view s) {
  if (s.size() > kMaxInterned) return Val::Str(std::string(s));
  size_t slot = s.size() * 0x9E3779B1u;
  if (!s.empty()) {
    slot ^= static_cast<unsigned char>(s.front()) * 31u + static_cast<unsigned char>(s.back()) * 131u +
            static_cast<unsigned char>(s[s.size() / 2]) * 7u;
  }
  slot = (slot ^ (slot >> 13)) % kRecentSlots;
  Val& recent = recent_[slot];
  if (recent.kind() == Kind::kStr && std::string_view(recent.str()) == s) return recent;
  auto it = strings_.find(s);
  if (it == strings_.end()) {
    Val v = Val::Str(std::string(s));
    it = strings_.emplace(std::string_view(v.str()), v).first;
  }
  recent = it->second;
  return recent;
}

bool JsonToVal::Parse(std::string_view json, Val* out, std::string* error) {
  ValBuilder b{this};
  mllog::JsonParser<ValBuilder> p(json, &b);
  return p.Parse(out, error);
}

}  // namespace podbench::rules::py
