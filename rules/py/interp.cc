// Evaluation of the rule-file Python subset, with Python semantics.
//
// Python errors are C++ exceptions (PyError) inside this file only; the
// Interpreter methods turn them into Status values naming the code line.
#include "rules/py/interp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace podbench::rules::py {
namespace {

__extension__ typedef __int128 i128;

constexpr size_t kMaxContainer = 10'000'000;  // elements or bytes one operation may create

[[noreturn]] void Raise(const char* type, const std::string& msg) { throw PyError(type, msg); }

struct LineError {
  int line;
  PyError error;
};

Val MakeFloat(double d) { return Val::Float(d); }

bool IsIntLike(const Val& v) { return v.kind() == Kind::kInt || v.kind() == Kind::kBool; }

Val IntOrFloat(i128 r) {
  if (r > std::numeric_limits<int64_t>::max() || r < std::numeric_limits<int64_t>::min()) {
    return Val::Float(static_cast<double>(r));
  }
  return Val::Int(static_cast<int64_t>(r));
}

std::string OpSymbol(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kFloorDiv: return "//";
    case Op::kMod: return "%";
    case Op::kPow: return "** or pow()";
    case Op::kBitOr: return "|";
    default: return "?";
  }
}

[[noreturn]] void BadOperands(Op op, const Val& a, const Val& b) {
  Raise("TypeError", "unsupported operand type(s) for " + OpSymbol(op) + ": '" + TypeName(a) + "' and '" +
                         TypeName(b) + "'");
}

double FloorMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

Val Repeat(const Val& seq, int64_t n) {
  if (n < 0) n = 0;
  // Empty stays empty for any count, without looping it (the size checks
  // below only bound non-empty results; the fuzzer found '' * 10**18).
  if (seq.kind() == Kind::kStr ? seq.str().empty() : seq.list().empty()) n = 0;
  if (seq.kind() == Kind::kStr) {
    const std::string& s = seq.str();
    if (!s.empty() && static_cast<uint64_t>(n) > kMaxContainer / s.size()) Raise("MemoryError", "string too large");
    std::string out;
    out.reserve(s.size() * static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out += s;
    return Val::Str(std::move(out));
  }
  const auto& items = seq.list();
  if (!items.empty() && static_cast<uint64_t>(n) > kMaxContainer / items.size()) Raise("MemoryError", "list too large");
  std::vector<Val> out;
  out.reserve(items.size() * static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
  return Val::NewList(std::move(out));
}

Val IntPow(int64_t base, int64_t exp) {
  i128 result = 1, b = base;
  const i128 kLimit = static_cast<i128>(std::numeric_limits<int64_t>::max());
  while (exp > 0) {
    if (exp & 1) {
      result *= b;
      if (result > kLimit || result < -kLimit) return Val::Float(std::pow(static_cast<double>(base), static_cast<double>(exp)));
    }
    exp >>= 1;
    if (exp > 0) {
      b *= b;
      if (b > kLimit || b < -kLimit) return Val::Float(std::pow(static_cast<double>(base), static_cast<double>(exp)));
    }
  }
  return Val::Int(static_cast<int64_t>(result));
}

Val Arith(Op op, const Val& a, const Val& b) {
  if (a.is_number() && b.is_number()) {
    if (IsIntLike(a) && IsIntLike(b)) {
      i128 x = a.as_int(), y = b.as_int();
      switch (op) {
        case Op::kAdd: return IntOrFloat(x + y);
        case Op::kSub: return IntOrFloat(x - y);
        case Op::kMul: return IntOrFloat(x * y);
        case Op::kDiv:
          if (y == 0) Raise("ZeroDivisionError", "division by zero");
          return MakeFloat(static_cast<double>(x) / static_cast<double>(y));
        case Op::kFloorDiv:
        case Op::kMod: {
          if (y == 0) Raise("ZeroDivisionError", "integer division or modulo by zero");
          i128 q = x / y, r = x % y;
          if (r != 0 && ((r < 0) != (y < 0))) {
            q -= 1;
            r += y;
          }
          return IntOrFloat(op == Op::kFloorDiv ? q : r);
        }
        case Op::kPow:
          if (y < 0) {
            if (x == 0) Raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
            return MakeFloat(std::pow(static_cast<double>(x), static_cast<double>(y)));
          }
          return IntPow(a.as_int(), b.as_int());
        case Op::kBitOr:
          if (a.kind() == Kind::kBool && b.kind() == Kind::kBool) return Val::Bool(a.as_bool() || b.as_bool());
          return Val::Int(a.as_int() | b.as_int());
        default: break;
      }
    } else {
      double x = a.to_double(), y = b.to_double();
      switch (op) {
        case Op::kAdd: return MakeFloat(x + y);
        case Op::kSub: return MakeFloat(x - y);
        case Op::kMul: return MakeFloat(x * y);
        case Op::kDiv:
          if (y == 0) Raise("ZeroDivisionError", "float division by zero");
          return MakeFloat(x / y);
        case Op::kFloorDiv:
          if (y == 0) Raise("ZeroDivisionError", "float floor division by zero");
          return MakeFloat(std::floor(x / y));
        case Op::kMod:
          if (y == 0) Raise("ZeroDivisionError", "float modulo");
          return MakeFloat(FloorMod(x, y));
        case Op::kPow: {
          if (x == 0 && y < 0) Raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
          if (x < 0 && y != std::floor(y)) Raise("ValueError", "negative number raised to a fractional power");
          double r = std::pow(x, y);
          if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) Raise("OverflowError", "(34, 'Numerical result out of range')");
          return MakeFloat(r);
        }
        default: break;
      }
    }
    BadOperands(op, a, b);
  }
  Kind ka = a.kind(), kb = b.kind();
  if (op == Op::kAdd) {
    if (ka == Kind::kStr && kb == Kind::kStr) {
      if (a.str().size() + b.str().size() > kMaxContainer) Raise("MemoryError", "string too large");
      return Val::Str(a.str() + b.str());
    }
    if (ka == Kind::kList && kb == Kind::kList) {
      if (a.list().size() + b.list().size() > kMaxContainer) Raise("MemoryError", "list too large");
      std::vector<Val> out = a.list();
      out.insert(out.end(), b.list().begin(), b.list().end());
      return Val::NewList(std::move(out));
    }
  }
  if (op == Op::kMul) {
    if ((ka == Kind::kStr || ka == Kind::kList) && IsIntLike(b)) return Repeat(a, b.as_int());
    if ((kb == Kind::kStr || kb == Kind::kList) && IsIntLike(a)) return Repeat(b, a.as_int());
  }
  if (op == Op::kBitOr) {
    if (ka == Kind::kSet && kb == Kind::kSet) {
      Val out = Val::NewSet();
      for (const auto& e : a.set().entries()) out.set().Set(e.first, Val());
      for (const auto& e : b.set().entries()) out.set().Set(e.first, Val());
      return out;
    }
    if (ka == Kind::kDict && kb == Kind::kDict) {
      Val out = Val::NewDict();
      for (const auto& e : a.dict().entries()) out.dict().Set(e.first, e.second);
      for (const auto& e : b.dict().entries()) out.dict().Set(e.first, e.second);
      return out;
    }
  }
  if (op == Op::kMod && ka == Kind::kStr) Raise("TypeError", "%-formatting is not supported");
  BadOperands(op, a, b);
}

// Python `x in container`.
bool Contains(const Val& container, const Val& x) {
  switch (container.kind()) {
    case Kind::kList:
      for (const auto& item : container.list()) {
        if (item.identity() != nullptr && item.identity() == x.identity()) return true;
        if (Equal(item, x)) return true;
      }
      return false;
    case Kind::kDict:
    case Kind::kSet: return container.dict().Find(x) != nullptr;
    case Kind::kStr:
      if (x.kind() != Kind::kStr) {
        Raise("TypeError", "'in <string>' requires string as left operand, not " + TypeName(x));
      }
      return container.str().find(x.str()) != std::string::npos;
    default: Raise("TypeError", "argument of type '" + TypeName(container) + "' is not iterable");
  }
}

bool Compare(Op op, const Val& a, const Val& b) {
  switch (op) {
    case Op::kEq: return Equal(a, b);
    case Op::kNe: return !Equal(a, b);
    case Op::kLt: return Less(a, b);
    case Op::kGt: return Less(b, a);
    case Op::kLe:
      if (a.is_number() && b.is_number()) return !Less(b, a) && Equal(a, a) && Equal(b, b);
      return Less(a, b) || Equal(a, b);
    case Op::kGe:
      if (a.is_number() && b.is_number()) return !Less(a, b) && Equal(a, a) && Equal(b, b);
      return Less(b, a) || Equal(a, b);
    case Op::kIn: return Contains(b, a);
    case Op::kNotIn: return !Contains(b, a);
    case Op::kIs:
    case Op::kIsNot: {
      bool same;
      if (a.kind() != b.kind()) {
        same = false;
      } else if (a.identity() != nullptr || b.identity() != nullptr) {
        same = a.identity() == b.identity();
      } else {
        same = a.kind() == Kind::kFloat ? a.as_float() == b.as_float() : a.as_int() == b.as_int();
      }
      return op == Op::kIs ? same : !same;
    }
    default: return false;
  }
}

// Splits a UTF-8 string into code points (as one-character strings).
std::vector<std::string> Utf8Chars(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    size_t n = 1;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0) n = 4;
    else if (c >= 0xE0) n = 3;
    else if (c >= 0xC0) n = 2;
    n = std::min(n, s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::vector<Val> Iterate(const Val& v) {
  switch (v.kind()) {
    case Kind::kList: return v.list();
    case Kind::kDict:
    case Kind::kSet: {
      std::vector<Val> out;
      out.reserve(v.dict().size());
      for (const auto& e : v.dict().entries()) out.push_back(e.first);
      return out;
    }
    case Kind::kStr: {
      std::vector<Val> out;
      for (auto& c : Utf8Chars(v.str())) out.push_back(Val::Str(std::move(c)));
      return out;
    }
    default: Raise("TypeError", "'" + TypeName(v) + "' object is not iterable");
  }
}

int64_t RoundHalfEven(double d) {
  if (std::isnan(d)) Raise("ValueError", "cannot convert float NaN to integer");
  if (std::isinf(d)) Raise("OverflowError", "cannot convert float infinity to integer");
  double r = std::nearbyint(d);  // default rounding mode: half to even
  if (std::fabs(r) >= 9.2e18) Raise("OverflowError", "integer too large");
  return static_cast<int64_t>(r);
}

double ToFloat(const Val& v, const char* fn) {
  if (v.is_number()) return v.to_double();
  Raise("TypeError", std::string("must be real number, not ") + TypeName(v) + (fn[0] ? std::string(" (in ") + fn + ")" : ""));
}

std::string FormatSpec(const Val& v, const std::string& spec) {
  if (spec.empty()) return Str(v);
  // Supported: [.precision](f|e|g|%) for numbers, d for ints, s for strings.
  char type = spec.back();
  std::string prec = spec.substr(0, spec.size() - 1);
  if (type == 's' && prec.empty()) {
    if (v.kind() != Kind::kStr) Raise("ValueError", "Unknown format code 's' for object of type '" + TypeName(v) + "'");
    return v.str();
  }
  if (type == 'd' && prec.empty()) {
    if (!IsIntLike(v)) Raise("ValueError", "Unknown format code 'd' for object of type '" + TypeName(v) + "'");
    return std::to_string(v.as_int());
  }
  if ((type == 'f' || type == 'e' || type == 'g' || type == '%') && v.is_number()) {
    int p = 6;
    if (!prec.empty()) {
      if (prec[0] != '.' || prec.size() > 3) Raise("ValueError", "unsupported format spec '" + spec + "'");
      for (size_t i = 1; i < prec.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(prec[i]))) Raise("ValueError", "unsupported format spec '" + spec + "'");
      }
      p = std::atoi(prec.c_str() + 1);
    }
    double d = v.to_double() * (type == '%' ? 100 : 1);
    char buf[512];
    if (type == 'e') std::snprintf(buf, sizeof buf, "%.*e", p, d);
    else if (type == 'g') std::snprintf(buf, sizeof buf, "%.*g", p, d);
    else std::snprintf(buf, sizeof buf, "%.*f", p, d);
    return std::string(buf) + (type == '%' ? "%" : "");
  }
  Raise("ValueError", "unsupported format spec '" + spec + "'");
}

std::string StrFormat(const std::string& fmt, const std::vector<Val>& args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '{') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
        out.push_back('{');
        ++i;
        continue;
      }
      size_t close = fmt.find('}', i);
      if (close == std::string::npos) Raise("ValueError", "Single '{' encountered in format string");
      std::string field = fmt.substr(i + 1, close - i - 1);
      std::string spec;
      if (size_t colon = field.find(':'); colon != std::string::npos) {
        spec = field.substr(colon + 1);
        field.resize(colon);
      }
      if (!field.empty() && field.find('!') != std::string::npos) Raise("ValueError", "conversions are not supported in format strings");
      size_t index;
      if (field.empty()) {
        index = auto_index++;
      } else {
        for (char d : field) {
          if (!std::isdigit(static_cast<unsigned char>(d))) Raise("KeyError", "'" + field + "'");
        }
        if (field.size() > 6) Raise("IndexError", "Replacement index out of range");
        index = static_cast<size_t>(std::stoul(field));
      }
      if (index >= args.size()) Raise("IndexError", "Replacement index " + std::to_string(index) + " out of range for positional args tuple");
      out += FormatSpec(args[index], spec);
      i = close;
    } else if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
        out.push_back('}');
        ++i;
        continue;
      }
      Raise("ValueError", "Single '}' encountered in format string");
    } else {
      out.push_back(c);
    }
    if (out.size() > kMaxContainer) Raise("MemoryError", "string too large");
  }
  return out;
}

// yaml.safe_dump in block style (default_flow_style=False), keys sorted.
void YamlScalar(const Val& v, std::string* out) {
  switch (v.kind()) {
    case Kind::kNone: *out += "null"; return;
    case Kind::kBool: *out += v.as_bool() ? "true" : "false"; return;
    case Kind::kInt: *out += std::to_string(v.as_int()); return;
    case Kind::kFloat: {
      double d = v.as_float();
      if (std::isnan(d)) *out += ".nan";
      else if (std::isinf(d)) *out += d > 0 ? ".inf" : "-.inf";
      else *out += FloatRepr(d);
      return;
    }
    case Kind::kStr: {
      const std::string& s = v.str();
      bool plain = !s.empty() && s.find_first_of(":#{}[],&*!|>'\"%@`\n") == std::string::npos &&
                   s.front() != ' ' && s.back() != ' ' && s != "null" && s != "true" && s != "false" &&
                   !std::isdigit(static_cast<unsigned char>(s.front())) && s.front() != '-';
      if (plain) {
        *out += s;
      } else {
        *out += '\'';
        for (char c : s) {
          if (c == '\'') *out += '\'';
          *out += c;
        }
        *out += '\'';
      }
      return;
    }
    default: Raise("RepresenterError", "cannot represent an object: " + Repr(v));
  }
}

void YamlDump(const Val& v, int indent, std::string* out, int depth) {
  if (depth > 50) Raise("RecursionError", "structure nested too deeply (or recursive)");
  if (out->size() > kMaxContainer) Raise("MemoryError", "yaml output too large");
  std::string pad(static_cast<size_t>(indent), ' ');
  if (v.kind() == Kind::kDict) {
    if (v.dict().size() == 0) {
      *out += pad + "{}\n";
      return;
    }
    std::vector<std::pair<Val, Val>> entries = v.dict().entries();
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return Less(a.first, b.first); });
    for (const auto& [k, x] : entries) {
      *out += pad;
      YamlScalar(k, out);
      *out += ':';
      if ((x.kind() == Kind::kDict && x.dict().size()) || (x.kind() == Kind::kList && !x.list().empty())) {
        *out += '\n';
        YamlDump(x, x.kind() == Kind::kList ? indent : indent + 2, out, depth + 1);
      } else if (x.kind() == Kind::kDict) {
        *out += " {}\n";
      } else if (x.kind() == Kind::kList) {
        *out += " []\n";
      } else {
        *out += ' ';
        YamlScalar(x, out);
        *out += '\n';
      }
    }
  } else if (v.kind() == Kind::kList) {
    if (v.list().empty()) {
      *out += pad + "[]\n";
      return;
    }
    for (const auto& x : v.list()) {
      *out += pad + "-";
      if (x.kind() == Kind::kDict || x.kind() == Kind::kList) {
        *out += '\n';
        YamlDump(x, indent + 2, out, depth + 1);
      } else {
        *out += ' ';
        YamlScalar(x, out);
        *out += '\n';
      }
    }
  } else {
    *out += pad;
    YamlScalar(v, out);
    *out += "\n";
    if (v.kind() != Kind::kDict && v.kind() != Kind::kList) *out += "...\n";
  }
}

Builtin TypeOf(const Val& v) {
  switch (v.kind()) {
    case Kind::kNone: return Builtin::kTypeNone;
    case Kind::kBool: return Builtin::kTypeBool;
    case Kind::kInt: return Builtin::kTypeInt;
    case Kind::kFloat: return Builtin::kTypeFloat;
    case Kind::kStr: return Builtin::kTypeStr;
    case Kind::kList: return Builtin::kTypeList;
    case Kind::kDict: return Builtin::kTypeDict;
    case Kind::kSet: return Builtin::kTypeSet;
    case Kind::kLine: return Builtin::kTypeLine;
    default: return Builtin::kType;
  }
}

bool IsInstanceOf(const Val& v, Builtin t) {
  Builtin actual = TypeOf(v);
  if (actual == t) return true;
  return t == Builtin::kTypeInt && actual == Builtin::kTypeBool;  // bool is a subclass of int
}

const std::unordered_map<std::string, Val>& BuiltinScope() {
  static const auto* scope = new std::unordered_map<std::string, Val>{
      {"len", Val::Of(Builtin::kLen)},         {"min", Val::Of(Builtin::kMin)},
      {"max", Val::Of(Builtin::kMax)},         {"abs", Val::Of(Builtin::kAbs)},
      {"sorted", Val::Of(Builtin::kSorted)},   {"isinstance", Val::Of(Builtin::kIsInstance)},
      {"type", Val::Of(Builtin::kType)},       {"print", Val::Of(Builtin::kPrint)},
      {"round", Val::Of(Builtin::kRound)},     {"sum", Val::Of(Builtin::kSum)},
      {"any", Val::Of(Builtin::kAny)},         {"all", Val::Of(Builtin::kAll)},
      {"int", Val::Of(Builtin::kTypeInt)},     {"float", Val::Of(Builtin::kTypeFloat)},
      {"bool", Val::Of(Builtin::kTypeBool)},   {"str", Val::Of(Builtin::kTypeStr)},
      {"list", Val::Of(Builtin::kTypeList)},   {"dict", Val::Of(Builtin::kTypeDict)},
      {"set", Val::Of(Builtin::kTypeSet)},
  };
  return *scope;
}

bool ImportAllowed(const std::string& module, Val* out) {
  if (module == "math") *out = Val::Of(Module::kMath);
  else if (module == "yaml") *out = Val::Of(Module::kYaml);
  else if (module == "sys") *out = Val::Of(Module::kSys);
  else return false;
  return true;
}

bool FromImportAllowed(const std::string& module, const std::string& name, Val* out) {
  if (module == "dataclasses" && name == "replace") {
    *out = Val::Of(Builtin::kReplace);
    return true;
  }
  if (module == "math") {
    static const char* kFns[] = {"log2", "log", "log10", "ceil", "floor", "isclose", "sqrt", "exp", "fabs",
                                 "isnan", "isinf", "isfinite", "pi", "e", "inf", "nan"};
    for (const char* f : kFns) {
      if (name == f) {
        *out = Val::Str(std::string("math.") + f);  // resolved at call time
        return true;
      }
    }
  }
  return false;
}

Status ValidateStmts(const std::vector<NodePtr>& stmts);

Status ValidateNode(const Node& n) {
  if (n.kind == NodeKind::kImport) {
    for (const auto& m : n.modules) {
      Val unused;
      if (!ImportAllowed(m, &unused)) {
        return Status::InvalidArgument("line " + std::to_string(n.line) + ": ImportError: import of '" + m +
                                       "' is not allowed in rule code (allowed: math, yaml, sys)");
      }
    }
  } else if (n.kind == NodeKind::kImportFrom) {
    for (const auto& m : n.modules) {
      Val unused;
      if (!FromImportAllowed(n.name, m, &unused)) {
        return Status::InvalidArgument("line " + std::to_string(n.line) + ": ImportError: 'from " + n.name +
                                       " import " + m +
                                       "' is not allowed in rule code (allowed: from dataclasses import replace, "
                                       "from math import ...)");
      }
    }
  }
  PODBENCH_RETURN_IF_ERROR(ValidateStmts(n.body));
  return ValidateStmts(n.orelse);
}

Status ValidateStmts(const std::vector<NodePtr>& stmts) {
  for (const auto& s : stmts) PODBENCH_RETURN_IF_ERROR(ValidateNode(*s));
  return Status::Ok();
}

}  // namespace

Status ValidateImports(const Program& program) {
  if (program.is_expression) return Status::Ok();
  return ValidateStmts(program.stmts);
}

class Evaluator {
 public:
  explicit Evaluator(Interpreter* in) : in_(in), steps_(in->budget_) {}

  Val Eval(const Node& n) {
    Step(n);
    switch (n.kind) {
      case NodeKind::kConst: return n.constant;
      case NodeKind::kName: return LookupName(n);
      case NodeKind::kList: {
        std::vector<Val> items;
        items.reserve(n.kids.size());
        for (const auto& k : n.kids) items.push_back(Eval(*k));
        return Val::NewList(std::move(items));
      }
      case NodeKind::kSet: {
        Val s = Val::NewSet();
        for (const auto& k : n.kids) s.set().Set(Eval(*k), Val());
        return s;
      }
      case NodeKind::kDict: {
        Val d = Val::NewDict();
        for (size_t i = 0; i + 1 < n.kids.size(); i += 2) {
          Val k = Eval(*n.kids[i]);
          d.dict().Set(k, Eval(*n.kids[i + 1]));
        }
        return d;
      }
      case NodeKind::kSubscript: return Subscript(Eval(*n.kids[0]), Eval(*n.kids[1]));
      case NodeKind::kAttr: return Attribute(n, Eval(*n.kids[0]));
      case NodeKind::kCall: return Call(n);
      case NodeKind::kUnary: {
        Val x = Eval(*n.kids[0]);
        if (n.op == Op::kNot) return Val::Bool(!Truthy(x));
        if (!x.is_number()) {
          Raise("TypeError", std::string("bad operand type for unary ") + (n.op == Op::kNeg ? "-" : "+") + ": '" + TypeName(x) + "'");
        }
        if (n.op == Op::kPos) return x.kind() == Kind::kBool ? Val::Int(x.as_int()) : x;
        if (x.kind() == Kind::kFloat) return Val::Float(-x.as_float());
        return IntOrFloat(-static_cast<i128>(x.as_int()));
      }
      case NodeKind::kBinary: {
        Val a = Eval(*n.kids[0]);
        Val b = Eval(*n.kids[1]);
        return Arith(n.op, a, b);
      }
      case NodeKind::kAnd: {
        Val x;
        for (const auto& k : n.kids) {
          x = Eval(*k);
          if (!Truthy(x)) return x;
        }
        return x;
      }
      case NodeKind::kOr: {
        Val x;
        for (const auto& k : n.kids) {
          x = Eval(*k);
          if (Truthy(x)) return x;
        }
        return x;
      }
      case NodeKind::kCompare: {
        Val lhs = Eval(*n.kids[0]);
        for (size_t i = 0; i < n.ops.size(); ++i) {
          Val rhs = Eval(*n.kids[i + 1]);
          if (!Compare(n.ops[i], lhs, rhs)) return Val::Bool(false);
          lhs = std::move(rhs);
        }
        return Val::Bool(true);
      }
      case NodeKind::kIfExp: return Truthy(Eval(*n.kids[1])) ? Eval(*n.kids[0]) : Eval(*n.kids[2]);
      default: Raise("SystemError", "statement in expression position");
    }
  }

  void Exec(const std::vector<NodePtr>& stmts) {
    for (const auto& s : stmts) ExecOne(*s);
  }

  int current_line() const { return line_; }

 private:
  // Records that `v` is being stored into an existing container.
  void NoteStore(const Val& v) {
    Kind k = v.kind();
    if (k == Kind::kList || k == Kind::kDict || k == Kind::kSet || k == Kind::kLine) in_->may_have_cycles_ = true;
  }
  void NoteStoreAll(const std::vector<Val>& items) {
    for (const auto& v : items) NoteStore(v);
  }
  void Step(const Node& n) {
    line_ = n.line;
    if (--steps_ < 0) Raise("RuntimeError", "execution budget exceeded (rule code runs too long)");
  }

  Val LookupName(const Node& n) {
    auto it = in_->globals_.find(n.name);
    if (it != in_->globals_.end()) return it->second;
    const auto& b = BuiltinScope();
    auto bit = b.find(n.name);
    if (bit != b.end()) return bit->second;
    Raise("NameError", "name '" + n.name + "' is not defined");
  }

  static int64_t ListIndex(const Val& idx, size_t size, const char* what) {
    if (!IsIntLike(idx)) Raise("TypeError", std::string(what) + " indices must be integers, not " + TypeName(idx));
    int64_t i = idx.as_int();
    if (i < 0) i += static_cast<int64_t>(size);
    if (i < 0 || static_cast<size_t>(i) >= size) Raise("IndexError", std::string(what) + " index out of range");
    return i;
  }

  static Val Subscript(const Val& obj, const Val& idx) {
    switch (obj.kind()) {
      case Kind::kList: return obj.list()[static_cast<size_t>(ListIndex(idx, obj.list().size(), "list"))];
      case Kind::kDict: {
        Val* v = obj.dict().Find(idx);
        if (!v) Raise("KeyError", Repr(idx));
        return *v;
      }
      case Kind::kStr: {
        auto chars = Utf8Chars(obj.str());
        return Val::Str(chars[static_cast<size_t>(ListIndex(idx, chars.size(), "string"))]);
      }
      default: Raise("TypeError", "'" + TypeName(obj) + "' object is not subscriptable");
    }
  }

  static Val* LineField(LineObj& l, const std::string& name) {
    if (name == "value") return &l.value;
    if (name == "key") return &l.key;
    if (name == "timestamp") return &l.timestamp;
    if (name == "lineno") return &l.lineno;
    if (name == "full_string") return &l.full_string;
    return nullptr;
  }

  static Val Attribute(const Node& n, const Val& obj) {
    if (obj.kind() == Kind::kLine) {
      if (Val* f = LineField(obj.line(), n.name)) return *f;
    } else if (obj.kind() == Kind::kModule) {
      if (obj.module() == Module::kMath) {
        if (n.name == "pi") return Val::Float(M_PI);
        if (n.name == "e") return Val::Float(M_E);
        if (n.name == "inf") return Val::Float(std::numeric_limits<double>::infinity());
        if (n.name == "nan") return Val::Float(std::numeric_limits<double>::quiet_NaN());
      } else if (obj.module() == Module::kSys && n.name == "stdout") {
        return Val::Of(Module::kSysStdout);
      }
    }
    Raise("AttributeError", "'" + TypeName(obj) + "' object has no attribute '" + n.name +
                                "' (attribute reads other than fields and method calls are not supported)");
  }

  void Assign(const Node& target, const Val& value) {
    switch (target.kind) {
      case NodeKind::kName: in_->globals_[target.name] = value; return;
      case NodeKind::kSubscript: {
        Val obj = Eval(*target.kids[0]);
        Val idx = Eval(*target.kids[1]);
        NoteStore(value);
        if (obj.kind() == Kind::kDict) {
          obj.dict().Set(idx, value);
        } else if (obj.kind() == Kind::kList) {
          obj.list()[static_cast<size_t>(ListIndex(idx, obj.list().size(), "list assignment"))] = value;
        } else {
          Raise("TypeError", "'" + TypeName(obj) + "' object does not support item assignment");
        }
        return;
      }
      case NodeKind::kAttr: {
        Val obj = Eval(*target.kids[0]);
        if (obj.kind() == Kind::kLine) {
          if (Val* f = LineField(obj.line(), target.name)) {
            NoteStore(value);
            *f = value;
            return;
          }
        }
        Raise("AttributeError", "'" + TypeName(obj) + "' object attribute '" + target.name + "' cannot be set");
      }
      default: Raise("SyntaxError", "cannot assign");
    }
  }

  void ExecOne(const Node& n) {
    Step(n);
    switch (n.kind) {
      case NodeKind::kExprStmt: (void)Eval(*n.kids[0]); return;
      case NodeKind::kAssign: {
        Val value = Eval(*n.kids.back());
        for (size_t i = 0; i + 1 < n.kids.size(); ++i) Assign(*n.kids[i], value);
        return;
      }
      case NodeKind::kAugAssign: {
        const Node& target = *n.kids[0];
        // Evaluate the container and index once, as Python does.
        Val obj, idx, current;
        if (target.kind == NodeKind::kSubscript) {
          obj = Eval(*target.kids[0]);
          idx = Eval(*target.kids[1]);
          current = Subscript(obj, idx);
        } else if (target.kind == NodeKind::kAttr) {
          obj = Eval(*target.kids[0]);
          current = Attribute(target, obj);
        } else {
          current = Eval(target);
        }
        Val rhs = Eval(*n.kids[1]);
        Val result;
        NoteStore(rhs);
        if (n.op == Op::kAdd && current.kind() == Kind::kList) {
          std::vector<Val> extra = Iterate(rhs);  // list += iterable extends in place
          NoteStoreAll(extra);
          if (current.list().size() + extra.size() > kMaxContainer) Raise("MemoryError", "list too large");
          current.list().insert(current.list().end(), extra.begin(), extra.end());
          result = current;
        } else {
          result = Arith(n.op, current, rhs);
        }
        if (target.kind == NodeKind::kSubscript) {
          if (obj.kind() == Kind::kDict) obj.dict().Set(idx, result);
          else if (obj.kind() == Kind::kList) obj.list()[static_cast<size_t>(ListIndex(idx, obj.list().size(), "list"))] = result;
          else Raise("TypeError", "'" + TypeName(obj) + "' object does not support item assignment");
        } else if (target.kind == NodeKind::kAttr) {
          *LineField(obj.line(), target.name) = result;
        } else {
          in_->globals_[target.name] = result;
        }
        return;
      }
      case NodeKind::kIf:
        if (Truthy(Eval(*n.kids[0]))) Exec(n.body);
        else Exec(n.orelse);
        return;
      case NodeKind::kFor: {
        Val iterable = Eval(*n.kids[0]);
        if (iterable.kind() == Kind::kList) {
          // A list is iterated live, by index, as Python does.
          for (size_t i = 0; i < iterable.list().size(); ++i) {
            in_->globals_[n.name] = iterable.list()[i];
            Step(n);
            Exec(n.body);
          }
        } else {
          for (auto& x : Iterate(iterable)) {
            in_->globals_[n.name] = std::move(x);
            Step(n);
            Exec(n.body);
          }
        }
        return;
      }
      case NodeKind::kPass: return;
      case NodeKind::kImport:
        for (size_t i = 0; i < n.modules.size(); ++i) {
          Val m;
          if (!ImportAllowed(n.modules[i], &m)) Raise("ImportError", "import of '" + n.modules[i] + "' is not allowed in rule code");
          in_->globals_[n.kw_names[i].empty() ? n.modules[i] : n.kw_names[i]] = m;
        }
        return;
      case NodeKind::kImportFrom:
        for (size_t i = 0; i < n.modules.size(); ++i) {
          Val f;
          if (!FromImportAllowed(n.name, n.modules[i], &f)) Raise("ImportError", "'from " + n.name + " import " + n.modules[i] + "' is not allowed in rule code");
          if (f.kind() == Kind::kStr) f = MathMember(f.str().substr(5));
          in_->globals_[n.kw_names[i].empty() ? n.modules[i] : n.kw_names[i]] = f;
        }
        return;
      default: (void)Eval(n); return;
    }
  }

  // `from math import x`: constants become values; functions become a bound
  // reference kept as a one-element list [module, name] is overkill, so math
  // functions imported by name are rejected at call time with a clear error.
  static Val MathMember(const std::string& name) {
    if (name == "pi") return Val::Float(M_PI);
    if (name == "e") return Val::Float(M_E);
    if (name == "inf") return Val::Float(std::numeric_limits<double>::infinity());
    if (name == "nan") return Val::Float(std::numeric_limits<double>::quiet_NaN());
    return Val::Str("<math." + name + ">");
  }

  static void NoKwargs(const Node& n, const char* fn) {
    if (!n.kw_names.empty()) Raise("TypeError", std::string(fn) + "() takes no keyword arguments");
  }
  static void ArgCount(const std::vector<Val>& args, size_t lo, size_t hi, const std::string& fn) {
    if (args.size() < lo || args.size() > hi) {
      Raise("TypeError", fn + "() takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                             " arguments (" + std::to_string(args.size()) + " given)");
    }
  }

  Val Call(const Node& n) {
    size_t nkw = n.kw_names.size();
    size_t npos = n.kids.size() - 1 - nkw;
    auto eval_args = [&](std::vector<Val>* pos, std::vector<Val>* kw) {
      for (size_t i = 0; i < npos; ++i) pos->push_back(Eval(*n.kids[1 + i]));
      for (size_t i = 0; i < nkw; ++i) kw->push_back(Eval(*n.kids[1 + npos + i]));
    };
    const Node& callee = *n.kids[0];
    std::vector<Val> args, kw;
    if (callee.kind == NodeKind::kAttr) {
      Val self = Eval(*callee.kids[0]);
      eval_args(&args, &kw);
      return CallMethod(n, self, callee.name, args, kw);
    }
    Val fn = Eval(callee);
    eval_args(&args, &kw);
    if (fn.kind() != Kind::kBuiltin) Raise("TypeError", "'" + TypeName(fn) + "' object is not callable");
    return CallBuiltin(n, fn.builtin(), args, kw);
  }

  Val MinMax(const std::vector<Val>& args, bool is_min, const char* fn) {
    std::vector<Val> items = args.size() == 1 ? Iterate(args[0]) : args;
    if (items.empty()) Raise("ValueError", std::string(fn) + "() arg is an empty sequence");
    Val best = items[0];
    for (size_t i = 1; i < items.size(); ++i) {
      if (is_min ? Less(items[i], best) : Less(best, items[i])) best = items[i];
    }
    return best;
  }

  Val CallBuiltin(const Node& n, Builtin b, std::vector<Val>& args, std::vector<Val>& kw) {
    switch (b) {
      case Builtin::kLen: {
        NoKwargs(n, "len");
        ArgCount(args, 1, 1, "len");
        const Val& x = args[0];
        switch (x.kind()) {
          case Kind::kStr: return Val::Int(static_cast<int64_t>(Utf8Chars(x.str()).size()));
          case Kind::kList: return Val::Int(static_cast<int64_t>(x.list().size()));
          case Kind::kDict:
          case Kind::kSet: return Val::Int(static_cast<int64_t>(x.dict().size()));
          default: Raise("TypeError", "object of type '" + TypeName(x) + "' has no len()");
        }
      }
      case Builtin::kMin:
      case Builtin::kMax:
        NoKwargs(n, b == Builtin::kMin ? "min" : "max");
        if (args.empty()) Raise("TypeError", "expected at least 1 argument, got 0");
        return MinMax(args, b == Builtin::kMin, b == Builtin::kMin ? "min" : "max");
      case Builtin::kAbs: {
        NoKwargs(n, "abs");
        ArgCount(args, 1, 1, "abs");
        const Val& x = args[0];
        if (x.kind() == Kind::kFloat) return Val::Float(std::fabs(x.as_float()));
        if (IsIntLike(x)) return IntOrFloat(x.as_int() < 0 ? -static_cast<i128>(x.as_int()) : x.as_int());
        Raise("TypeError", "bad operand type for abs(): '" + TypeName(x) + "'");
      }
      case Builtin::kSorted: {
        ArgCount(args, 1, 1, "sorted");
        bool reverse = false;
        for (size_t i = 0; i < kw.size(); ++i) {
          if (n.kw_names[i] != "reverse") Raise("TypeError", "sorted() got an unexpected keyword argument '" + n.kw_names[i] + "'");
          reverse = Truthy(kw[i]);
        }
        std::vector<Val> items = Iterate(args[0]);
        std::stable_sort(items.begin(), items.end(), [&](const Val& x, const Val& y) { return reverse ? Less(y, x) : Less(x, y); });
        return Val::NewList(std::move(items));
      }
      case Builtin::kIsInstance: {
        NoKwargs(n, "isinstance");
        ArgCount(args, 2, 2, "isinstance");
        const Val& t = args[1];
        if (t.kind() == Kind::kBuiltin && t.builtin() <= Builtin::kTypeLine) return Val::Bool(IsInstanceOf(args[0], t.builtin()));
        Raise("TypeError", "isinstance() arg 2 must be a type");
      }
      case Builtin::kType:
        NoKwargs(n, "type");
        ArgCount(args, 1, 1, "type");
        return Val::Of(TypeOf(args[0]));
      case Builtin::kPrint: {
        std::string sep = " ", end = "\n";
        for (size_t i = 0; i < kw.size(); ++i) {
          if (n.kw_names[i] == "sep" && kw[i].kind() == Kind::kStr) sep = kw[i].str();
          else if (n.kw_names[i] == "end" && kw[i].kind() == Kind::kStr) end = kw[i].str();
          else Raise("TypeError", "print() got an unsupported keyword argument '" + n.kw_names[i] + "'");
        }
        std::string line;
        for (size_t i = 0; i < args.size(); ++i) {
          if (i) line += sep;
          line += Str(args[i]);
        }
        line += end;
        if (in_->host_.print) in_->host_.print(line);
        return Val();
      }
      case Builtin::kRound: {
        NoKwargs(n, "round");
        ArgCount(args, 1, 2, "round");
        if (!args[0].is_number()) Raise("TypeError", "type " + TypeName(args[0]) + " doesn't define __round__ method");
        if (args.size() == 1 || args[1].is_none()) {
          if (args[0].kind() != Kind::kFloat) return Val::Int(args[0].as_int());
          return Val::Int(RoundHalfEven(args[0].as_float()));
        }
        if (!IsIntLike(args[1])) Raise("TypeError", "'" + TypeName(args[1]) + "' object cannot be interpreted as an integer");
        if (args[0].kind() != Kind::kFloat) return Val::Int(args[0].as_int());
        double scale = std::pow(10.0, static_cast<double>(args[1].as_int()));
        double x = args[0].as_float();
        double r = std::nearbyint(x * scale) / scale;
        return Val::Float(std::isfinite(r) ? r : x);
      }
      case Builtin::kSum: {
        NoKwargs(n, "sum");
        ArgCount(args, 1, 2, "sum");
        Val total = args.size() == 2 ? args[1] : Val::Int(0);
        for (const auto& x : Iterate(args[0])) total = Arith(Op::kAdd, total, x);
        return total;
      }
      case Builtin::kAny:
      case Builtin::kAll: {
        NoKwargs(n, "any");
        ArgCount(args, 1, 1, b == Builtin::kAny ? "any" : "all");
        for (const auto& x : Iterate(args[0])) {
          if (Truthy(x) == (b == Builtin::kAny)) return Val::Bool(b == Builtin::kAny);
        }
        return Val::Bool(b != Builtin::kAny);
      }
      case Builtin::kIsInteger: {
        // The official checker: abs(round(value) - value) < 0.00001
        NoKwargs(n, "is_integer");
        ArgCount(args, 1, 1, "is_integer");
        const Val& x = args[0];
        if (!x.is_number()) Raise("TypeError", "type " + TypeName(x) + " doesn't define __round__ method");
        if (x.kind() != Kind::kFloat) return Val::Bool(true);
        double r = static_cast<double>(RoundHalfEven(x.as_float()));
        return Val::Bool(std::fabs(r - x.as_float()) < 0.00001);
      }
      case Builtin::kEnqueueConfig: {
        NoKwargs(n, "enqueue_config");
        ArgCount(args, 1, 1, "enqueue_config");
        if (args[0].kind() != Kind::kStr) Raise("TypeError", "enqueue_config() needs a str path, not " + TypeName(args[0]));
        if (in_->host_.enqueue_config) in_->host_.enqueue_config(args[0].str());
        return Val();
      }
      case Builtin::kReplace: {
        ArgCount(args, 1, 1, "replace");
        if (args[0].kind() != Kind::kLine) Raise("TypeError", "replace() should be called on dataclass instances");
        auto copy = std::make_shared<LineObj>(args[0].line());
        for (size_t i = 0; i < kw.size(); ++i) {
          Val* f = LineField(*copy, n.kw_names[i]);
          if (!f) Raise("TypeError", "LogLine.__init__() got an unexpected keyword argument '" + n.kw_names[i] + "'");
          *f = kw[i];
        }
        return Val::FromObject(Kind::kLine, std::move(copy));
      }
      case Builtin::kTypeBool:
        NoKwargs(n, "bool");
        ArgCount(args, 0, 1, "bool");
        return Val::Bool(!args.empty() && Truthy(args[0]));
      case Builtin::kTypeInt: {
        NoKwargs(n, "int");
        ArgCount(args, 0, 1, "int");
        if (args.empty()) return Val::Int(0);
        const Val& x = args[0];
        if (IsIntLike(x)) return Val::Int(x.as_int());
        if (x.kind() == Kind::kFloat) {
          double d = x.as_float();
          if (std::isnan(d)) Raise("ValueError", "cannot convert float NaN to integer");
          if (std::isinf(d)) Raise("OverflowError", "cannot convert float infinity to integer");
          if (std::fabs(d) >= 9.2e18) return Val::Float(std::trunc(d));
          return Val::Int(static_cast<int64_t>(d));
        }
        if (x.kind() == Kind::kStr) {
          std::string s = x.str();
          s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
          size_t b0 = s.find_first_not_of(" \t\n"), e0 = s.find_last_not_of(" \t\n");
          if (b0 != std::string::npos) s = s.substr(b0, e0 - b0 + 1);
          char* end = nullptr;
          errno = 0;
          long long v = std::strtoll(s.c_str(), &end, 10);
          if (s.empty() || *end != '\0' || errno == ERANGE) Raise("ValueError", "invalid literal for int() with base 10: " + Repr(x));
          return Val::Int(v);
        }
        Raise("TypeError", "int() argument must be a string or a number, not '" + TypeName(x) + "'");
      }
      case Builtin::kTypeFloat: {
        NoKwargs(n, "float");
        ArgCount(args, 0, 1, "float");
        if (args.empty()) return Val::Float(0);
        const Val& x = args[0];
        if (x.is_number()) return Val::Float(x.to_double());
        if (x.kind() == Kind::kStr) {
          std::string s = x.str();
          size_t b0 = s.find_first_not_of(" \t\n"), e0 = s.find_last_not_of(" \t\n");
          s = b0 == std::string::npos ? "" : s.substr(b0, e0 - b0 + 1);
          std::string lower = s;
          for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          std::string body = (!lower.empty() && (lower[0] == '+' || lower[0] == '-')) ? lower.substr(1) : lower;
          bool neg = !lower.empty() && lower[0] == '-';
          if (body == "inf" || body == "infinity") return Val::Float(neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
          if (body == "nan") return Val::Float(std::numeric_limits<double>::quiet_NaN());
          bool ok = !body.empty();
          for (char c : body) {
            if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != '+' && c != '-' && c != '_') ok = false;
          }
          char* end = nullptr;
          double d = ok ? std::strtod(s.c_str(), &end) : 0;
          if (!ok || *end != '\0') Raise("ValueError", "could not convert string to float: " + Repr(x));
          return Val::Float(d);
        }
        Raise("TypeError", "float() argument must be a string or a real number, not '" + TypeName(x) + "'");
      }
      case Builtin::kTypeStr:
        NoKwargs(n, "str");
        ArgCount(args, 0, 1, "str");
        return Val::Str(args.empty() ? "" : Str(args[0]));
      case Builtin::kTypeList:
        NoKwargs(n, "list");
        ArgCount(args, 0, 1, "list");
        return Val::NewList(args.empty() ? std::vector<Val>{} : Iterate(args[0]));
      case Builtin::kTypeSet: {
        NoKwargs(n, "set");
        ArgCount(args, 0, 1, "set");
        Val s = Val::NewSet();
        if (!args.empty()) {
          for (const auto& x : Iterate(args[0])) s.set().Set(x, Val());
        }
        return s;
      }
      case Builtin::kTypeDict: {
        ArgCount(args, 0, 1, "dict");
        Val d = Val::NewDict();
        if (!args.empty()) {
          if (args[0].kind() != Kind::kDict) Raise("TypeError", "dict() argument must be a dict here, not " + TypeName(args[0]));
          for (const auto& e : args[0].dict().entries()) d.dict().Set(e.first, e.second);
        }
        for (size_t i = 0; i < kw.size(); ++i) d.dict().Set(Val::Str(n.kw_names[i]), kw[i]);
        return d;
      }
      default: Raise("TypeError", "cannot create '" + Str(Val::Of(b)) + "' instances");
    }
  }

  Val CallMath(const Node& n, const std::string& name, std::vector<Val>& args, std::vector<Val>& kw) {
    auto one = [&](const char* fn) {
      NoKwargs(n, fn);
      ArgCount(args, 1, 1, std::string("math.") + fn);
      return ToFloat(args[0], fn);
    };
    auto domain = [](bool bad) {
      if (bad) Raise("ValueError", "math domain error");
    };
    if (name == "log2") { double x = one("log2"); domain(x <= 0); return Val::Float(std::log2(x)); }
    if (name == "log10") { double x = one("log10"); domain(x <= 0); return Val::Float(std::log10(x)); }
    if (name == "sqrt") { double x = one("sqrt"); domain(x < 0); return Val::Float(std::sqrt(x)); }
    if (name == "exp") {
      double r = std::exp(one("exp"));
      if (std::isinf(r)) Raise("OverflowError", "math range error");
      return Val::Float(r);
    }
    if (name == "fabs") return Val::Float(std::fabs(one("fabs")));
    if (name == "isnan") return Val::Bool(std::isnan(one("isnan")));
    if (name == "isinf") return Val::Bool(std::isinf(one("isinf")));
    if (name == "isfinite") return Val::Bool(std::isfinite(one("isfinite")));
    if (name == "ceil" || name == "floor") {
      NoKwargs(n, name.c_str());
      ArgCount(args, 1, 1, "math." + name);
      if (IsIntLike(args[0])) return Val::Int(args[0].as_int());
      double x = ToFloat(args[0], name.c_str());
      double r = name == "ceil" ? std::ceil(x) : std::floor(x);
      if (std::isnan(r)) Raise("ValueError", "cannot convert float NaN to integer");
      if (std::isinf(r)) Raise("OverflowError", "cannot convert float infinity to integer");
      if (std::fabs(r) >= 9.2e18) return Val::Float(r);
      return Val::Int(static_cast<int64_t>(r));
    }
    if (name == "log") {
      NoKwargs(n, "log");
      ArgCount(args, 1, 2, "math.log");
      double x = ToFloat(args[0], "log");
      domain(x <= 0);
      if (args.size() == 1) return Val::Float(std::log(x));
      double base = ToFloat(args[1], "log");
      domain(base <= 0);
      if (base == 1) Raise("ZeroDivisionError", "float division by zero");
      return Val::Float(std::log(x) / std::log(base));
    }
    if (name == "isclose") {
      ArgCount(args, 2, 2, "math.isclose");
      double a = ToFloat(args[0], "isclose"), b = ToFloat(args[1], "isclose");
      double rel = 1e-9, abs_tol = 0;
      for (size_t i = 0; i < kw.size(); ++i) {
        if (n.kw_names[i] == "rel_tol") rel = ToFloat(kw[i], "isclose");
        else if (n.kw_names[i] == "abs_tol") abs_tol = ToFloat(kw[i], "isclose");
        else Raise("TypeError", "isclose() got an unexpected keyword argument '" + n.kw_names[i] + "'");
      }
      if (rel < 0 || abs_tol < 0) Raise("ValueError", "tolerances must be non-negative");
      if (a == b) return Val::Bool(true);
      if (std::isinf(a) || std::isinf(b)) return Val::Bool(false);
      double diff = std::fabs(b - a);
      return Val::Bool(diff <= std::fabs(rel * b) || diff <= std::fabs(rel * a) || diff <= abs_tol);
    }
    Raise("AttributeError", "module 'math' has no attribute '" + name + "' (or it is not supported)");
  }

  Val CallMethod(const Node& n, Val& self, const std::string& name, std::vector<Val>& args, std::vector<Val>& kw) {
    auto no_method = [&]() -> Val {
      Raise("AttributeError", "'" + TypeName(self) + "' object has no attribute '" + name + "'");
    };
    switch (self.kind()) {
      case Kind::kModule:
        if (self.module() == Module::kMath) return CallMath(n, name, args, kw);
        if (self.module() == Module::kYaml && name == "safe_dump") {
          ArgCount(args, 1, 2, "yaml.safe_dump");
          for (const auto& k : n.kw_names) {
            if (k != "default_flow_style" && k != "stream" && k != "sort_keys") Raise("TypeError", "safe_dump() got an unsupported keyword argument '" + k + "'");
          }
          std::string out;
          YamlDump(args[0], 0, &out, 0);
          bool to_stdout = args.size() == 2 && args[1].kind() == Kind::kModule && args[1].module() == Module::kSysStdout;
          for (size_t i = 0; i < kw.size(); ++i) {
            if (n.kw_names[i] == "stream" && kw[i].kind() == Kind::kModule && kw[i].module() == Module::kSysStdout) to_stdout = true;
          }
          if (args.size() == 2 && !to_stdout && !args[1].is_none()) Raise("TypeError", "safe_dump() can only write to sys.stdout in rule code");
          if (to_stdout) {
            if (in_->host_.print) in_->host_.print(out);
            return Val();
          }
          return Val::Str(out);
        }
        if (self.module() == Module::kSysStdout && name == "write") {
          ArgCount(args, 1, 1, "write");
          if (args[0].kind() != Kind::kStr) Raise("TypeError", "write() argument must be str, not " + TypeName(args[0]));
          if (in_->host_.print) in_->host_.print(args[0].str());
          return Val::Int(static_cast<int64_t>(args[0].str().size()));
        }
        return no_method();
      case Kind::kDict: {
        DictObj& d = self.dict();
        if (name == "get") {
          NoKwargs(n, "get");
          ArgCount(args, 1, 2, "get");
          Val* v = d.Find(args[0]);
          return v ? *v : (args.size() == 2 ? args[1] : Val());
        }
        if (name == "update") {
          ArgCount(args, 0, 1, "update");
          if (!args.empty()) {
            if (args[0].kind() != Kind::kDict) Raise("TypeError", "update() needs a dict here, not " + TypeName(args[0]));
            // Copy first: d.update(d) must not iterate a vector it grows.
            auto entries = args[0].dict().entries();
            for (const auto& e : entries) {
              NoteStore(e.second);
              d.Set(e.first, e.second);
            }
          }
          NoteStoreAll(kw);
          for (size_t i = 0; i < kw.size(); ++i) d.Set(Val::Str(n.kw_names[i]), kw[i]);
          return Val();
        }
        NoKwargs(n, name.c_str());
        if (name == "values" || name == "keys") {
          ArgCount(args, 0, 0, name);
          std::vector<Val> out;
          for (const auto& e : d.entries()) out.push_back(name == "values" ? e.second : e.first);
          return Val::NewList(std::move(out));
        }
        if (name == "copy") {
          ArgCount(args, 0, 0, name);
          Val c = Val::NewDict();
          for (const auto& e : d.entries()) c.dict().Set(e.first, e.second);
          return c;
        }
        if (name == "setdefault") {
          ArgCount(args, 1, 2, name);
          if (Val* v = d.Find(args[0])) return *v;
          Val dflt = args.size() == 2 ? args[1] : Val();
          NoteStore(dflt);
          d.Set(args[0], dflt);
          return dflt;
        }
        return no_method();
      }
      case Kind::kList: {
        NoKwargs(n, name.c_str());
        auto& items = self.list();
        if (name == "append") {
          ArgCount(args, 1, 1, name);
          if (items.size() >= kMaxContainer) Raise("MemoryError", "list too large");
          NoteStore(args[0]);
          items.push_back(args[0]);
          return Val();
        }
        if (name == "extend") {
          ArgCount(args, 1, 1, name);
          std::vector<Val> extra = Iterate(args[0]);
          if (items.size() + extra.size() > kMaxContainer) Raise("MemoryError", "list too large");
          NoteStoreAll(extra);
          items.insert(items.end(), extra.begin(), extra.end());
          return Val();
        }
        if (name == "count") {
          ArgCount(args, 1, 1, name);
          int64_t c = 0;
          for (const auto& x : items) c += Equal(x, args[0]) ? 1 : 0;
          return Val::Int(c);
        }
        if (name == "index") {
          ArgCount(args, 1, 1, name);
          for (size_t i = 0; i < items.size(); ++i) {
            if (Equal(items[i], args[0])) return Val::Int(static_cast<int64_t>(i));
          }
          Raise("ValueError", Repr(args[0]) + " is not in list");
        }
        return no_method();
      }
      case Kind::kSet:
        NoKwargs(n, name.c_str());
        if (name == "add") {
          ArgCount(args, 1, 1, name);
          if (self.set().size() >= kMaxContainer) Raise("MemoryError", "set too large");
          self.set().Set(args[0], Val());
          return Val();
        }
        return no_method();
      case Kind::kStr: {
        const std::string& s = self.str();
        if (name == "format") {
          if (!kw.empty()) Raise("TypeError", "format() keyword arguments are not supported");
          return Val::Str(StrFormat(s, args));
        }
        NoKwargs(n, name.c_str());
        if (name == "lower" || name == "upper") {
          ArgCount(args, 0, 0, name);
          std::string out = s;
          for (auto& c : out) c = static_cast<char>(name == "lower" ? std::tolower(static_cast<unsigned char>(c)) : std::toupper(static_cast<unsigned char>(c)));
          return Val::Str(std::move(out));
        }
        if (name == "strip") {
          ArgCount(args, 0, 0, name);
          size_t b0 = s.find_first_not_of(" \t\n\r\f\v"), e0 = s.find_last_not_of(" \t\n\r\f\v");
          return Val::Str(b0 == std::string::npos ? "" : s.substr(b0, e0 - b0 + 1));
        }
        if (name == "startswith" || name == "endswith") {
          ArgCount(args, 1, 1, name);
          if (args[0].kind() != Kind::kStr) Raise("TypeError", name + " first arg must be str");
          const std::string& p = args[0].str();
          bool r = p.size() <= s.size() && (name == "startswith" ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
          return Val::Bool(r);
        }
        return no_method();
      }
      default: return no_method();
    }
  }

  Interpreter* in_;
  int64_t steps_;
  int line_ = 1;
};

Interpreter::Interpreter(Host host) : host_(std::move(host)) {}

const Val* Interpreter::FindGlobal(const std::string& name) const {
  auto it = globals_.find(name);
  return it == globals_.end() ? nullptr : &it->second;
}

namespace {
Status ErrorStatus(const PyError& e, int line) {
  return Status::FailedPrecondition("line " + std::to_string(line) + ": " + e.what());
}
}  // namespace

std::vector<Val> Interpreter::Globals() const {
  std::vector<Val> out;
  for (const auto& [name, v] : globals_) out.push_back(v);
  return out;
}

Result<Val> Interpreter::Eval(const Program& program) {
  Evaluator ev(this);
  try {
    if (program.is_expression) return ev.Eval(*program.expr);
    ev.Exec(program.stmts);
    return Val();
  } catch (const PyError& e) {
    return ErrorStatus(e, ev.current_line());
  } catch (const std::bad_alloc&) {
    return Status::FailedPrecondition("line " + std::to_string(ev.current_line()) + ": MemoryError");
  }
}

Result<bool> Interpreter::EvalTruth(const Program& program) {
  Evaluator ev(this);
  try {
    return Truthy(ev.Eval(*program.expr));
  } catch (const PyError& e) {
    return ErrorStatus(e, ev.current_line());
  } catch (const std::bad_alloc&) {
    return Status::FailedPrecondition("line " + std::to_string(ev.current_line()) + ": MemoryError");
  }
}

Status Interpreter::Exec(const Program& program) {
  Result<Val> r = Eval(program);
  return r.status();
}

}  // namespace podbench::rules::py
