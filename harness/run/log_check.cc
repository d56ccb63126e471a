#include "harness/run/log_check.h"

#include <memory>

#include "rules/checker.h"
#include "rules/rule_set.h"

namespace podbench::harness {

Result<rules::CheckResult> CheckWithV06Rules(const std::filesystem::path& path) {
  // The embedded rule files are parsed once per process and shared.
  static const std::shared_ptr<rules::RuleSet> kRules =
      std::make_shared<rules::RuleSet>(rules::EmbeddedSource());
  rules::CheckOptions options;
  options.config = rules::DefaultConfig("training", "0.6.0");
  options.format = rules::FormatForRuleset("0.6.0");
  rules::Checker checker(kRules, options);
  return checker.CheckFile(path);
}

Status CheckWrittenLog(const std::string& path, const workloads::WorkloadDescription& description) {
  const std::string& benchmark = description.benchmark;
  if (!description.mlperf_benchmark) {
    return Status::Unimplemented("'" + benchmark + "' is not an MLPerf v0.6 benchmark: no rules cover its log");
  }
  PODBENCH_ASSIGN_OR_RETURN(rules::CheckResult r, CheckWithV06Rules(path));
  if (r.pass) return Status::Ok();
  std::string msg = benchmark + " log " + path + " fails podbench's v0.6 rules:";
  for (const rules::CheckMessage& m : r.errors) {
    msg += "\n  " + (m.key.empty() ? std::string("(log)") : m.key) + ": " + m.text;
  }
  return Status::InvalidArgument(msg);
}

}  // namespace podbench::harness
