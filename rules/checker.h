// The MLPerf compliance checker, with the official checker's semantics.
//
// For one log: the entry rule file is run over the log lines, then every file
// it enqueues (enqueue_config), each with a fresh state `s`. Semantics kept
// from the official mlperf_logging checker:
//   - per line whose key has a KEY record: PRE, CHECK (each expression; falsy
//     or raising = failure), POST (runs even when CHECK failed), FIRST_CHECK
//     at the key's first occurrence, ATLEAST_ONE_CHECK (true on some line);
//     keys containing "submission_" are checked at their first occurrence only;
//   - REQ counts: EXACTLY_ONE (duplicates that are all equal: a warning),
//     AT_LEAST_ONE, AT_LEAST(n), AT_LEAST_ONE_OR(a, b, ...);
//   - only the last failure message per key is kept; messages of keys that a
//     later file redefines are dropped; --werror turns warnings into errors;
//   - a log passes when no error message remains.
// Where the official checker crashes (an enqueued file that does not exist,
// an exception in BEGIN/END code, invalid rule YAML), podbench stops
// processing that log and reports FAIL with a clear, non-keyed error.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "rules/mllog/record.h"
#include "rules/rule_set.h"

namespace podbench::rules {

struct CheckOptions {
  // Entry rule file relative to the rules root, e.g. "training_0.6.0/common.yaml".
  std::string config;
  // Which log format the ruleset's parser reads (0.6.0: :::MLL, later: :::MLLOG).
  mllog::Format format = mllog::Format::kMll;
  bool werror = false;
};

struct CheckMessage {
  std::string key;   // empty for messages not tied to a key
  std::string text;  // first line as the official checker words it; details follow on later lines
  // The 1-based line of the log that the message comes from (the line that
  // failed a check or raised; the second occurrence of a key required once;
  // the first unparsable line), or 0 when it comes from no single line.
  int64_t line = 0;
};

struct CheckResult {
  std::string log;
  bool pass = false;
  std::vector<std::string> error_keys;    // sorted
  std::vector<CheckMessage> errors;       // keyed messages (in key order), then the others
  std::vector<std::string> warning_keys;  // sorted
  std::vector<CheckMessage> warnings;
  std::string printed;  // what rule code printed (print, yaml.safe_dump)
  int64_t bytes = 0;
  int64_t lines = 0;
};

class Checker {
 public:
  // `rules` is shared by every log checked (and thread).
  Checker(std::shared_ptr<RuleSet> rules, CheckOptions options)
      : rules_(std::move(rules)), options_(std::move(options)) {}

  // Reads and checks one log file. An unreadable file is an error status.
  Result<CheckResult> CheckFile(const std::filesystem::path& path) const;
  // Checks a log held in memory (read once by the caller, e.g. from a
  // submission tree); `log_name` names it in messages.
  CheckResult CheckText(std::string text, std::string log_name) const;
  // Checks records already read; `parse_errors` are the lines the reader
  // could not parse. Thread-safe (the rule set is shared, all state is per call).
  CheckResult CheckRecords(const std::vector<mllog::Record>& records,
                           const std::vector<mllog::LineError>& parse_errors, std::string log_name) const;

 private:
  std::shared_ptr<RuleSet> rules_;
  CheckOptions options_;
};

// The entry file of an official rules folder: "{usage}_{ruleset}/common.yaml".
std::string DefaultConfig(const std::string& usage, const std::string& ruleset);
// The log format a ruleset's parser reads.
mllog::Format FormatForRuleset(const std::string& ruleset);

}  // namespace podbench::rules
