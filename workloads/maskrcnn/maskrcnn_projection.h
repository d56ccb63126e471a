// The parts of a projected Mask R-CNN run (workloads/projected_runs.h) that
// are Mask R-CNN's: the step Google ran on a slice, its schedule of 16 blocks
// of 924 steps each followed by an evaluation, the published convergence and
// the modelled box and mask mAP. Facts: ../shared/reference/maskrcnn-v0.6.md
// ("§" below).
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "workloads/projection/projected_run.h"
#include "workloads/workload.h"

namespace podbench::maskrcnn {

inline constexpr double kMaskRcnnBoxTarget = 0.377;   // BOX_EVAL_TARGET (§3)
inline constexpr double kMaskRcnnMaskTarget = 0.339;  // MASK_EVAL_TARGET
// Google's linear warmup starts at 0 (logged as a warmup factor of 0.0, which
// the official 0.6.0 rules refuse); podbench logs the factor of the first
// step's rate, 1/1000 of the base (§5).
inline constexpr double kMaskRcnnWarmupFactor = 1.0 / 1000.0;

// The step's layout from hp on `slice`: spatial_partitions cores per
// replica, global_batch_size over the replicas, eval_batch_size likewise.
// InvalidArgument naming the hyperparameter when it does not divide.
Result<projection::StepConfig> MaskRcnnStepConfig(const workloads::Hyperparameters& hp,
                                                  const workloads::SliceInfo& slice);

// The full-size graph (its stage what-ifs from hp) on the layout above.
Result<projection::StepSpec> ProjectedStep(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// Blocks of 924 steps, each followed by an evaluation of 5,000 images
// (§2, §3); the evaluation at which Google's 5 runs on the slice first reached
// both targets (§4); the modelled curves. InvalidArgument for a slice Google
// did not run.
Result<projection::RunPlan> ProjectedPlan(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// The untimed init through Google's median init times (§4).
projection::InitLine MaskRcnnInitLine();

}  // namespace podbench::maskrcnn
