// `podbench package`: the whole-submission check of one submitter's tree, with
// the official mlperf_logging.package_checker's verdict (4.1.59):
//   - system descriptions (rule set 1.0.0 and later: every systems/*.json);
//   - per benchmark folder: the number of result_*.txt files (exact; at least
//     that many for hpc weak scaling), each log's compliance through the rules
//     of the mlperf_logging folder, with 1 failing log allowed (4 for unet3d);
//   - closed division, 1.0.0 and later: the seed checker's rules (every run
//     logs a seed; no two runs log the same seed from the same source line),
//     and RCP through the RcpCheck hook (rcp_hook.h; "not checked" until one
//     exists, except minigo, which the official checker never RCP-checks);
//   - benchmark folders the rule set does not know are skipped with a warning,
//     as the official checker does; file names that do not match result_*.txt,
//     files outside systems/, results/ and benchmarks/, and tree problems
//     (tree.h) are listed.
// Where the official checker crashes podbench gives a verdict (FAIL) with a
// message: a results/<system> without systems/<system>.json, a description
// that is not JSON or lacks `division`, a benchmark without a run count.
// The check reads the tree only (tree.h); the RCP scaling factor the official
// checker writes to scaling.json is returned instead.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "submission/mlperf_logging.h"
#include "submission/rcp_hook.h"
#include "submission/system_desc.h"
#include "submission/tree.h"

namespace podbench::submission {

struct PackageOptions {
  std::string usage = "training";  // "training" or "hpc"
  std::string ruleset;             // "X.Y.Z"; required
  MlperfLoggingDir logging;        // must hold the compliance rules (LoadMlperfLogging)
  bool werror = false;             // compliance warnings count as errors
  bool rcp_bypass = false;
  bool rcp_bert_train_samples = false;
  bool seed_checker_bypass = false;
  WalkLimits limits;
  int jobs = 2;                    // logs checked in parallel
  const RcpCheck* rcp = nullptr;   // null: RCP reported as not checked
};

// One failure or warning, with the path it concerns (relative to the tree)
// and a 1-based line where there is one (0: none).
struct Finding {
  Severity severity = Severity::kError;
  std::string check;  // "tree", "systems", "results", "compliance", "seeds", "rcp", "files"
  std::string path;
  int64_t line = 0;
  std::string message;
};

enum class StepState { kPass, kFail, kNotChecked, kSkipped };
const char* StepStateName(StepState s);  // "pass", "fail", "not checked", "skipped"

struct BenchmarkReport {
  std::string path;  // results/<system>/[<scaling>/]<benchmark>
  std::string system;
  std::string benchmark;
  bool known = false;  // the rule set allows it (else skipped)
  bool closed = false;
  int result_files = 0;
  std::optional<int> expected_result_files;
  int failing_logs = 0;
  int allowed_failing_logs = 1;
  StepState counts = StepState::kSkipped;
  StepState compliance = StepState::kSkipped;
  StepState seeds = StepState::kSkipped;
  StepState rcp = StepState::kSkipped;
  std::string rcp_message;
  std::optional<double> rcp_scaling_factor;
};

struct PackageReport {
  std::string root;
  std::string usage, ruleset;
  std::vector<SystemDescResult> systems;
  std::vector<BenchmarkReport> benchmarks;
  std::vector<Finding> findings;  // errors and warnings, in the order checked
  int logs_checked = 0;
  int logs_failing = 0;

  bool pass() const;  // no error finding
  int errors() const;
  int warnings() const;
};

// Checks the tree at `folder`. An error status only for what stops the check
// before it starts (no such folder, a bad rule set, rules missing from the
// mlperf_logging folder); everything about the tree is a finding.
Result<PackageReport> CheckPackage(const std::filesystem::path& folder, const PackageOptions& options);

}  // namespace podbench::submission
