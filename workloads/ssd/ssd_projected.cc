#include "workloads/ssd/ssd_projected.h"

#include <algorithm>
#include <optional>
#include <random>

#include "topology/slice.h"
#include "workloads/projection/host.h"
#include "workloads/ssd/ssd_google_v06.h"
#include "workloads/ssd/ssd_graph.h"

namespace podbench::ssd {
namespace {

using workloads::BlockResult;
using workloads::EvalResult;
using workloads::TimeBreakdown;

constexpr double kTarget = 0.23;  // MLPerf v0.6 SSD, COCO mAP@[0.5:0.95]

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The modelled mAP of an eval labelled `label` in a run that reaches the
// target at `success`: rising linearly from 0.1325 at the first eval (label
// 33; Google's first evals logged 0.11-0.15) to target + 0.0025 at `success`
// (Google's winning evals logged 0.2315-0.2360), below the target before.
double ModelledMap(int64_t label, int64_t success) {
  if (label >= success) return kTarget + 0.0025;
  const double first = 33;
  const double left = static_cast<double>(success - label) / std::max(1.0, static_cast<double>(success) - first);
  return kTarget + 0.0025 - 0.1 * std::min(1.0, left);
}

class ProjectedSsdSession : public workloads::Session {
 public:
  ProjectedSsdSession(const workloads::RunContext& ctx, ProjectedSsdSettings s, double init_s)
      : ctx_(ctx), s_(std::move(s)), init_s_(init_s) {}

  Result<double> Initialize() override {
    PODBENCH_ASSIGN_OR_RETURN(slice_, topology::Slice::FromName(ctx_.slice.name, *ctx_.system));
    SsdGraphOptions go;
    // conv0 as Google ran it on this slice (space-to-depth everywhere but
    // tpu-v3-32); on a slice Google did not run, as on the larger ones.
    const SsdGoogleV06Slice* row = FindSsdGoogleV06Slice(ctx_.slice.name);
    go.space_to_depth = row == nullptr || row->space_to_depth;
    PODBENCH_ASSIGN_OR_RETURN(graph_, BuildSsdGraph(go));
    PODBENCH_ASSIGN_OR_RETURN(config_, ProjectedSsdConfig(s_, ctx_.slice.cores));
    PODBENCH_ASSIGN_OR_RETURN(step_, projection::ProjectTrainStep(graph_, config_, *slice_, options_));
    if (s_.eval) {
      PODBENCH_ASSIGN_OR_RETURN(eval_, projection::ProjectEvaluation(graph_, config_, *slice_, kSsdEvalImages,
                                                                     options_));
    }
    schedule_ = SsdEvalSchedule(s_.global_batch);
    steps_per_block_ = SsdStepsPerBlock(s_.global_batch);
    const SsdConvergence* conv = SsdConvergenceFor(ctx_.slice.name, s_.global_batch);
    if (conv == nullptr || schedule_.empty() || conv->success_labels.empty()) {
      return Status::InvalidArgument("ssd projected: Google ran no batch of " + std::to_string(s_.global_batch));
    }
    std::mt19937_64 rng(ctx_.seed);
    const auto pick = std::uniform_int_distribution<size_t>(0, conv->success_labels.size() - 1)(rng);
    success_label_ = conv->success_labels[pick];
    return init_s_;
  }

  Result<BlockResult> TrainBlock(int64_t first_epoch, int64_t epochs) override {
    const int64_t last = first_epoch + epochs - 1;
    PODBENCH_ASSIGN_OR_RETURN(const int64_t end_blocks, BlocksBefore(last));
    BlockResult r;
    r.steps = (end_blocks - blocks_done_) * steps_per_block_;
    blocks_done_ = end_blocks;
    r.time = TimeBreakdown::Of(step_.time, static_cast<double>(r.steps));
    if (first_epoch == 1) {
      const int64_t epoch_steps = CeilDiv(kSsdTrainImagesPerEpoch, s_.global_batch);
      r.time.input_s += projection::FirstEpochExtraS(graph_.host, config_, step_.step_s(), epoch_steps,
                                                     kSsdTrainImagesPerEpoch, *slice_);
    }
    return r;
  }

  Result<EvalResult> Evaluate(int64_t epoch) override {
    EvalResult r;
    const double map = ModelledMap(epoch, success_label_);
    r.metrics["box_map"] = map;
    if (s_.eval) {
      // The device part always; the scoring when it is serial, or when this
      // evaluation's result is the one the run waits for.
      r.emulated_s = eval_.device_s + (!eval_.scoring_overlapped || map >= kTarget ? eval_.scoring_s : 0.0);
    }
    return r;
  }

 private:
  Result<int64_t> BlocksBefore(int64_t label) const {
    for (const SsdEvalPoint& p : schedule_) {
      if (p.label == label) return p.blocks;
    }
    return Status::Internal("ssd projected: no evaluation is scheduled at epoch " + std::to_string(label));
  }

  workloads::RunContext ctx_;
  ProjectedSsdSettings s_;
  double init_s_ = 0;
  std::optional<topology::Slice> slice_;
  projection::ModelGraph graph_;
  projection::StepConfig config_;
  projection::ProjectionOptions options_;
  projection::StepProjection step_;
  projection::EvalProjection eval_;
  std::vector<SsdEvalPoint> schedule_;
  int64_t steps_per_block_ = 0, blocks_done_ = 0, success_label_ = 0;
};

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

std::unique_ptr<workloads::Session> StartProjectedSsd(const workloads::RunContext& ctx, ProjectedSsdSettings s,
                                                      double init_s) {
  return std::make_unique<ProjectedSsdSession>(ctx, std::move(s), init_s);
}

}  // namespace podbench::ssd
