// The harness validates every log it writes with the rule engine before it
// calls a run valid: podbench's own v0.6 rules (rules/v0.6, embedded in the
// binary), the same files `podbench check` uses by default.
#pragma once

#include <string>

#include "base/status.h"

namespace podbench::harness {

// OK when the log at `path` passes podbench's v0.6 rules. InvalidArgument
// listing the failing keys and their messages otherwise; IOError when the
// log cannot be read; Unimplemented, without reading it, when `benchmark` is
// not an MLPerf v0.6 benchmark (the toy workload), whose logs no rules cover.
Status CheckWrittenLog(const std::string& path, const std::string& benchmark);

}  // namespace podbench::harness
