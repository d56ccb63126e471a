// Tokenizer and recursive-descent parser for the rule-file Python subset.
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "rules/py/ast.h"

namespace podbench::rules::py {
namespace {

constexpr int kMaxDepth = 64;

enum class Tok : uint8_t { kName, kNumber, kString, kOp, kNewline, kIndent, kDedent, kEnd };

struct Token {
  Tok type;
  int line;
  std::string text;  // name, operator, or decoded string
  Val number;
};

struct SyntaxError {
  int line;
  std::string msg;
};

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : s_(src) {}

  std::vector<Token> Run() {
    std::vector<int> indents{0};
    bool at_line_start = true;
    while (pos_ < s_.size()) {
      if (at_line_start && depth_ == 0) {
        // Measure indentation; blank and comment-only lines do not count.
        size_t p = pos_;
        int col = 0;
        while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t')) {
          col = s_[p] == '\t' ? (col / 8 + 1) * 8 : col + 1;
          ++p;
        }
        if (p >= s_.size()) {
          pos_ = p;
          break;
        }
        if (s_[p] == '\n' || s_[p] == '\r' || s_[p] == '#') {
          while (p < s_.size() && s_[p] != '\n') ++p;
          pos_ = p < s_.size() ? p + 1 : p;
          ++line_;
          continue;
        }
        pos_ = p;
        at_line_start = false;
        if (col > indents.back()) {
          indents.push_back(col);
          Push(Tok::kIndent, "");
        } else {
          while (col < indents.back()) {
            indents.pop_back();
            Push(Tok::kDedent, "");
          }
          if (col != indents.back()) throw SyntaxError{line_, "unindent does not match any outer level"};
        }
      }
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++line_;
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (c == '\n') {
        ++pos_;
        if (depth_ == 0) {
          if (!toks_.empty() && toks_.back().type != Tok::kNewline) Push(Tok::kNewline, "");
          at_line_start = true;
        }
        ++line_;
      } else if (IsNameStart(c)) {
        size_t b = pos_;
        while (pos_ < s_.size() && IsNameChar(s_[pos_])) ++pos_;
        std::string word(s_.substr(b, pos_ - b));
        if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"')) {
          throw SyntaxError{line_, "string prefix '" + word + "' is not supported"};
        }
        Push(Tok::kName, std::move(word));
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
        LexNumber();
      } else if (c == '\'' || c == '"') {
        LexString(c);
      } else {
        LexOp();
      }
    }
    if (!toks_.empty() && toks_.back().type != Tok::kNewline) Push(Tok::kNewline, "");
    while (indents.size() > 1) {
      indents.pop_back();
      Push(Tok::kDedent, "");
    }
    Push(Tok::kEnd, "");
    return std::move(toks_);
  }

 private:
  void Push(Tok t, std::string text) { toks_.push_back(Token{t, line_, std::move(text), Val()}); }

  void LexNumber() {
    std::string digits;
    bool is_float = false;
    auto take_digits = [&] {
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        if (s_[pos_] != '_') digits.push_back(s_[pos_]);
        ++pos_;
      }
    };
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == 'x' || s_[pos_ + 1] == 'X')) {
      pos_ += 2;
      size_t b = pos_;
      while (pos_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      std::string hex(s_.substr(b, pos_ - b));
      if (hex.empty() || hex.size() > 15) throw SyntaxError{line_, "bad hex literal"};
      Token t{Tok::kNumber, line_, "", Val::Int(static_cast<int64_t>(std::strtoull(hex.c_str(), nullptr, 16)))};
      toks_.push_back(std::move(t));
      return;
    }
    take_digits();
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      digits.push_back('.');
      ++pos_;
      take_digits();
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t save = pos_;
      std::string exp = "e";
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) exp.push_back(s_[pos_++]);
      if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        is_float = true;
        digits += exp;
        take_digits();
      } else {
        pos_ = save;
      }
    }
    if (pos_ < s_.size() && IsNameChar(s_[pos_])) throw SyntaxError{line_, "invalid number literal"};
    Token t{Tok::kNumber, line_, digits, Val()};
    if (is_float) {
      t.number = Val::Float(std::strtod(digits.c_str(), nullptr));
    } else {
      errno = 0;
      long long v = std::strtoll(digits.c_str(), nullptr, 10);
      t.number = errno == ERANGE ? Val::Float(std::strtod(digits.c_str(), nullptr)) : Val::Int(v);
    }
    toks_.push_back(std::move(t));
  }

  void LexString(char q) {
    bool triple = pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
    pos_ += triple ? 3 : 1;
    std::string out;
    int start_line = line_;
    while (true) {
      if (pos_ >= s_.size()) throw SyntaxError{start_line, "unterminated string literal"};
      char c = s_[pos_];
      if (triple) {
        if (c == q && pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q) {
          pos_ += 3;
          break;
        }
      } else if (c == q) {
        ++pos_;
        break;
      } else if (c == '\n') {
        throw SyntaxError{start_line, "unterminated string literal"};
      }
      if (c == '\n') ++line_;
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= s_.size()) throw SyntaxError{line_, "unterminated string literal"};
      char e = s_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case '0': out.push_back('\0'); break;
        case '\\': out.push_back('\\'); break;
        case '\'': out.push_back('\''); break;
        case '"': out.push_back('"'); break;
        case '\n': ++line_; break;
        case 'x':
        case 'u': {
          size_t n = e == 'x' ? 2 : 4;
          if (pos_ + n > s_.size()) throw SyntaxError{line_, "truncated escape"};
          std::string hex(s_.substr(pos_, n));
          for (char h : hex) {
            if (!std::isxdigit(static_cast<unsigned char>(h))) throw SyntaxError{line_, "bad escape"};
          }
          AppendUtf8(&out, static_cast<uint32_t>(std::strtoul(hex.c_str(), nullptr, 16)));
          pos_ += n;
          break;
        }
        default:
          out.push_back('\\');
          out.push_back(e);
      }
    }
    Token t{Tok::kString, start_line, std::move(out), Val()};
    toks_.push_back(std::move(t));
  }

  void LexOp() {
    static const char* kThree[] = {"**=", "//="};
    static const char* kTwo[] = {"==", "!=", "<=", ">=", "**", "//", "+=", "-=", "*=", "/=", "|=", "%=", "->", "<<", ">>"};
    for (const char* op : kThree) {
      if (s_.substr(pos_, 3) == op) {
        Push(Tok::kOp, op);
        pos_ += 3;
        return;
      }
    }
    for (const char* op : kTwo) {
      if (s_.substr(pos_, 2) == op) {
        Push(Tok::kOp, op);
        pos_ += 2;
        return;
      }
    }
    char c = s_[pos_];
    static const std::string_view kOne = "+-*/%|&^~<>()[]{},:.;=@";
    if (kOne.find(c) == std::string_view::npos) {
      throw SyntaxError{line_, std::string("unexpected character '") + (c >= 0x20 && c < 0x7f ? std::string(1, c) : "\\x" + std::to_string(static_cast<unsigned char>(c))) + "'"};
    }
    if (c == '(' || c == '[' || c == '{') ++depth_;
    if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
    Push(Tok::kOp, std::string(1, c));
    ++pos_;
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  int depth_ = 0;
  std::vector<Token> toks_;
};

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  NodePtr ParseEvalInput() {
    while (Peek().type == Tok::kNewline) ++p_;
    NodePtr e = Expr();
    while (Peek().type == Tok::kNewline) ++p_;
    if (Peek().type != Tok::kEnd) Fail("unexpected '" + Peek().text + "' after the expression");
    return e;
  }

  std::vector<NodePtr> ParseFile() {
    std::vector<NodePtr> out;
    while (Peek().type == Tok::kNewline) ++p_;
    while (Peek().type != Tok::kEnd) {
      if (Peek().type == Tok::kIndent) Fail("unexpected indent");
      Statement(&out);
      while (Peek().type == Tok::kNewline) ++p_;
    }
    return out;
  }

 private:
  struct DepthGuard {
    explicit DepthGuard(Parser* p) : p_(p) {
      if (++p_->depth_ > kMaxDepth) p_->Fail("expression nested too deeply");
    }
    ~DepthGuard() { --p_->depth_; }
    Parser* p_;
  };

  const Token& Peek(size_t ahead = 0) const {
    size_t i = p_ + ahead;
    return i < t_.size() ? t_[i] : t_.back();
  }
  bool IsOp(const char* op, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.type == Tok::kOp && t.text == op;
  }
  bool IsKeyword(const char* kw, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.type == Tok::kName && t.text == kw;
  }
  [[noreturn]] void Fail(const std::string& msg) const { throw SyntaxError{Peek().line, msg}; }
  void ExpectOp(const char* op) {
    if (!IsOp(op)) Fail(std::string("expected '") + op + "'" + Found());
    ++p_;
  }
  std::string Found() const {
    const Token& t = Peek();
    switch (t.type) {
      case Tok::kEnd: return " at the end of the code";
      case Tok::kNewline: return " at the end of the line";
      case Tok::kIndent: return ", found an indent";
      case Tok::kDedent: return ", found a dedent";
      default: return ", found '" + t.text + "'";
    }
  }
  std::string ExpectName() {
    if (Peek().type != Tok::kName) Fail("expected a name" + Found());
    return t_[p_++].text;
  }

  NodePtr Make(NodeKind k) { return std::make_unique<Node>(k, Peek().line); }

  static bool IsReserved(const std::string& w) {
    static const char* kWords[] = {"and", "or", "not", "in", "is", "if", "else", "elif", "for", "while",
                                   "def", "class", "lambda", "return", "import", "from", "as", "try",
                                   "except", "finally", "with", "yield", "global", "nonlocal", "del",
                                   "pass", "break", "continue", "raise", "assert", "async", "await"};
    for (const char* k : kWords) {
      if (w == k) return true;
    }
    return false;
  }

  // ---- statements ----
  void Statement(std::vector<NodePtr>* out) {
    DepthGuard g(this);
    if (IsKeyword("if")) {
      out->push_back(IfStatement());
      return;
    }
    if (IsKeyword("for")) {
      auto n = Make(NodeKind::kFor);
      ++p_;
      n->name = ExpectName();
      if (IsReserved(n->name)) Fail("bad loop variable '" + n->name + "'");
      if (IsOp(",")) Fail("tuple unpacking in for loops is not supported");
      if (!IsKeyword("in")) Fail("expected 'in'" + Found());
      ++p_;
      n->kids.push_back(Expr());
      ExpectOp(":");
      n->body = Suite();
      if (IsKeyword("else")) Fail("for-else is not supported");
      out->push_back(std::move(n));
      return;
    }
    for (const char* kw : {"while", "def", "class", "try", "with", "lambda", "return", "del", "global",
                           "nonlocal", "raise", "assert", "yield", "break", "continue", "async", "elif", "else"}) {
      if (IsKeyword(kw)) Fail(std::string("'") + kw + "' is not supported in rule code");
    }
    SimpleStatements(out);
  }

  NodePtr IfStatement() {
    auto n = Make(NodeKind::kIf);
    ++p_;  // if / elif
    n->kids.push_back(Expr());
    ExpectOp(":");
    n->body = Suite();
    if (IsKeyword("elif")) {
      n->orelse.push_back(IfStatement());
    } else if (IsKeyword("else")) {
      ++p_;
      ExpectOp(":");
      n->orelse = Suite();
    }
    return n;
  }

  std::vector<NodePtr> Suite() {
    std::vector<NodePtr> body;
    if (Peek().type != Tok::kNewline) {
      SimpleStatements(&body);
      return body;
    }
    ++p_;
    while (Peek().type == Tok::kNewline) ++p_;
    if (Peek().type != Tok::kIndent) Fail("expected an indented block");
    ++p_;
    while (Peek().type != Tok::kDedent && Peek().type != Tok::kEnd) {
      Statement(&body);
      while (Peek().type == Tok::kNewline) ++p_;
    }
    if (Peek().type == Tok::kDedent) ++p_;
    return body;
  }

  void SimpleStatements(std::vector<NodePtr>* out) {
    while (true) {
      out->push_back(SmallStatement());
      if (IsOp(";")) {
        ++p_;
        if (Peek().type == Tok::kNewline || Peek().type == Tok::kEnd) break;
        continue;
      }
      break;
    }
    if (Peek().type == Tok::kNewline) {
      ++p_;
    } else if (Peek().type != Tok::kEnd && Peek().type != Tok::kDedent) {
      Fail("unexpected '" + Peek().text + "'");
    }
  }

  NodePtr SmallStatement() {
    if (IsKeyword("pass")) {
      auto n = Make(NodeKind::kPass);
      ++p_;
      return n;
    }
    if (IsKeyword("import")) {
      auto n = Make(NodeKind::kImport);
      ++p_;
      while (true) {
        std::string mod = DottedName();
        std::string as;
        if (IsKeyword("as")) {
          ++p_;
          as = ExpectName();
        }
        n->modules.push_back(mod);
        n->kw_names.push_back(as);
        if (!IsOp(",")) break;
        ++p_;
      }
      return n;
    }
    if (IsKeyword("from")) {
      auto n = Make(NodeKind::kImportFrom);
      ++p_;
      n->name = DottedName();
      if (!IsKeyword("import")) Fail("expected 'import'" + Found());
      ++p_;
      while (true) {
        n->modules.push_back(ExpectName());
        std::string as;
        if (IsKeyword("as")) {
          ++p_;
          as = ExpectName();
        }
        n->kw_names.push_back(as);
        if (!IsOp(",")) break;
        ++p_;
      }
      return n;
    }
    auto first = Expr();
    static const char* kAug[] = {"+=", "-=", "*=", "/=", "|=", "%=", "//=", "**="};
    static const Op kAugOp[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kBitOr, Op::kMod, Op::kFloorDiv, Op::kPow};
    for (size_t i = 0; i < std::size(kAug); ++i) {
      if (IsOp(kAug[i])) {
        CheckTarget(*first);
        auto n = Make(NodeKind::kAugAssign);
        n->line = first->line;
        n->op = kAugOp[i];
        ++p_;
        n->kids.push_back(std::move(first));
        n->kids.push_back(Expr());
        return n;
      }
    }
    if (IsOp("=")) {
      auto n = Make(NodeKind::kAssign);
      n->line = first->line;
      CheckTarget(*first);
      n->kids.push_back(std::move(first));
      while (IsOp("=")) {
        ++p_;
        auto e = Expr();
        if (IsOp("=")) CheckTarget(*e);
        n->kids.push_back(std::move(e));
      }
      return n;
    }
    if (IsOp(",")) Fail("tuples are not supported");
    auto n = Make(NodeKind::kExprStmt);
    n->line = first->line;
    n->kids.push_back(std::move(first));
    return n;
  }

  void CheckTarget(const Node& n) const {
    if (n.kind != NodeKind::kName && n.kind != NodeKind::kSubscript && n.kind != NodeKind::kAttr) {
      throw SyntaxError{n.line, "cannot assign to this expression"};
    }
    if (n.kind == NodeKind::kName && (n.name == "True" || n.name == "False" || n.name == "None")) {
      throw SyntaxError{n.line, "cannot assign to " + n.name};
    }
  }

  std::string DottedName() {
    std::string name = ExpectName();
    while (IsOp(".")) {
      ++p_;
      name += "." + ExpectName();
    }
    return name;
  }

  // ---- expressions ----
  NodePtr Expr() {
    DepthGuard g(this);
    if (IsKeyword("lambda")) Fail("lambda is not supported in rule code");
    auto body = OrTest();
    if (IsKeyword("if")) {
      auto n = Make(NodeKind::kIfExp);
      n->line = body->line;
      ++p_;
      auto test = OrTest();
      if (!IsKeyword("else")) Fail("expected 'else'" + Found());
      ++p_;
      auto orelse = Expr();
      n->kids.push_back(std::move(body));
      n->kids.push_back(std::move(test));
      n->kids.push_back(std::move(orelse));
      return n;
    }
    return body;
  }

  NodePtr OrTest() {
    auto first = AndTest();
    if (!IsKeyword("or")) return first;
    auto n = Make(NodeKind::kOr);
    n->line = first->line;
    n->kids.push_back(std::move(first));
    while (IsKeyword("or")) {
      ++p_;
      n->kids.push_back(AndTest());
    }
    return n;
  }

  NodePtr AndTest() {
    auto first = NotTest();
    if (!IsKeyword("and")) return first;
    auto n = Make(NodeKind::kAnd);
    n->line = first->line;
    n->kids.push_back(std::move(first));
    while (IsKeyword("and")) {
      ++p_;
      n->kids.push_back(NotTest());
    }
    return n;
  }

  NodePtr NotTest() {
    if (IsKeyword("not")) {
      DepthGuard g(this);
      auto n = Make(NodeKind::kUnary);
      n->op = Op::kNot;
      ++p_;
      n->kids.push_back(NotTest());
      return n;
    }
    return Comparison();
  }

  bool CompareOp(Op* op) {
    const Token& t = Peek();
    if (t.type == Tok::kOp) {
      static const std::pair<const char*, Op> kOps[] = {{"==", Op::kEq}, {"!=", Op::kNe}, {"<", Op::kLt},
                                                        {"<=", Op::kLe}, {">", Op::kGt},  {">=", Op::kGe}};
      for (const auto& [s, o] : kOps) {
        if (t.text == s) {
          *op = o;
          ++p_;
          return true;
        }
      }
      return false;
    }
    if (IsKeyword("in")) {
      *op = Op::kIn;
      ++p_;
      return true;
    }
    if (IsKeyword("not") && IsKeyword("in", 1)) {
      *op = Op::kNotIn;
      p_ += 2;
      return true;
    }
    if (IsKeyword("is")) {
      ++p_;
      *op = Op::kIs;
      if (IsKeyword("not")) {
        ++p_;
        *op = Op::kIsNot;
      }
      return true;
    }
    return false;
  }

  NodePtr Comparison() {
    auto first = BitOr();
    Op op;
    if (!CompareOp(&op)) return first;
    auto n = Make(NodeKind::kCompare);
    n->line = first->line;
    n->kids.push_back(std::move(first));
    do {
      n->ops.push_back(op);
      n->kids.push_back(BitOr());
    } while (CompareOp(&op));
    return n;
  }

  NodePtr Binary(NodePtr lhs, Op op, NodePtr rhs) {
    auto n = std::make_unique<Node>(NodeKind::kBinary, lhs->line);
    n->op = op;
    n->kids.push_back(std::move(lhs));
    n->kids.push_back(std::move(rhs));
    return n;
  }

  NodePtr BitOr() {
    auto lhs = Arith();
    while (IsOp("|")) {
      ++p_;
      lhs = Binary(std::move(lhs), Op::kBitOr, Arith());
    }
    if (IsOp("&") || IsOp("^") || IsOp("<<") || IsOp(">>") || IsOp("@")) Fail("operator '" + Peek().text + "' is not supported");
    return lhs;
  }

  NodePtr Arith() {
    auto lhs = Term();
    while (IsOp("+") || IsOp("-")) {
      Op op = IsOp("+") ? Op::kAdd : Op::kSub;
      ++p_;
      lhs = Binary(std::move(lhs), op, Term());
    }
    return lhs;
  }

  NodePtr Term() {
    auto lhs = Factor();
    while (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%")) {
      Op op = IsOp("*") ? Op::kMul : IsOp("/") ? Op::kDiv : IsOp("//") ? Op::kFloorDiv : Op::kMod;
      ++p_;
      lhs = Binary(std::move(lhs), op, Factor());
    }
    return lhs;
  }

  NodePtr Factor() {
    if (IsOp("-") || IsOp("+")) {
      DepthGuard g(this);
      auto n = Make(NodeKind::kUnary);
      n->op = IsOp("-") ? Op::kNeg : Op::kPos;
      ++p_;
      n->kids.push_back(Factor());
      return n;
    }
    if (IsOp("~")) Fail("operator '~' is not supported");
    return Power();
  }

  NodePtr Power() {
    auto base = AtomExpr();
    if (IsOp("**")) {
      DepthGuard g(this);
      ++p_;
      return Binary(std::move(base), Op::kPow, Factor());
    }
    return base;
  }

  NodePtr AtomExpr() {
    auto n = Atom();
    int trailers = 0;
    while (true) {
      if (++trailers > kMaxDepth) Fail("expression nested too deeply");
      if (IsOp("(")) {
        auto call = Make(NodeKind::kCall);
        call->line = n->line;
        ++p_;
        call->kids.push_back(std::move(n));
        std::vector<NodePtr> kw_values;
        while (!IsOp(")")) {
          if (IsOp("*") || IsOp("**")) Fail("argument unpacking is not supported");
          if (Peek().type == Tok::kName && IsOp("=", 1)) {
            call->kw_names.push_back(t_[p_].text);
            p_ += 2;
            kw_values.push_back(Expr());
          } else {
            if (!kw_values.empty()) Fail("positional argument follows keyword argument");
            call->kids.push_back(Expr());
          }
          if (IsKeyword("for")) Fail("comprehensions are not supported");
          if (!IsOp(",")) break;
          ++p_;
        }
        ExpectOp(")");
        for (auto& v : kw_values) call->kids.push_back(std::move(v));
        n = std::move(call);
      } else if (IsOp("[")) {
        auto sub = Make(NodeKind::kSubscript);
        sub->line = n->line;
        ++p_;
        sub->kids.push_back(std::move(n));
        sub->kids.push_back(Expr());
        if (IsOp(":")) Fail("slices are not supported");
        if (IsOp(",")) Fail("tuple subscripts are not supported");
        ExpectOp("]");
        n = std::move(sub);
      } else if (IsOp(".")) {
        auto attr = Make(NodeKind::kAttr);
        attr->line = n->line;
        ++p_;
        attr->name = ExpectName();
        attr->kids.push_back(std::move(n));
        n = std::move(attr);
      } else {
        return n;
      }
    }
  }

  NodePtr Atom() {
    DepthGuard g(this);
    const Token& t = Peek();
    if (t.type == Tok::kNumber) {
      auto n = Make(NodeKind::kConst);
      n->constant = t.number;
      ++p_;
      return n;
    }
    if (t.type == Tok::kString) {
      auto n = Make(NodeKind::kConst);
      std::string s;
      while (Peek().type == Tok::kString) s += t_[p_++].text;  // implicit concatenation
      n->constant = Val::Str(std::move(s));
      return n;
    }
    if (t.type == Tok::kName) {
      auto n = Make(NodeKind::kConst);
      if (t.text == "True") {
        n->constant = Val::Bool(true);
      } else if (t.text == "False") {
        n->constant = Val::Bool(false);
      } else if (t.text == "None") {
        n->constant = Val::None();
      } else {
        if (IsReserved(t.text)) Fail("unexpected keyword '" + t.text + "'");
        n->kind = NodeKind::kName;
        n->name = t.text;
      }
      ++p_;
      return n;
    }
    if (IsOp("(")) {
      ++p_;
      if (IsOp(")")) Fail("tuples are not supported");
      auto e = Expr();
      if (IsOp(",")) Fail("tuples are not supported");
      if (IsKeyword("for")) Fail("generator expressions are not supported");
      ExpectOp(")");
      return e;
    }
    if (IsOp("[")) {
      auto n = Make(NodeKind::kList);
      ++p_;
      while (!IsOp("]")) {
        n->kids.push_back(Expr());
        if (IsKeyword("for")) Fail("comprehensions are not supported");
        if (!IsOp(",")) break;
        ++p_;
      }
      ExpectOp("]");
      return n;
    }
    if (IsOp("{")) {
      auto n = Make(NodeKind::kDict);
      ++p_;
      bool first = true;
      while (!IsOp("}")) {
        if (IsOp("**")) Fail("dict unpacking is not supported");
        auto k = Expr();
        if (IsKeyword("for")) Fail("comprehensions are not supported");
        if (first && !IsOp(":")) n->kind = NodeKind::kSet;
        first = false;
        n->kids.push_back(std::move(k));
        if (n->kind == NodeKind::kDict) {
          ExpectOp(":");
          n->kids.push_back(Expr());
        }
        if (!IsOp(",")) break;
        ++p_;
      }
      ExpectOp("}");
      return n;
    }
    if (t.type == Tok::kEnd || t.type == Tok::kNewline) Fail("expected an expression" + Found());
    Fail("unexpected '" + t.text + "'");
  }

  std::vector<Token> t_;
  size_t p_ = 0;
  int depth_ = 0;
};

Result<std::shared_ptr<const Program>> Parse(std::string_view code, bool expression) {
  try {
    Lexer lex(code);
    Parser parser(lex.Run());
    auto prog = std::make_shared<Program>();
    prog->is_expression = expression;
    if (expression) {
      prog->expr = parser.ParseEvalInput();
    } else {
      prog->stmts = parser.ParseFile();
    }
    return std::shared_ptr<const Program>(std::move(prog));
  } catch (const SyntaxError& e) {
    return Status::Corruption("line " + std::to_string(e.line) + ": syntax error: " + e.msg);
  }
}

}  // namespace

Result<std::shared_ptr<const Program>> ParseExpression(std::string_view code) { return Parse(code, true); }
Result<std::shared_ptr<const Program>> ParseStatements(std::string_view code) { return Parse(code, false); }

}  // namespace podbench::rules::py
