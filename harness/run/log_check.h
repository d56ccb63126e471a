// The harness validates every log it writes with the rule engine before it
// calls a run valid: podbench's own v0.6 rules (rules/v0.6, embedded in the
// binary), the same files `podbench check` uses by default.
#pragma once

#include <filesystem>
#include <string>

#include "base/status.h"
#include "rules/checker.h"
#include "workloads/workload.h"

namespace podbench::harness {

// The verdict of podbench's v0.6 rules on any :::MLL log (the rule files are
// parsed once per process and shared; thread-safe). IOError when it cannot be
// read.
Result<rules::CheckResult> CheckWithV06Rules(const std::filesystem::path& path);

// OK when the log at `path` passes podbench's v0.6 rules. InvalidArgument
// listing the failing keys and their messages otherwise; IOError when the
// log cannot be read; Unimplemented, without reading it, when the workload
// says it is not an MLPerf benchmark (description.mlperf_benchmark false: the
// toy), whose logs no rules cover.
Status CheckWrittenLog(const std::string& path, const workloads::WorkloadDescription& description);

}  // namespace podbench::harness
