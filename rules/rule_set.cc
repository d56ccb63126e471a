#include "rules/rule_set.h"

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "rules/embedded_rules.h"
#include "rules/py/interp.h"

namespace podbench::rules {
namespace {

std::string Strip(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n\f\v");
  return s.substr(b, e - b + 1);
}

int LineOf(const YAML::Node& n) { return n.Mark().line + 1; }

// The scalar as yaml.BaseLoader reads it: a string; an empty value is "".
Result<std::string> ScalarOf(const YAML::Node& n, const std::string& where) {
  if (!n || n.IsNull()) return std::string();
  if (!n.IsScalar()) return Status::Corruption(where + ": expected a string");
  return n.Scalar();
}

bool UsesName(const py::Node& n, const std::string& name) {
  if (n.kind == py::NodeKind::kName && n.name == name) return true;
  for (const auto& k : n.kids) {
    if (UsesName(*k, name)) return true;
  }
  for (const auto& k : n.body) {
    if (UsesName(*k, name)) return true;
  }
  for (const auto& k : n.orelse) {
    if (UsesName(*k, name)) return true;
  }
  return false;
}

bool ProgramUses(const py::Program& p, const std::string& name) {
  if (p.is_expression) return UsesName(*p.expr, name);
  for (const auto& s : p.stmts) {
    if (UsesName(*s, name)) return true;
  }
  return false;
}

Result<Code> MakeCode(const YAML::Node& n, bool expression, const std::string& path, const std::string& field) {
  std::string where = path + ":" + std::to_string(LineOf(n)) + ": " + field;
  PODBENCH_ASSIGN_OR_RETURN(std::string text, ScalarOf(n, where));
  Code c;
  c.source = Strip(text);
  c.line = LineOf(n);
  auto prog = expression ? py::ParseExpression(c.source) : py::ParseStatements(c.source);
  if (!prog.ok()) return Status::Corruption(where + ": " + prog.status().message() + " in: " + c.source);
  Status st = py::ValidateImports(**prog);
  if (!st.ok()) return Status::InvalidArgument(where + ": " + st.message());
  c.program = *prog;
  return c;
}

Result<std::vector<Code>> MakeChecks(const YAML::Node& n, const std::string& path, const std::string& field) {
  std::vector<Code> out;
  if (n.IsSequence()) {
    for (const auto& item : n) {
      PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(item, true, path, field));
      out.push_back(std::move(c));
    }
  } else {
    PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(n, true, path, field));
    out.push_back(std::move(c));
  }
  return out;
}

Status ParseReq(const std::string& text, KeyRule* rule, const std::string& where) {
  rule->req_text = text;
  if (text == "EXACTLY_ONE") {
    rule->req = Req::kExactlyOne;
  } else if (text == "AT_LEAST_ONE") {
    rule->req = Req::kAtLeastOne;
  } else if (text.rfind("AT_LEAST_ONE_OR", 0) == 0) {
    // The official parser: text[len('AT_LEAST_ONE_OR('):-1].split(',')
    rule->req = Req::kAtLeastOneOr;
    std::string inner = text.size() > 16 ? text.substr(16, text.size() - 17) : "";
    std::stringstream ss(inner);
    std::string item;
    while (std::getline(ss, item, ',')) rule->alternatives.push_back(Strip(item));
  } else if (text.rfind("AT_LEAST(", 0) == 0) {
    rule->req = Req::kAtLeastN;
    size_t close = text.find(')');
    std::string num = text.substr(9, close == std::string::npos ? std::string::npos : close - 9);
    try {
      size_t used = 0;
      rule->at_least_n = std::stoi(num, &used);
      if (used != num.size()) throw std::invalid_argument(num);
    } catch (const std::exception&) {
      return Status::Corruption(where + ": bad REQ '" + text + "'");
    }
  } else {
    rule->req = Req::kOther;  // OPTIONAL and anything else: no count requirement
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const RuleFile>> ParseRuleFile(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::Corruption(path + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  auto file = std::make_shared<RuleFile>();
  file->path = path;
  // The official checker iterates the loaded document, and an empty one
  // (None) stops it; a file of no rules would otherwise pass every log.
  if (!root || root.IsNull()) {
    return Status::Corruption(path + ": an empty rule file (no records); the official checker cannot run it either");
  }
  if (!root.IsSequence()) return Status::Corruption(path + ":" + std::to_string(LineOf(root)) + ": a rule file is a YAML list of records");
  try {
    for (const auto& record : root) {
      std::string at = path + ":" + std::to_string(LineOf(record));
      if (!record.IsMap() || record.size() == 0) return Status::Corruption(at + ": a record is a mapping such as 'KEY: {...}'");
      auto first = record.begin();
      std::string type = first->first.Scalar();
      const YAML::Node body = first->second;
      if (type == "BEGIN") {
        if (file->begin) return Status::Corruption(at + ": more than one BEGIN record");
        if (!body.IsMap()) return Status::Corruption(at + ": BEGIN needs a CODE field");
        PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(body["CODE"], false, path, "BEGIN CODE"));
        file->begin = std::move(c);
      } else if (type == "END") {
        if (file->has_end) return Status::Corruption(at + ": more than one END record");
        if (!body.IsMap()) return Status::Corruption(at + ": END needs PRE and/or CHECK");
        file->has_end = true;
        if (body["PRE"]) {
          PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(body["PRE"], false, path, "END PRE"));
          file->end_pre = std::move(c);
        }
        if (body["CHECK"]) {
          PODBENCH_ASSIGN_OR_RETURN(file->end_checks, MakeChecks(body["CHECK"], path, "END CHECK"));
        }
      } else if (type == "KEY") {
        if (!body.IsMap() || !body["NAME"]) return Status::Corruption(at + ": KEY record without NAME");
        KeyRule rule;
        rule.line = LineOf(record);
        PODBENCH_ASSIGN_OR_RETURN(rule.name, ScalarOf(body["NAME"], at + ": NAME"));
        if (body["REQ"]) {
          PODBENCH_ASSIGN_OR_RETURN(std::string req, ScalarOf(body["REQ"], at + ": REQ"));
          PODBENCH_RETURN_IF_ERROR(ParseReq(req, &rule, at));
        }
        std::string what = "KEY " + rule.name + " ";
        if (body["PRE"]) {
          PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(body["PRE"], false, path, what + "PRE"));
          rule.pre = std::move(c);
        }
        if (body["POST"]) {
          PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(body["POST"], false, path, what + "POST"));
          rule.post = std::move(c);
        }
        if (body["CHECK"]) {
          PODBENCH_ASSIGN_OR_RETURN(rule.checks, MakeChecks(body["CHECK"], path, what + "CHECK"));
        }
        if (body["FIRST_CHECK"]) {
          PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(body["FIRST_CHECK"], true, path, what + "FIRST_CHECK"));
          rule.first_check = std::move(c);
        }
        if (body["ATLEAST_ONE_CHECK"]) {
          PODBENCH_ASSIGN_OR_RETURN(Code c, MakeCode(body["ATLEAST_ONE_CHECK"], true, path, what + "ATLEAST_ONE_CHECK"));
          rule.atleast_one_check = std::move(c);
        }
        auto it = file->by_name.find(rule.name);
        if (it != file->by_name.end()) {
          file->keys[it->second] = std::move(rule);
        } else {
          file->by_name.emplace(rule.name, file->keys.size());
          file->keys.push_back(std::move(rule));
        }
      }
      // Other record types are ignored, as the official checker ignores them.
    }
  } catch (const YAML::Exception& e) {
    return Status::Corruption(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  auto uses = [](const std::optional<Code>& c) { return c && ProgramUses(*c->program, "loglines"); };
  file->uses_loglines = uses(file->begin) || uses(file->end_pre);
  for (const auto& c : file->end_checks) file->uses_loglines |= ProgramUses(*c.program, "loglines");
  for (const auto& k : file->keys) {
    file->uses_loglines |= uses(k.pre) || uses(k.post) || uses(k.first_check) || uses(k.atleast_one_check);
    for (const auto& c : k.checks) file->uses_loglines |= ProgramUses(*c.program, "loglines");
  }
  return std::shared_ptr<const RuleFile>(file);
}

Status ValidateRelativePath(const std::string& rel_path) {
  if (rel_path.empty()) return Status::InvalidArgument("empty rule file path");
  if (rel_path.find('\0') != std::string::npos) return Status::InvalidArgument("rule file path contains a NUL byte");
  std::filesystem::path p(rel_path);
  if (p.is_absolute() || rel_path[0] == '/' || rel_path[0] == '~') {
    return Status::InvalidArgument("rule file path '" + rel_path + "' is absolute; enqueued rule files must stay inside the rules folder");
  }
  for (const auto& part : p) {
    if (part == "..") {
      return Status::InvalidArgument("rule file path '" + rel_path + "' leaves the rules folder ('..')");
    }
  }
  return Status::Ok();
}

namespace {

class DirSource : public RuleSource {
 public:
  explicit DirSource(std::filesystem::path root) : root_(std::move(root)) {}

  Result<std::string> Read(const std::string& rel_path) const override {
    PODBENCH_RETURN_IF_ERROR(ValidateRelativePath(rel_path));
    std::error_code ec;
    auto root = std::filesystem::canonical(root_, ec);
    if (ec) return Status::NotFound("rules folder " + root_.string() + " does not exist");
    auto full = root / rel_path;
    if (!std::filesystem::exists(full, ec)) return Status::NotFound("Could not find config file: " + full.string());
    auto real = std::filesystem::canonical(full, ec);
    if (ec) return Status::NotFound("Could not find config file: " + full.string());
    auto rel = real.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") {
      return Status::InvalidArgument("rule file " + full.string() + " resolves to " + real.string() +
                                     ", outside the rules folder (symlink); refusing to read it");
    }
    if (!std::filesystem::is_regular_file(real, ec)) return Status::NotFound("Could not find config file: " + full.string() + " (not a file)");
    std::ifstream in(real, std::ios::binary);
    if (!in) return Status::IOError("cannot read " + real.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string Describe(const std::string& rel_path) const override { return (root_ / rel_path).string(); }

 private:
  std::filesystem::path root_;
};

class EmbeddedRuleSource : public RuleSource {
 public:
  Result<std::string> Read(const std::string& rel_path) const override {
    PODBENCH_RETURN_IF_ERROR(ValidateRelativePath(rel_path));
    std::string norm = std::filesystem::path(rel_path).lexically_normal().generic_string();
    for (const auto& f : EmbeddedRuleFiles()) {
      if (norm == f.path) return std::string(f.text);
    }
    return Status::NotFound("Could not find config file: " + rel_path + " (podbench's built-in rules have " +
                            std::to_string(EmbeddedRuleFiles().size()) + " files)");
  }
  std::string Describe(const std::string& rel_path) const override { return "<built-in>/" + rel_path; }
};

}  // namespace

std::unique_ptr<RuleSource> DirectorySource(std::filesystem::path root) {
  return std::make_unique<DirSource>(std::move(root));
}
std::unique_ptr<RuleSource> EmbeddedSource() { return std::make_unique<EmbeddedRuleSource>(); }

Result<std::shared_ptr<const RuleFile>> RuleSet::Load(const std::string& rel_path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find(rel_path);
  if (it != cache_.end()) return it->second;
  Result<std::shared_ptr<const RuleFile>> result = Status::Internal("unset");
  Result<std::string> text = source_->Read(rel_path);
  if (!text.ok()) {
    result = text.status();
  } else {
    result = ParseRuleFile(*text, rel_path);
  }
  cache_.emplace(rel_path, result);
  return result;
}

}  // namespace podbench::rules
