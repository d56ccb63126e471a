// The harness validates every log it writes with the rule engine before it
// counts the run: podbench's own v0.6 rules (rules/v0.6, embedded in the
// binary), the same files `podbench check` uses by default.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/status.h"
#include "rules/checker.h"
#include "rules/mllog/record.h"
#include "workloads/workload.h"

namespace podbench::harness {

// The verdict of podbench's v0.6 rules on any :::MLL log (the rule files are
// parsed once per process and shared; thread-safe). IOError when it cannot be
// read.
Result<rules::CheckResult> CheckWithV06Rules(const std::filesystem::path& path);

struct LogVerdict {
  // False when no rules cover the workload (description.mlperf_benchmark is
  // false: the toy); `note` says why. The log was not read.
  bool checked = false;
  std::string note;
  std::vector<rules::CheckMessage> errors;  // podbench's v0.6 rules' failures; empty = passes
};

// Checks `text`, a whole log written in `format` (the rules read either),
// against podbench's v0.6 rules. `name` names the log in messages.
LogVerdict CheckLogText(const std::string& text, mllog::Format format, const std::string& name,
                        const workloads::WorkloadDescription& description);

// How a run ended, once its log was checked: checked, then counted.
struct RunVerdict {
  // "success": converged, log compliant (or not checked). "aborted": the
  //   target not reached (max_epochs, or training diverged); scored as the
  //   slowest run. "noncompliant": the log fails the rules; recorded, never
  //   scored, whatever the run reached.
  std::string status;
  std::string check;  // what the check found, for the output
};

// The verdict of a run that ended with `converged` and whose log got
// `verdict`. An aborted run's log fails on its target alone (run_stop's
// status, eval_accuracy's target); those failures are what "aborted" already
// says, any other makes it non-compliant.
RunVerdict JudgeRun(bool converged, const LogVerdict& verdict);

}  // namespace podbench::harness
