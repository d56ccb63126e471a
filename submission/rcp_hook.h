// The seam between `podbench package` and the RCP check (reference
// convergence points; closed division, rule set 1.0.0 and later).
//
// The package check calls MakeRcpCheck() once per run. Until the RCP checker
// exists it returns null, and every closed-division benchmark folder reports
// RCP as "not checked" (never as passed). The RCP checker's owner implements
// RcpCheck and returns it from MakeRcpCheck (submission/rcp_hook.cc).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "submission/mlperf_logging.h"
#include "submission/tree.h"

namespace podbench::submission {

struct RcpRequest {
  const Tree* tree = nullptr;          // the walked tree (read logs with ReadTreeFile)
  const BenchmarkDir* dir = nullptr;   // the benchmark folder to check
  std::string usage;                   // "training" or "hpc"
  std::string ruleset;                 // "X.Y.Z"
  const MlperfLoggingDir* logging = nullptr;  // where rcp_checker/ is
  bool bypass = false;                 // --rcp-bypass or a package_checker_params "rcp-bypass" line
  bool bert_train_samples = false;     // --rcp-bert-train-samples
};

struct RcpOutcome {
  enum class State { kPass, kFail, kNotChecked };
  State state = State::kNotChecked;
  // The official checker's message ("RCP found", "RCP Interpolation", ...) or,
  // for kNotChecked, why not.
  std::string message;
  // The normalisation factor the official checker writes to scaling.json;
  // podbench returns it instead of writing into the tree.
  std::optional<double> scaling_factor;
};

class RcpCheck {
 public:
  virtual ~RcpCheck() = default;
  // Thread-compatible: called for one folder at a time.
  virtual RcpOutcome Check(const RcpRequest& request) const = 0;
};

// The RCP check `podbench package` uses; null while podbench has none.
std::unique_ptr<RcpCheck> MakeRcpCheck();

}  // namespace podbench::submission
