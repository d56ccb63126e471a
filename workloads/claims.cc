#include "workloads/claims.h"

#include <utility>

namespace podbench::workloads {

ClaimSpec DistributedEvalClaim(const std::string& model, ClaimRun arm, const std::string& verb) {
  ClaimRun base = arm;
  base.sets.push_back("distributed_eval=false");
  base.label = "one host " + verb;
  arm.label = "every replica " + verb;
  return {.id = model + "-distributed-eval",
          .paper = "Kumar et al. 2019",
          .section = "the optimizations the v0.6 submission notes list",
          .words = "distributed evaluation: every core " + verb + " its share, instead of one host's cores",
          .base = std::move(base),
          .variant = std::move(arm),
          .measure = ClaimMeasure::kScoreRatio,
          .comparison = ClaimComparison::kNoNumber,
          .unit = "x"};
}

}  // namespace podbench::workloads
