// The syntax tree of the Python subset rule files use, and its parser.
//
// Accepted: expressions (constants, names, list/dict/set literals, subscripts
// without slices, attributes, calls with positional and keyword arguments,
// unary - + not, binary + - * / // % ** |, and/or, chained comparisons incl.
// in / not in / is / is not, conditional expressions) and statements
// (expression, assignment to names/subscripts/attributes incl. chains,
// augmented assignment, if/elif/else, for NAME in EXPR, pass, import and
// from-import). Anything else (def, class, lambda, while, try, slices,
// tuples, comprehensions, f-strings) is a syntax error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rules/py/value.h"

namespace podbench::rules::py {

enum class NodeKind : uint8_t {
  // expressions
  kConst, kName, kList, kDict, kSet, kSubscript, kAttr, kCall, kUnary, kBinary, kAnd, kOr,
  kCompare, kIfExp,
  // statements
  kExprStmt, kAssign, kAugAssign, kIf, kFor, kPass, kImport, kImportFrom,
};

enum class Op : uint8_t {
  kNone,
  kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kBitOr,  // binary
  kNeg, kPos, kNot,                                        // unary
  kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn, kIs, kIsNot,  // comparison
};

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
  NodeKind kind;
  int line = 1;     // 1-based line within the code string
  Op op = Op::kNone;
  Val constant;      // kConst
  std::string name;  // kName, kAttr (attribute), kFor (loop variable)
  // Operands, in source order:
  //   kList/kSet: items; kDict: key, value, key, value...; kSubscript: obj, index;
  //   kAttr: obj; kCall: callee, positional args..., keyword values...;
  //   kUnary: operand; kBinary/kAugAssign: lhs, rhs; kAnd/kOr: operands;
  //   kCompare: first, then one operand per entry of `ops`; kIfExp: body, test, orelse;
  //   kExprStmt: expr; kAssign: targets..., value; kIf: test; kFor: iterable.
  std::vector<NodePtr> kids;
  std::vector<Op> ops;                 // kCompare
  std::vector<std::string> kw_names;   // kCall: names of the trailing keyword args
  std::vector<NodePtr> body, orelse;   // kIf, kFor
  // kImport: module names (with `as` names in kw_names); kImportFrom: module in
  // `name`, imported names in kw_names.
  std::vector<std::string> modules;

  Node(NodeKind k, int l) : kind(k), line(l) {}
};

// A parsed code string: one expression (eval mode) or statements (exec mode).
struct Program {
  bool is_expression = false;
  NodePtr expr;                 // eval mode
  std::vector<NodePtr> stmts;   // exec mode
};

// Parses `code` (already stripped of surrounding white space, as the official
// checker's `.strip()` does). Errors are Corruption statuses "line N: what".
// Nesting deeper than 64 levels is rejected, so hostile input cannot exhaust
// the stack.
Result<std::shared_ptr<const Program>> ParseExpression(std::string_view code);
Result<std::shared_ptr<const Program>> ParseStatements(std::string_view code);

}  // namespace podbench::rules::py
