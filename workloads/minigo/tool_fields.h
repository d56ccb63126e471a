// FIELD=VALUE arguments of the MiniGo dev tools (minigo_functional_run,
// minigo_generation_probe): one parser, so both refuse the same mistakes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace podbench::minigo {

// Writes each "FIELD=VALUE" of `args` into `fields`, whose keys are the
// tool's known fields (their values the defaults). Errors (InvalidArgument,
// naming `tool` and the argument): no '=', a field not in `fields`, or a
// value that is not a finite number. The tool checks ranges itself.
[[nodiscard]] Status ParseToolFields(const std::string& tool, const std::vector<std::string>& args,
                                     std::map<std::string, double>* fields);

}  // namespace podbench::minigo
