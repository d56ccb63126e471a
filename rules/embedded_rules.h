// podbench's own MLPerf Training v0.6 rule files (rules/v0.6/*.yaml), compiled
// into the binary at build time so `podbench check` finds them from any
// folder. Exposed under the official layout: "training_0.6.0/<file>".
#pragma once

#include <string_view>
#include <vector>

namespace podbench::rules {

struct EmbeddedRuleFile {
  std::string_view path;  // e.g. "training_0.6.0/common.yaml"
  std::string_view text;
};

const std::vector<EmbeddedRuleFile>& EmbeddedRuleFiles();

}  // namespace podbench::rules
