// The embedded, sandboxed interpreter that runs rule-file code.
//
// Sandbox: rule code can only reach what this file provides: the names the
// host puts in the global scope, Python builtins that compute (len, min,
// sorted, ...; no open, exec, eval, getattr, __import__) and the modules the
// official rule files import, each a pure built-in: math, yaml (safe_dump
// only, writing to the host's print sink), sys (stdout only) and
// dataclasses.replace. Any other import is an ImportError. Each run has a
// step budget and containers have a size cap, so rule code cannot hang or
// exhaust memory.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"
#include "rules/py/ast.h"
#include "rules/py/value.h"

namespace podbench::rules::py {

// What rule code may call out to.
struct Host {
  // enqueue_config(path). May throw PyError to reject the path.
  std::function<void(const std::string&)> enqueue_config;
  // print() and yaml.safe_dump(..., sys.stdout) output, one call per write.
  std::function<void(const std::string&)> print;
};

// Python-level checks of a parsed program that need no execution: imports of
// anything but math, yaml, sys and `from dataclasses import replace` (or
// `from math import ...`) fail here with "line N: ImportError: ...".
Status ValidateImports(const Program& program);

// One global namespace (the official checker's per-file `state` dict) and the
// means to run programs in it. Not thread-safe; use one per thread.
class Interpreter {
 public:
  // Default step budget per Eval/Exec call.
  static constexpr int64_t kDefaultBudget = 20'000'000;

  explicit Interpreter(Host host = {});

  void SetGlobal(const std::string& name, Val v) { globals_[name] = std::move(v); }
  // The global `name` (created as None when unset), for hosts that set it
  // often: the pointer stays valid for the interpreter's life.
  Val* GlobalSlot(const std::string& name) { return &globals_[name]; }
  // nullptr when unset.
  const Val* FindGlobal(const std::string& name) const;
  void set_budget(int64_t steps) { budget_ = steps; }

  // Evaluates an expression program. Errors: "line N: TypeError: ..." etc.
  Result<Val> Eval(const Program& program);
  // Evaluates an expression program and applies Python truthiness.
  Result<bool> EvalTruth(const Program& program);
  // Runs a statements program (an expression program is evaluated and its value dropped).
  Status Exec(const Program& program);

  // The global values, for BreakCycles once nothing needs them.
  std::vector<Val> Globals() const;
  // True once rule code stored a list/dict/set/line into an existing
  // container: only then can it have made a reference cycle.
  bool may_have_cycles() const { return may_have_cycles_; }

 private:
  friend class Evaluator;
  Host host_;
  std::unordered_map<std::string, Val> globals_;
  int64_t budget_ = kDefaultBudget;
  bool may_have_cycles_ = false;
};

}  // namespace podbench::rules::py
