#include "submission/mlperf_logging.h"

#include <vector>

namespace podbench::submission {

namespace fs = std::filesystem;

fs::path MlperfLoggingDir::RulesFolder(const std::string& usage, const std::string& ruleset) const {
  return compliance_checker / (usage + "_" + ruleset);
}

fs::path MlperfLoggingDir::RcpFolder(const std::string& usage, const std::string& ruleset) const {
  return rcp_checker / (usage + "_" + ruleset);
}

Result<MlperfLoggingDir> LoadMlperfLogging(const fs::path& dir, unsigned needs) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::InvalidArgument("--mlperf-logging " + dir.string() +
                                   ": not a folder (give the mlperf_logging folder of an official "
                                   "checkout of github.com/mlcommons/logging)");
  }
  MlperfLoggingDir out;
  out.root = dir;
  // The checkout itself: step into its mlperf_logging/.
  if (!fs::is_directory(dir / "compliance_checker", ec) && fs::is_directory(dir / "mlperf_logging", ec)) {
    out.root = dir / "mlperf_logging";
  }
  out.compliance_checker = out.root / "compliance_checker";
  out.rcp_checker = out.root / "rcp_checker";
  out.summarizer_config = out.root / "result_summarizer" / "config.yaml";
  std::vector<std::string> missing;
  if ((needs & kComplianceRules) && !fs::is_directory(out.compliance_checker, ec)) {
    missing.push_back("compliance_checker/ (the compliance rule folders)");
  }
  if ((needs & kRcpData) && !fs::is_directory(out.rcp_checker, ec)) {
    missing.push_back("rcp_checker/ (the reference convergence points)");
  }
  if ((needs & kSummarizerConfig) && !fs::is_regular_file(out.summarizer_config, ec)) {
    missing.push_back("result_summarizer/config.yaml (the summarizer's config)");
  }
  if (!missing.empty()) {
    std::string msg = "--mlperf-logging " + out.root.string() + ": missing ";
    for (size_t i = 0; i < missing.size(); ++i) msg += (i ? ", " : "") + missing[i];
    msg += " (expected the mlperf_logging folder of an official checkout, holding compliance_checker/, "
           "rcp_checker/ and result_summarizer/)";
    return Status::NotFound(msg);
  }
  return out;
}

Status CheckRulesetParts(const MlperfLoggingDir& dir, const std::string& usage, const std::string& ruleset,
                         unsigned needs) {
  std::error_code ec;
  if (needs & kComplianceRules) {
    fs::path common = dir.RulesFolder(usage, ruleset) / "common.yaml";
    if (!fs::is_regular_file(common, ec)) {
      return Status::NotFound(common.string() + ": no compliance rules for " + usage + " " + ruleset +
                              " in this mlperf_logging folder");
    }
  }
  if (needs & kRcpData) {
    fs::path rcp = dir.RcpFolder(usage, ruleset);
    if (!fs::is_directory(rcp, ec)) {
      return Status::NotFound(rcp.string() + ": no reference convergence points for " + usage + " " + ruleset +
                              " in this mlperf_logging folder");
    }
  }
  return Status::Ok();
}

}  // namespace podbench::submission
