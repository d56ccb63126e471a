// Functional mode of the "resnet" workload: the ResNet of the functional_*
// hyperparameters (resnet_sizing.h) trained for real (resnet_functional.h)
// on the generated images (resnet_input.h), data parallel over the slice's
// emulated cores, with LARS or momentum SGD (resnet_lr.h), and evaluated on
// the held-out images (real top-1). Its emulated clock is the functional
// network's own graph priced by the shared layer under the same step
// configuration a projected run takes (resnet_projected.h StepConfigOf):
// each block's steps, and each evaluation's exposed part against a block of
// 4 epochs. It logs no modelled value.
#pragma once

#include <memory>

#include "workloads/workload.h"

namespace podbench::resnet {

// REQUIRES: ctx.mode is functional and the workload's Validate passed.
std::unique_ptr<workloads::Session> StartFunctionalSession(const workloads::RunContext& ctx);

}  // namespace podbench::resnet
