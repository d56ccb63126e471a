#include "workloads/ssd/ssd_projected.h"

#include <algorithm>
#include <string>

#include "workloads/ssd/ssd_google_v06.h"
#include "workloads/ssd/ssd_graph.h"

namespace podbench::ssd {
namespace {

constexpr double kTarget = 0.23;  // MLPerf v0.6 SSD, COCO mAP@[0.5:0.95]

Status Bad(const std::string& what) { return Status::InvalidArgument(what); }

}  // namespace

Result<projection::StepConfig> ProjectedSsdConfig(const ProjectedSsdSettings& s, int64_t slice_cores) {
  const int64_t k = s.spatial_partitions;
  if (k < 1 || slice_cores % k != 0) {
    return Bad("spatial_partitions " + std::to_string(k) + " must divide the slice's " + std::to_string(slice_cores) +
               " cores");
  }
  const int64_t replicas = slice_cores / k;
  if (s.global_batch < replicas || s.global_batch % replicas != 0) {
    return Bad("global_batch_size " + std::to_string(s.global_batch) + " does not split evenly over the " +
               std::to_string(replicas) + " replicas (" + std::to_string(slice_cores) + " cores / spatial_partitions " +
               std::to_string(k) + ")");
  }
  const int64_t per_replica = s.global_batch / replicas;
  if (s.bn_span % per_replica != 0 || replicas % (s.bn_span / per_replica) != 0) {
    return Bad("model_bn_span " + std::to_string(s.bn_span) + " must be a whole number of replicas' batches (" +
               std::to_string(per_replica) + " images each) that divides the " + std::to_string(replicas) +
               " replicas");
  }
  projection::StepConfig c;
  c.layout.replicas = replicas;
  c.layout.cores_per_replica = k;
  c.layout.split = k > 1 ? projection::SplitDim::kHeight : projection::SplitDim::kNone;
  c.layout.bn_group = s.distributed_bn ? s.bn_span / per_replica : 1;
  c.layout.gradient_dtype = projection::DType::kF32;
  c.layout.allreduce = s.allreduce;
  c.optimizer = projection::OptimizerKind::kMomentum;
  c.per_replica_batch = per_replica;
  // Google's eval batch is the training batch (eval_batch_size = 1024 or
  // 2048): the same images per replica.
  c.eval_per_replica_batch = per_replica;
  c.cache_decoded_examples = true;  // dataloader.py: cache() of decoded images
  PODBENCH_RETURN_IF_ERROR(c.layout.Validate(slice_cores));
  return c;
}

Status ValidateProjectedSsd(const ProjectedSsdSettings& s, int64_t slice_cores) {
  if (SsdEvalSchedule(s.global_batch).empty()) {
    return Bad("global_batch_size " + std::to_string(s.global_batch) +
               ": projected mode knows when Google's runs evaluated and converged at batches 1024 and 2048 only");
  }
  return ProjectedSsdConfig(s, slice_cores).status();
}

std::vector<int64_t> ProjectedSsdEvalEpochs(int64_t global_batch) {
  std::vector<int64_t> out;
  for (const SsdEvalPoint& p : SsdEvalSchedule(global_batch)) out.push_back(p.label);
  return out;
}

Result<projection::StepSpec> ProjectedSsdStep(const ProjectedSsdSettings& s, std::string_view slice,
                                              int64_t slice_cores) {
  projection::StepSpec spec;
  SsdGraphOptions go;
  const SsdGoogleV06Slice* row = FindSsdGoogleV06Slice(slice);
  go.space_to_depth = row == nullptr || row->space_to_depth;
  PODBENCH_ASSIGN_OR_RETURN(spec.graph, BuildSsdGraph(go));
  PODBENCH_ASSIGN_OR_RETURN(spec.config, ProjectedSsdConfig(s, slice_cores));
  spec.options.distributed_eval = s.distributed_eval;
  return spec;
}

Result<projection::RunPlan> ProjectedSsdPlan(const ProjectedSsdSettings& s, std::string_view slice) {
  projection::RunPlan p;
  p.schedule.global_batch = s.global_batch;
  p.schedule.examples_per_epoch = kSsdTrainImagesPerEpoch;
  const int64_t steps_per_block = SsdStepsPerBlock(s.global_batch);
  for (const SsdEvalPoint& e : SsdEvalSchedule(s.global_batch)) {
    p.schedule.points.push_back({e.label, e.blocks * steps_per_block});
  }
  p.eval_examples = s.eval ? kSsdEvalImages : 0;
  const SsdConvergence* conv = SsdConvergenceFor(slice, s.global_batch);
  if (conv == nullptr || p.schedule.points.empty() || conv->success_labels.empty()) {
    return Status::InvalidArgument("ssd projected: Google ran no batch of " + std::to_string(s.global_batch));
  }
  for (int64_t label : conv->success_labels) {
    auto it = std::find_if(p.convergence.points.begin(), p.convergence.points.end(),
                           [&](const projection::ConvergencePoint& pt) { return pt.label == label; });
    if (it == p.convergence.points.end()) {
      p.convergence.points.push_back({label, 1});
    } else {
      ++it->runs;
    }
  }
  p.convergence.source = "the evaluation at which each of Google's v0.6 runs on " + std::string(conv->slice) +
                         " first reached mAP 0.23 (" + std::to_string(conv->success_labels.size()) + " runs)";
  // Google's first evaluations (label 33) logged 0.11-0.15 mAP, their
  // winning ones 0.2315-0.2360: a line between the two.
  p.curve = {
      .metric = "box_map",
      .target = kTarget,
      .first = 0.1325,
      .below = 0.002,
      .above = 0.0025,
      .cap = 1,
      .shape = 0,
      .how = "the evaluation reaching 0.23 drawn per seed from Google's v0.6 runs on this slice; mAP "
              "before then on a modelled line",
  };
  p.init = SsdInitLine();
  return p;
}

projection::InitLine SsdInitLine() {
  // Compile, ResNet-34 checkpoint restore, program start, sleep(120).
  return {313.0, 0.668, "Google's v0.6 SSD logs' median init times (324 s on 16 chips, 997 s on 1024)"};
}

}  // namespace podbench::ssd
