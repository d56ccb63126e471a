// The official data podbench reads and never ships: the `mlperf_logging`
// folder of an official checkout of github.com/mlcommons/logging, named with
// `--mlperf-logging DIR`. It holds
//   compliance_checker/{usage}_{ruleset}/*.yaml   (the compliance rules)
//   rcp_checker/{usage}_{ruleset}/rcps_*.json     (reference convergence points)
//   result_summarizer/config.yaml                 (the summarizer's config)
// DIR may also be the checkout itself (holding mlperf_logging/).
#pragma once

#include <filesystem>
#include <string>

#include "base/status.h"

namespace podbench::submission {

// What a command needs from the folder (bits, combined with |).
enum MlperfLoggingPart : unsigned {
  kComplianceRules = 1u << 0,
  kRcpData = 1u << 1,
  kSummarizerConfig = 1u << 2,
};

struct MlperfLoggingDir {
  std::filesystem::path root;                // the mlperf_logging folder
  std::filesystem::path compliance_checker;  // root/compliance_checker (may be absent if not needed)
  std::filesystem::path rcp_checker;         // root/rcp_checker
  std::filesystem::path summarizer_config;   // root/result_summarizer/config.yaml

  // The rules folder of one rule set: compliance_checker/{usage}_{ruleset}.
  std::filesystem::path RulesFolder(const std::string& usage, const std::string& ruleset) const;
  // The RCP folder of one rule set: rcp_checker/{usage}_{ruleset}.
  std::filesystem::path RcpFolder(const std::string& usage, const std::string& ruleset) const;
};

// Locates the parts named in `needs` under `dir`. NotFound naming every part
// that is missing and where it was looked for; InvalidArgument when `dir` is not
// a folder. A part not needed may be absent.
Result<MlperfLoggingDir> LoadMlperfLogging(const std::filesystem::path& dir, unsigned needs);

// Checks that `usage`/`ruleset` has what `needs` asks for: the rules folder with
// its common.yaml, the RCP folder. NotFound naming the missing path.
Status CheckRulesetParts(const MlperfLoggingDir& dir, const std::string& usage,
                         const std::string& ruleset, unsigned needs);

}  // namespace podbench::submission
