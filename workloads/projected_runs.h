// The projected mode of every model: one Session over the shared composition
// (and the same composition's prediction of a preset's published row, for
// `podbench calibrate`, `reproduce` and the fidelity tests)
// (workloads/projection/projected_run.h). A workload gives its StepSpec and
// RunPlan (Workload::ProjectedStep, ProjectedPlan); this session prices them
// once, draws the run's convergence label from the plan's published
// convergence with the run's seed, and reports each block and evaluation as
// ComposeRun composes them, so a run's log, `podbench calibrate`, the
// fidelity table and the score split of `podbench reproduce` are one model.
//
// Per call (the harness's cadence, workload.h):
//   Initialize   the init line at the slice's chips (untimed);
//   TrainBlock   the block's steps (StepsThrough of its last label minus
//                those already trained) at the priced step; the first block
//                adds the first epoch's extra (start-up, cache fill) to input;
//   Evaluate     the modelled metric (marked as modelled) and the
//                evaluation's exposed part, or, at the converging label (or
//                the run's last evaluation), its device part and its scoring
//                in full.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "topology/system.h"
#include "workloads/projection/calibration.h"
#include "workloads/projection/projected_run.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::workloads {

// Lines a projected run logs under keys of its model's own (WorkloadEvent),
// besides the harness's: a block's (epochs [first, first + epochs)), and an
// evaluation's (`reached`: it reaches the target, the run's last). Empty
// functions: none (every v0.6 model but MiniGo).
struct ProjectedLogLines {
  std::function<std::vector<WorkloadEvent>(int64_t first_epoch, int64_t epochs)> block;
  std::function<std::vector<WorkloadEvent>(int64_t epoch, bool reached)> evaluation;
};

// A projected session of `step` and `plan` for the run `ctx`, logging
// `lines`. The evaluations it expects are ctx.description.cadence's.
std::unique_ptr<Session> StartProjectedSession(const RunContext& ctx, projection::StepSpec step,
                                               projection::RunPlan plan, ProjectedLogLines lines = {});

// The projected session of `workload` for the run `ctx`: its
// ProjectedStep and ProjectedPlan for ctx.hp on ctx.slice. Errors: theirs.
Result<std::unique_ptr<Session>> StartProjected(const Workload& workload, const RunContext& ctx);

// A projected run of a registered model as `podbench run --mode projected
// --preset P --set ...` would make it, priced without running it.
struct ProjectedRunModel {
  SliceInfo slice;
  Hyperparameters hp;
  WorkloadDescription description;
  projection::StepSpec step;
  projection::RunPlan plan;
  projection::RunPricing pricing;
  std::vector<int64_t> labels;  // the cadence's evaluations
};
// `sets` are hyperparameter --set items; `step_overrides` are what-ifs of the
// step the run cannot set (projection/overrides.h keys, e.g.
// "overlap.eval_scoring_with_training=false"), applied to its StepSpec.
// Errors: those `podbench run` gives (an unknown model, preset or slice, a
// refused value), an override's, and the pricing's.
Result<ProjectedRunModel> ModelProjectedRun(std::string_view model, std::string_view preset,
                                            std::string_view slice, const topology::SystemSpec& system,
                                            const std::vector<std::string>& sets = {},
                                            const std::vector<std::string>& step_overrides = {});

// The published row of `model` at `preset` on `slice`, as the composition
// predicts it over the plan's published convergence (PredictOverConvergence):
// the v0.6 score, its split, the median block gap, the first epoch's extra.
Result<projection::RowPrediction> PredictRow(const ProjectedRunModel& run);

// Every calibration point the registered models declare
// (projection/calibration.h), each its model's calibration preset on its
// slice, resolved once on `system` (ModelProjectedRun) and priced on each
// trial system as PredictRow prices it. A trial system must have `system`'s
// slices; only its calibrated values differ. `podbench calibrate` fits to
// these. FailedPrecondition, naming the model and slice, for a point whose
// run cannot be resolved.
Result<std::vector<projection::CalibrationTarget>> RegisteredCalibrationTargets(const topology::SystemSpec& system);

}  // namespace podbench::workloads
