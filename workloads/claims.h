// The seed papers' claims, as data a model declares from its own folder
// (ModelRegistration::Claims) and `podbench reproduce` tests: each claim
// names its paper and section, quotes the claim or its number, and says
// which paired runs test it (two run requests that differ in one switch, or
// in the slice where the claim is about scaling) and which figure of the
// pair podbench compares with the paper's. The harness makes the runs
// (harness/run/claims.h), computes the figure and gives the verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace podbench::workloads {

// One run of a claim's pair, as `podbench run` would be asked for it.
struct ClaimRun {
  std::string slice{};
  std::string mode = "projected";  // "projected" or "functional"
  std::string preset;              // e.g. "google-v0.6"
  std::vector<std::string> sets{};   // --set key=value
  int runs = 1;                    // seeds (base, base+1, ...): more than 1 where run-to-run spread matters
  std::string label{};               // what this arm is, e.g. "1-D ring"
};

// The figure podbench reads off a pair (base, variant).
enum class ClaimMeasure {
  // Per-step time of one category (ClaimSpec::category: "gradients",
  // "bn_sync", ...), base / variant: how many times faster the variant's is.
  kCategoryRatio,
  // Per-step device time (every category but input), base / variant.
  kDeviceStepRatio,
  // Time to train (the set's v0.6 score), base / variant.
  kScoreRatio,
  // Examples per second of the variant's device steps (its global batch /
  // its per-step device time); the base is not used.
  kDeviceThroughput,
  // Time to train of the variant, minutes; the base is not used.
  kScoreMinutes,
  // Share of the variant's per-step device time spent in ClaimSpec::category,
  // percent (the cost of a technique at its group size); the base gives the
  // step without it.
  kCategorySharePct,
  // Mean final quality (the last evaluation's value of the model's first
  // metric) of the variant minus the base's, over their seeds.
  kFinalMetricGain,
};

// How the paper's figure is read.
enum class ClaimComparison {
  kAtLeast,    // agrees when podbench's figure >= the paper's
  kAtMost,     // agrees when podbench's figure <= the paper's
  kAbout,      // agrees within ClaimSpec::tolerance (relative) of the paper's
  kPositive,   // agrees when podbench's figure > ClaimSpec::threshold (an effect in the claimed direction)
  kNoNumber,   // the paper gives no number: podbench's figure is reported, no verdict
};

struct ClaimSpec {
  std::string id{};        // stable key, e.g. "resnet-2d-gradient-summation"
  std::string paper{};     // "Ying et al. 2018", "Kumar et al. 2019"
  std::string section{};   // where in the paper
  std::string words{};     // the claim in its own words, or its number
  std::string workload{};  // the registered workload the runs use
  ClaimRun base{}, variant{};
  ClaimMeasure measure = ClaimMeasure::kScoreRatio;
  std::string category{};  // kCategoryRatio, kCategorySharePct
  ClaimComparison comparison = ClaimComparison::kNoNumber;
  std::optional<double> paper_figure{};  // in the measure's unit
  double tolerance = 0.15;             // kAbout
  double threshold = 0;                // kPositive
  std::string unit{};                    // "x", "images/s", "min", "%", "top-1"
  std::string note{};                    // what the comparison means, and its limits
};

// The claim every model with a distributed evaluation declares (Kumar et al.
// 2019, among the optimizations the v0.6 submission notes list): every core
// evaluates its share instead of one host's cores. Id "<model>-distributed-eval";
// its arms are `arm` with distributed_eval=false added and `arm` as it is,
// compared by time to train; `verb` says what an evaluating core does
// ("evaluates", "decodes"). The paper gives no number.
ClaimSpec DistributedEvalClaim(const std::string& model, ClaimRun arm, const std::string& verb);

}  // namespace podbench::workloads
