// Projected mode of the "ssd" workload: the full-size SSD-ResNet34
// (ssd_graph.h) priced on a slice by the shared projection layer
// (workloads/projection/projection.h) under the run's layout, on Google's v0.6
// block and evaluation schedule (ssd_google_v06.h).
//
// A run, on the emulated clock:
//   start-up   host.startup_s and the first epoch's fill of the decoded-image
//              cache beyond what its steps take (Google's dataloader caches
//              decoded images), added to the first block;
//   blocks     the training between two evaluations: whole blocks of
//              iterations_per_loop steps (625 at batch 1024, 313 at 2048), as
//              many as Google's schedule trains before each eval;
//   evals      only after the blocks Google evaluated: 5000 images padded to
//              whole steps of the eval batch, NMS on the device, then COCO
//              mAP on a host process. The device part holds training up; the
//              scoring overlaps the next block (Google's runner goes on with
//              training while host processes score), so it shows only in the
//              run's last evaluation, whose result ends the run (and
//              everywhere with overlap.eval_scoring_with_training off);
//   converges  at the eval Google's runs on this slice reached mAP 0.23 at
//              (SsdConvergenceFor; one draw per run seed). The mAP values
//              logged are MODELLED (a curve to that eval), not computed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "workloads/projection/layout.h"
#include "workloads/projection/projection.h"
#include "workloads/workload.h"

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

// A projected session. `init_s` is the untimed init it reports.
// REQUIRES: ValidateProjectedSsd(s, ctx.slice.cores) passed.
std::unique_ptr<workloads::Session> StartProjectedSsd(const workloads::RunContext& ctx, ProjectedSsdSettings s,
                                                      double init_s);

}  // namespace podbench::ssd
