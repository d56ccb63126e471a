// Loading MLPerf compliance rule files (the official mlperf_logging format).
//
// A rule file is a YAML list of records, each a one-key mapping:
//   BEGIN: {CODE}                       statements run before the log lines
//   KEY:   {NAME, REQ, PRE, CHECK, POST, FIRST_CHECK, ATLEAST_ONE_CHECK}
//   END:   {PRE, CHECK}                 run after the log lines
// Every scalar is read as a string (as yaml.BaseLoader does). CHECK is one
// expression or a list of them. A later KEY record with the same NAME
// replaces the earlier one (keeping its position). Every code string is
// parsed once, when its file loads; a syntax error or a forbidden import is a
// load error naming the file and line.
//
// Files are found through a RuleSource: a folder laid out like the official
// compliance_checker folder, or podbench's embedded v0.6 rules. Paths are
// relative ("training_0.6.0/resnet.yaml"); absolute paths, ".." components
// and symlinks that leave the folder are rejected, because enqueued paths are
// built from values in the (untrusted) log.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "rules/py/ast.h"

namespace podbench::rules {

struct Code {
  std::string source;  // as written, stripped
  std::shared_ptr<const py::Program> program;
  int line = 0;  // 1-based line in the rule file
};

enum class Req { kNone, kExactlyOne, kAtLeastOne, kAtLeastN, kAtLeastOneOr, kOther };

struct KeyRule {
  std::string name;
  Req req = Req::kNone;
  std::string req_text;
  int at_least_n = 0;                     // kAtLeastN
  std::vector<std::string> alternatives;  // kAtLeastOneOr: the other keys
  std::optional<Code> pre, post, first_check, atleast_one_check;
  std::vector<Code> checks;
  int line = 0;
};

struct RuleFile {
  std::string path;  // relative to the source root, as enqueued
  std::optional<Code> begin;
  bool has_end = false;
  std::optional<Code> end_pre;
  std::vector<Code> end_checks;
  std::vector<KeyRule> keys;  // in order of first appearance of each NAME
  std::unordered_map<std::string, size_t> by_name;
  bool uses_loglines = false;  // some code reads the name `loglines`
};

// Parses rule-file text. `path` is used in messages.
Result<std::shared_ptr<const RuleFile>> ParseRuleFile(const std::string& text, const std::string& path);

// Where rule files come from. Thread-safe.
class RuleSource {
 public:
  virtual ~RuleSource() = default;
  // The text of `rel_path`. NotFound when absent; InvalidArgument for a path
  // that would leave the source (absolute, "..", symlink out).
  virtual Result<std::string> Read(const std::string& rel_path) const = 0;
  // For messages: where `rel_path` would be.
  virtual std::string Describe(const std::string& rel_path) const = 0;
};

// A folder on disk.
std::unique_ptr<RuleSource> DirectorySource(std::filesystem::path root);
// podbench's own v0.6 rules, compiled into the binary ("training_0.6.0/...").
std::unique_ptr<RuleSource> EmbeddedSource();

// Checks that `rel_path` is a plain relative path that stays inside its root.
Status ValidateRelativePath(const std::string& rel_path);

// Loads each rule file once and shares it between threads and logs.
class RuleSet {
 public:
  explicit RuleSet(std::unique_ptr<RuleSource> source) : source_(std::move(source)) {}
  // Thread-safe; the same file is parsed at most once.
  Result<std::shared_ptr<const RuleFile>> Load(const std::string& rel_path);
  const RuleSource& source() const { return *source_; }

 private:
  std::unique_ptr<RuleSource> source_;
  std::mutex mu_;
  std::map<std::string, Result<std::shared_ptr<const RuleFile>>> cache_;
};

}  // namespace podbench::rules
