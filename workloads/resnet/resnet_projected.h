// Projected mode of the "resnet" workload: what ResNet-50 gives the shared
// composition (workloads/projection/projected_run.h), and the step
// configuration its hyperparameters set, which functional mode's emulated
// clock prices too.
//
// Google's v0.6 runs (google_v06.h) are the ground truth: each run draws the
// epoch at which it reaches 75.9% top-1 from the runs Google made on its
// slice at its global batch (on a slice Google did not run at that batch,
// from all the batch's runs), so repeated runs vary as the published ones
// did; the top-1 values it logs are modelled. Because the epochs come from Google's LARS
// runs, projected mode takes the LARS schedule Google used at that batch and
// refuses another (and momentum SGD): it has no convergence to project for
// them (CheckProjectedOptimizer). Functional mode trains either for real.
#pragma once

#include "base/status.h"
#include "workloads/projection/projected_run.h"
#include "workloads/workload.h"

namespace podbench::resnet {

// The evaluation cadence of Google's v0.6 runs: every 4 epochs, the first
// after epoch 4.
inline constexpr int64_t kEvalEveryEpochs = 4;
// MLPerf v0.6 ResNet's quality target (top-1 on the ImageNet validation set).
inline constexpr double kTop1Target = 0.759;

// The step configuration of `hp` on `slice`, both modes: one core per
// replica; the per-core batch (global / cores) for training and for the
// evaluation (Google's in-memory evaluation at the training batch); the
// all-reduce, weight-update sharding, batch-norm groups of model_bn_span /
// per-core batch replicas with distributed_bn (else 1), LARS or momentum SGD,
// and the decoded-image cache. REQUIRES: the workload's Validate passed.
projection::StepConfig StepConfigOf(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// The full-size ResNet-50 v1.5 under StepConfigOf.
Result<projection::StepSpec> ProjectedStep(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// ImageNet epochs, evaluations of 50,000 images (none with
// projected_eval=false), the convergence row of the global batch, the
// modelled top-1 curve and the init line of Google's logs.
Result<projection::RunPlan> ProjectedPlan(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// OK when `hp` is LARS with the schedule Google used at the global batch of
// the convergence row it takes; else InvalidArgument quoting the schedules
// the data covers.
Status CheckProjectedOptimizer(const workloads::Hyperparameters& hp);

}  // namespace podbench::resnet
