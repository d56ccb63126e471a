// Projected mode of the "ssd" workload: what the full-size SSD-ResNet34
// (ssd_graph.h) gives the shared composition (workloads/projection/
// projected_run.h) under the run's layout, on Google's v0.6 block and
// evaluation schedule (ssd_google_v06.h).
//
// What is SSD's own in a run:
//   start-up   Google's dataloader caches decoded images: the first epoch
//              fills the cache (FirstEpochExtraS);
//   blocks     whole blocks of iterations_per_loop steps (625 at batch 1024,
//              313 at 2048), as many as Google's schedule trains before each
//              evaluation (TrainingSchedule::points);
//   evals      only after the blocks Google evaluated: 5000 images padded to
//              whole steps of the eval batch, NMS on the device, then COCO
//              mAP on a host process, which overlaps the next block (Google's
//              runner goes on training while host processes score);
//   converges  at the evaluation Google's runs on this slice reached mAP 0.23
//              at (SsdConvergenceFor; drawn per run seed). The mAP values
//              logged are MODELLED (a line to that evaluation), not computed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/projection/layout.h"
#include "workloads/projection/projected_run.h"

namespace podbench::ssd {

// What a projected run's hyperparameters set.
struct ProjectedSsdSettings {
  int64_t global_batch = 2048;
  // Cores per replica; > 1 splits each image along H (Google: 4 on
  // tpu-v3-1024 and -2048).
  int64_t spatial_partitions = 1;
  int64_t bn_span = 64;         // model_bn_span, in images
  bool distributed_bn = true;   // false: local BN (an ablation)
  bool eval = true;             // false: evaluations are free (an ablation)
  bool distributed_eval = true; // false: one host's cores evaluate (an ablation)
  std::string allreduce = "torus2d";
};

// The run's step configuration on a slice of `slice_cores` cores: replicas =
// cores / spatial_partitions, per-replica batch = global / replicas, BN group
// = bn_span / per-replica batch replicas (1 without distributed BN), eval
// batch per replica as Google's (its eval batch equals the training batch),
// momentum, fp32 gradients, decoded-image cache on. InvalidArgument naming
// the hyperparameter when the batch, the partitions or the span do not
// divide.
Result<projection::StepConfig> ProjectedSsdConfig(const ProjectedSsdSettings& s, int64_t slice_cores);

// InvalidArgument unless Google ran this global batch (the convergence table
// and the block schedule know batches 1024 and 2048 only).
Status ValidateProjectedSsd(const ProjectedSsdSettings& s, int64_t slice_cores);

// The eval epochs (labels) of a projected run at `global_batch`.
std::vector<int64_t> ProjectedSsdEvalEpochs(int64_t global_batch);

// The step of a projected run on the slice `slice` of `slice_cores` cores:
// the graph with conv0 as Google ran it there (space-to-depth everywhere but
// tpu-v3-32; on a slice Google did not run, as on the larger ones) under
// ProjectedSsdConfig. REQUIRES: ValidateProjectedSsd(s, slice_cores) passed.
Result<projection::StepSpec> ProjectedSsdStep(const ProjectedSsdSettings& s, std::string_view slice,
                                              int64_t slice_cores);

// The rest of the run: Google's blocks up to each evaluation label, 5000
// evaluation images (none with eval off), the convergence of `slice` (else of
// the batch), the modelled mAP line and the init line of Google's logs.
Result<projection::RunPlan> ProjectedSsdPlan(const ProjectedSsdSettings& s, std::string_view slice);

// Untimed initialisation (init_start..run_start) of both modes: a straight
// line through the median init times of Google's v0.6 SSD logs.
projection::InitLine SsdInitLine();

}  // namespace podbench::ssd
