// libFuzzer target: the interpreter. Each input is parsed as statements and
// as an expression, then run with a small step budget against a state like
// the checker's (s, v, ll-free), so hostile rule code must end in a value or
// a Python-level error, never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rules/py/ast.h"
#include "rules/py/interp.h"

using podbench::rules::py::Builtin;
using podbench::rules::py::Interpreter;
using podbench::rules::py::Module;
using podbench::rules::py::Val;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string code(reinterpret_cast<const char*>(data), size);
  Interpreter in(podbench::rules::py::Host{[](const std::string&) {}, [](const std::string&) {}});
  in.set_budget(20000);
  Val v = Val::NewDict();
  v.dict().Set(Val::Str("value"), Val::Float(0.75));
  v.dict().Set(Val::Str("metadata"), Val::NewDict());
  in.SetGlobal("v", v);
  in.SetGlobal("s", Val::NewDict());
  in.SetGlobal("math", Val::Of(Module::kMath));
  in.SetGlobal("is_integer", Val::Of(Builtin::kIsInteger));
  in.SetGlobal("enqueue_config", Val::Of(Builtin::kEnqueueConfig));
  if (auto p = podbench::rules::py::ParseStatements(code); p.ok()) {
    if (podbench::rules::py::ValidateImports(**p).ok()) (void)in.Exec(**p);
  }
  if (auto p = podbench::rules::py::ParseExpression(code); p.ok()) {
    auto r = in.Eval(**p);
    if (r.ok()) (void)podbench::rules::py::Repr(*r);
  }
  podbench::rules::py::BreakCycles(in.Globals());
  return 0;
}
