// The seam where the harness validates the log it wrote, before it calls a
// run valid.
//
// TODO(issue #3): call the rule engine (`podbench check` with podbench's v0.6
// rules) here once rules/ provides it. Until then this returns Unimplemented
// and `podbench run` says the log was NOT checked; it never pretends.
#pragma once

#include <string>

#include "base/status.h"

namespace podbench::harness {

// OK when the log at `path` passes the v0.6 rules for `benchmark`;
// InvalidArgument listing the failures otherwise.
Status CheckWrittenLog(const std::string& path, const std::string& benchmark);

}  // namespace podbench::harness
