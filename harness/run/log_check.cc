#include "harness/run/log_check.h"

#include <memory>

#include "rules/mllog/reader.h"
#include "rules/rule_set.h"

namespace podbench::harness {
namespace {

// A checker of podbench's v0.6 rules reading `format`. The embedded rule
// files are parsed once per process and shared.
rules::Checker V06Checker(mllog::Format format) {
  static const std::shared_ptr<rules::RuleSet> kRules =
      std::make_shared<rules::RuleSet>(rules::EmbeddedSource());
  rules::CheckOptions options;
  options.config = rules::DefaultConfig("training", "0.6.0");
  options.format = format;
  return rules::Checker(kRules, options);
}

}  // namespace

Result<rules::CheckResult> CheckWithV06Rules(const std::filesystem::path& path) {
  return V06Checker(mllog::Format::kMll).CheckFile(path);
}

LogVerdict CheckLogText(const std::string& text, mllog::Format format, const std::string& name,
                        const workloads::WorkloadDescription& description) {
  LogVerdict v;
  if (!description.mlperf_benchmark) {
    v.note = "'" + description.benchmark + "' is not an MLPerf v0.6 benchmark: no rules cover its log";
    return v;
  }
  auto reader = mllog::LogReader::FromString(text, format, name);
  std::vector<mllog::Record> records;
  mllog::Record r;
  while (reader->Next(&r)) records.push_back(r);
  rules::CheckResult result = V06Checker(format).CheckRecords(records, reader->errors(), name);
  v.checked = true;
  v.errors = std::move(result.errors);
  return v;
}

RunVerdict JudgeRun(bool converged, const LogVerdict& v) {
  RunVerdict out{converged ? "success" : "aborted", "not checked"};
  if (!v.checked) return out;
  std::string failures;
  // The target's failures: run_stop's status, and eval_accuracy's checks
  // (its ATLEAST_ONE_CHECK is reported unkeyed, as the official checker does).
  auto target_only = [](const rules::CheckMessage& m) {
    return m.key == "run_stop" || m.key == "eval_accuracy" || m.text.rfind("Failed checks for eval_accuracy ", 0) == 0;
  };
  for (const rules::CheckMessage& m : v.errors) {
    if (!converged && target_only(m)) continue;
    failures += "\n    " + (m.key.empty() ? std::string("(log)") : m.key) + ": " + m.text;
  }
  if (failures.empty()) {
    out.check = converged ? "passes the v0.6 rules" : "passes the v0.6 rules but for the target";
  } else {
    out.status = "noncompliant";
    out.check = "FAILS the v0.6 rules:" + failures;
  }
  return out;
}

}  // namespace podbench::harness
