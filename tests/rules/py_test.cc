// Tests of the embedded Python-subset interpreter: Python semantics in every
// case the official rule files rely on, errors as values, and the sandbox.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/mllog/value.h"
#include "rules/py/ast.h"
#include "rules/py/interp.h"

namespace podbench::rules::py {
namespace {

class PyTest : public ::testing::Test {
 protected:
  PyTest() : interp_(Host{[this](const std::string& p) { enqueued_.push_back(p); },
                          [this](const std::string& s) { printed_ += s; }}) {
    interp_.SetGlobal("s", Val::NewDict());
    interp_.SetGlobal("is_integer", Val::Of(Builtin::kIsInteger));
    interp_.SetGlobal("enqueue_config", Val::Of(Builtin::kEnqueueConfig));
  }
  ~PyTest() override { BreakCycles(interp_.Globals()); }

  // repr() of the value of `expr`, or "ERROR: <status>".
  std::string E(const std::string& expr) {
    auto prog = ParseExpression(expr);
    if (!prog.ok()) return "SYNTAX: " + prog.status().message();
    auto v = interp_.Eval(**prog);
    if (!v.ok()) return "ERROR: " + v.status().message();
    return Repr(*v);
  }
  std::string X(const std::string& code) {
    auto prog = ParseStatements(code);
    if (!prog.ok()) return "SYNTAX: " + prog.status().message();
    Status st = ValidateImports(**prog);
    if (!st.ok()) return "IMPORT: " + st.message();
    st = interp_.Exec(**prog);
    return st.ok() ? "ok" : "ERROR: " + st.message();
  }

  Interpreter interp_;
  std::vector<std::string> enqueued_;
  std::string printed_;
};

TEST_F(PyTest, Truthiness) {
  EXPECT_EQ(E("not 0"), "True");
  EXPECT_EQ(E("not ''"), "True");
  EXPECT_EQ(E("not []"), "True");
  EXPECT_EQ(E("not {}"), "True");
  EXPECT_EQ(E("not None"), "True");
  EXPECT_EQ(E("not 0.0"), "True");
  EXPECT_EQ(E("not 'a'"), "False");
  EXPECT_EQ(E("not [0]"), "False");
}

TEST_F(PyTest, AndOrReturnOperands) {
  EXPECT_EQ(E("0 or 'x'"), "'x'");
  EXPECT_EQ(E("'' and 1"), "''");
  EXPECT_EQ(E("1 and [2]"), "[2]");
  EXPECT_EQ(E("None or 0"), "0");
  EXPECT_EQ(E("0 and 1/0"), "0");  // short circuit: no ZeroDivisionError
}

TEST_F(PyTest, NumericEquality) {
  EXPECT_EQ(E("True == 1"), "True");
  EXPECT_EQ(E("1 == 1.0"), "True");
  EXPECT_EQ(E("False == 0.0"), "True");
  EXPECT_EQ(E("'1' == 1"), "False");
  EXPECT_EQ(E("float('nan') == float('nan')"), "False");
  EXPECT_EQ(E("[1, 2.0] == [1.0, 2]"), "True");
  EXPECT_EQ(E("{'a': 1} == {'a': 1.0}"), "True");
  EXPECT_EQ(E("9007199254740993 == 9007199254740992.0"), "False");
}

TEST_F(PyTest, ChainedComparisonsAndIn) {
  EXPECT_EQ(E("1 <= 2 <= 3"), "True");
  EXPECT_EQ(E("1 <= 5 <= 3"), "False");
  EXPECT_EQ(E("1 < 2 > 0"), "True");
  EXPECT_EQ(E("'a' in ['a', 'b']"), "True");
  EXPECT_EQ(E("1 in [1.0]"), "True");
  EXPECT_EQ(E("'k' in {'k': 1}"), "True");
  EXPECT_EQ(E("'bc' in 'abcd'"), "True");
  EXPECT_EQ(E("'x' not in 'abcd'"), "True");
  EXPECT_EQ(E("True in {1: 'a'}"), "True");
}

TEST_F(PyTest, IsInstanceAndType) {
  EXPECT_EQ(E("isinstance(True, int)"), "True");
  EXPECT_EQ(E("isinstance(1, float)"), "False");
  EXPECT_EQ(E("isinstance(1.5, float)"), "True");
  EXPECT_EQ(E("isinstance(1, bool)"), "False");
  EXPECT_EQ(E("type(True) == bool"), "True");
  EXPECT_EQ(E("type(1) == bool"), "False");
}

TEST_F(PyTest, Arithmetic) {
  EXPECT_EQ(E("7 / 2"), "3.5");
  EXPECT_EQ(E("4 / 2"), "2.0");
  EXPECT_EQ(E("-7 // 2"), "-4");
  EXPECT_EQ(E("-7 % 3"), "2");
  EXPECT_EQ(E("2 ** 10"), "1024");
  EXPECT_EQ(E("2 ** -1"), "0.5");
  EXPECT_EQ(E("(256 / 1024) ** 0.5"), "0.5");
  EXPECT_EQ(E("True + True"), "2");
  EXPECT_EQ(E("True | False"), "True");
  EXPECT_EQ(E("'a' + 'b'"), "'ab'");
  EXPECT_EQ(E("[1] + [2]"), "[1, 2]");
  EXPECT_EQ(E("1_200_000 * 2"), "2400000");
  EXPECT_EQ(E("9e99 > 1"), "True");
  EXPECT_EQ(E("-(3)"), "-3");
  EXPECT_EQ(E("1e-08"), "1e-08");
  EXPECT_EQ(E("0.1 + 0.2"), "0.30000000000000004");
  EXPECT_EQ(E("1e16"), "1e+16");
  EXPECT_EQ(E("123456.0"), "123456.0");
}

TEST_F(PyTest, ConditionalExpressionAndLiterals) {
  EXPECT_EQ(E("240 if 'open' == 'open' else 30"), "240");
  EXPECT_EQ(E("{'a': [1, {'b': None}]}"), "{'a': [1, {'b': None}]}");
  EXPECT_EQ(E("{1, 2} | {3}"), "{1, 2, 3}");
}

TEST_F(PyTest, Builtins) {
  EXPECT_EQ(E("sorted([3, 1, 2])"), "[1, 2, 3]");
  EXPECT_EQ(E("sorted(['b', 'a'])"), "['a', 'b']");
  EXPECT_EQ(E("len('abc') + len([1]) + len({'a': 1})"), "5");
  EXPECT_EQ(E("min(3, 1.5)"), "1.5");
  EXPECT_EQ(E("max([1, 7, 3])"), "7");
  EXPECT_EQ(E("abs(-2.5)"), "2.5");
  EXPECT_EQ(E("float('inf') > 9e99"), "True");
  EXPECT_EQ(E("int(3.9)"), "3");
  EXPECT_EQ(E("is_integer(4.000001)"), "True");
  EXPECT_EQ(E("is_integer(4.1)"), "False");
  EXPECT_EQ(E("'a/{}.yaml'.format('ssd')"), "'a/ssd.yaml'");
  EXPECT_EQ(E("'{} {}'.format(1.0, True)"), "'1.0 True'");
  EXPECT_EQ(E("'ABC'.lower()"), "'abc'");
  EXPECT_EQ(E("{'a': 1}.get('b', 5)"), "5");
  EXPECT_EQ(E("{'a': 1}.get('b')"), "None");
  EXPECT_EQ(E("{'a': 1, 'b': 2}.values()"), "[1, 2]");
  EXPECT_EQ(E("math.log2(8)"), "ERROR: line 1: NameError: name 'math' is not defined");
  interp_.SetGlobal("math", Val::Of(Module::kMath));
  EXPECT_EQ(E("math.log2(8)"), "3.0");
  EXPECT_EQ(E("math.ceil(2.1)"), "3");
  EXPECT_EQ(E("math.floor(-2.1)"), "-3");
  EXPECT_EQ(E("math.isclose(1.0, 1.0 + 1e-12)"), "True");
  EXPECT_EQ(E("math.isclose(1.0, 1.1, rel_tol=0.2)"), "True");
}

TEST_F(PyTest, TypeErrorsAreErrorsNotCrashes) {
  EXPECT_EQ(E("None > 0"), "ERROR: line 1: TypeError: '<' not supported between instances of 'int' and 'NoneType'");
  EXPECT_EQ(E("{}['missing']"), "ERROR: line 1: KeyError: 'missing'");
  EXPECT_EQ(E("[1][5]"), "ERROR: line 1: IndexError: list index out of range");
  EXPECT_EQ(E("1 / 0"), "ERROR: line 1: ZeroDivisionError: division by zero");
  EXPECT_EQ(E("'a' + 1"), "ERROR: line 1: TypeError: unsupported operand type(s) for +: 'str' and 'int'");
  EXPECT_EQ(E("undefined_name"), "ERROR: line 1: NameError: name 'undefined_name' is not defined");
  EXPECT_EQ(E("None['value']"), "ERROR: line 1: TypeError: 'NoneType' object is not subscriptable");
  EXPECT_EQ(E("1 in 5"), "ERROR: line 1: TypeError: argument of type 'int' is not iterable");
  EXPECT_EQ(E("math.log2(0)").substr(0, 6), "ERROR:");
}

TEST_F(PyTest, StatementsMutateState) {
  EXPECT_EQ(X("s.update({'a': 1, 'b': []}); s['a'] += 2\ns['b'].append(s['a'])"), "ok");
  EXPECT_EQ(E("s"), "{'a': 3, 'b': [3]}");
  EXPECT_EQ(X("x = y = 5\nif x > 3:\n    s['big'] = True\nelif x > 1:\n    s['mid'] = True\nelse:\n    pass"), "ok");
  EXPECT_EQ(E("s['big']"), "True");
  EXPECT_EQ(X("total = 0\nfor i in [1, 2, 3]:\n    total += i\ns['t'] = total"), "ok");
  EXPECT_EQ(E("s['t']"), "6");
  EXPECT_EQ(X("enqueue_config('training_0.6.0/{}.yaml'.format('resnet'))"), "ok");
  ASSERT_EQ(enqueued_.size(), 1u);
  EXPECT_EQ(enqueued_[0], "training_0.6.0/resnet.yaml");
}

TEST_F(PyTest, CyclesAreAllowedAndBroken) {
  EXPECT_EQ(X("s['me'] = s\nl = [1]\nl.append(l)"), "ok");
  EXPECT_EQ(E("s['me']['me'] == s"), "True");
  EXPECT_EQ(E("l"), "[1, [...]]");
  EXPECT_EQ(X("d = {}\nd['a'] = d\nd['b'] = d"), "ok");
  EXPECT_EQ(E("d"), "{'a': {...}, 'b': {...}}");
  EXPECT_EQ(X("m = [l]\nm.append(m)\nk = [l]\nk.append(k)"), "ok");
  EXPECT_EQ(E("m == k").substr(0, 29), "ERROR: line 1: RecursionError");
  BreakCycles(interp_.Globals());  // under ASan, a leak here would fail the test
  EXPECT_EQ(E("len(s)"), "0");
}

TEST_F(PyTest, MultiLineDictLiteral) {
  EXPECT_EQ(X("s.update({\n    'init_started': False,\n    'first_init_start': 9e99,\n})"), "ok");
  EXPECT_EQ(E("s['first_init_start']"), "9e+99");
}

TEST_F(PyTest, AllowedImports) {
  EXPECT_EQ(X("import yaml\nimport sys\nyaml.safe_dump({'b': 1, 'a': 'x'}, sys.stdout, default_flow_style=False)\nprint('done', 1)"), "ok");
  EXPECT_EQ(printed_, "a: x\nb: 1\ndone 1\n");
  EXPECT_EQ(X("from dataclasses import replace"), "ok");
  EXPECT_EQ(X("import math\nx = math.pi"), "ok");
}

TEST_F(PyTest, SandboxRejectsOtherImportsAndBuiltins) {
  EXPECT_EQ(X("import os"), "IMPORT: line 1: ImportError: import of 'os' is not allowed in rule code (allowed: math, yaml, sys)");
  EXPECT_EQ(X("x = 1\nfrom subprocess import run").substr(0, 22), "IMPORT: line 2: Import");
  EXPECT_EQ(E("open('/etc/passwd')"), "ERROR: line 1: NameError: name 'open' is not defined");
  EXPECT_EQ(E("__import__('os')"), "ERROR: line 1: NameError: name '__import__' is not defined");
  EXPECT_EQ(E("eval('1')"), "ERROR: line 1: NameError: name 'eval' is not defined");
  EXPECT_EQ(E("getattr(1, 'x')"), "ERROR: line 1: NameError: name 'getattr' is not defined");
  EXPECT_EQ(E("(1).__class__").substr(0, 22), "ERROR: line 1: Attribu");
}

TEST_F(PyTest, RunawayCodeIsStopped) {
  interp_.set_budget(100000);
  EXPECT_EQ(X("l = [1]\nfor x in l:\n    l.append(x)").substr(0, 35), "ERROR: line 2: RuntimeError: execut");
  EXPECT_EQ(E("'x' * 100000000000").substr(0, 27), "ERROR: line 1: MemoryError:");
  // An empty sequence repeated any number of times is empty, at once (the
  // fuzzer's timeout: this once looped a count of 10^21 / 10^18 times).
  EXPECT_EQ(E("333*3333333333316661*''"), "''");
  EXPECT_EQ(E("'' * 9000000000000000000"), "''");
  EXPECT_EQ(E("9000000000000000000 * []"), "[]");
}

TEST_F(PyTest, SyntaxOutsideTheSubsetIsRejected) {
  EXPECT_EQ(E("[x for x in s]").substr(0, 6), "SYNTAX");
  EXPECT_EQ(E("lambda: 1").substr(0, 6), "SYNTAX");
  EXPECT_EQ(E("s[1:2]").substr(0, 6), "SYNTAX");
  EXPECT_EQ(E("(1, 2)").substr(0, 6), "SYNTAX");
  EXPECT_EQ(E("f'x'").substr(0, 6), "SYNTAX");
  EXPECT_EQ(X("def f():\n    pass").substr(0, 6), "SYNTAX");
  EXPECT_EQ(X("while True:\n    pass").substr(0, 6), "SYNTAX");
  EXPECT_EQ(E(std::string(500, '(') + "1" + std::string(500, ')')).substr(0, 6), "SYNTAX");
  EXPECT_EQ(E("1 +"), "SYNTAX: line 1: syntax error: expected an expression at the end of the line");
}

// JsonToVal (what the checker uses) accepts, rejects and builds exactly what
// mllog::ParseJson + FromJson (what the rest of podbench uses) does.
TEST(JsonToValTest, SameValuesAndErrorsAsParseJsonThenFromJson) {
  const std::vector<std::string> texts = {
      "null", "true", "false", "0", "-0", "17", "-17", "1.0", "1e3", "2.5E-1", "1e999", "-1e999", "1e-999",
      "123456789012345678901234", "NaN", "Infinity", "-Infinity", " [1, 2.0, \"x\"] ",
      R"({"b": 1, "a": 2, "b": 3})", R"({"value": null, "metadata": {"lineno": 83, "file": "train_imagenet.py"}})",
      R"("a\"b\\c\/\n\t")", R"("\u00e9\ud83d\ude00\ud800x")", "\"\xe9\xff plain latin-1\"",
      R"("a string longer than sixteen bytes with an \n escape late in it")",
      R"({"k\u0065y": [], "": {}, "nested": [[[]], {"x": [1, {"y": "z"}]}]})",
      // Rejected, with the same message:
      "", "{'a': 1}", "[1, 2", "01", "\"a\tb\"", "nan", "1 2", "1.", "{\"a\" 1}", "{\"a\": 1,}", "\"\\x\"",
      "\"\\u12\"", "\"unterminated", "\"unterminated but long enough for the fast path", "[1,,2]", "{\"a\":}",
      std::string(600, '[') + std::string(600, ']')};
  JsonToVal builder;
  for (const auto& t : texts) {
    mllog::Value mv;
    std::string want_error, got_error;
    bool want = mllog::ParseJson(t, &mv, &want_error);
    Val v;
    bool got = builder.Parse(t, &v, &got_error);
    ASSERT_EQ(got, want) << t;
    if (!want) {
      EXPECT_EQ(got_error, want_error) << t;
      continue;
    }
    Val expected = FromJson(mv);
    EXPECT_EQ(Repr(v), Repr(expected)) << t;  // repr tells 1 from 1.0 and True from 1
    EXPECT_EQ(TypeName(v), TypeName(expected)) << t;
  }
}

TEST(JsonToValTest, ContainersAreFreshOnEveryParse) {
  JsonToVal builder;
  Val a, b;
  std::string error;
  ASSERT_TRUE(builder.Parse(R"({"value": [1], "metadata": {"file": "x.py"}})", &a, &error));
  ASSERT_TRUE(builder.Parse(R"({"value": [1], "metadata": {"file": "x.py"}})", &b, &error));
  EXPECT_NE(a.identity(), b.identity());
  a.dict().FindStr("value")->list().push_back(Val::Int(2));
  EXPECT_EQ(Repr(a), "{'value': [1, 2], 'metadata': {'file': 'x.py'}}");
  EXPECT_EQ(Repr(b), "{'value': [1], 'metadata': {'file': 'x.py'}}");
}

}  // namespace
}  // namespace podbench::rules::py
