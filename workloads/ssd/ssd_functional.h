// Functional SSD: the network of ssd_model.h trained for real on the
// kernels, over the emulated cores of a slice, with spatial partitioning.
//
// Layout: the slice's cores form replicas of `partitions` (k) consecutive
// cores. Each replica takes global_batch / replicas images per step; its k
// cores each hold a horizontal strip of every activation (functional/spatial_partition.h's split
// of the height), as Google's v0.6 SSD ran on tpu-v3-1024 and -2048
// (input_partition_dims [1, 4, 1, 1]). Per step, on every core (one host
// thread each):
//   - every convolution and pooling whose window reaches past the core's
//     strip first exchanges halo rows with its neighbours through the
//     topology's functional "halo_exchange" (and back in the backward pass,
//     where the halo rows' gradients return to their owners); strides and
//     padding are applied exactly (padding rows only at the image's edges);
//   - ops whose window reaches past a neighbour's strip (the tiny feature
//     maps at the end) run replicated: the tensor is gathered on every core
//     of the replica (an all-reduce of the disjoint strips) and each core
//     computes the whole op; its weight gradient counts once (the replica's
//     first core);
//   - batch norm sums its statistics over the replica's cores and the
//     replicas of its BN group (topology all-reduce "ring", through the
//     kernels' BatchNormStatsReducer hook);
//   - the heads' outputs are assembled on the replica's first core, which
//     alone computes the loss with hard-negative mining (Google's code pins
//     the concatenation and the mining to logical core 0), and the loss
//     gradient goes back to the other cores (an all-reduce in which only the
//     first core contributes);
//   - the fp32 weight gradients are summed over all cores with the
//     topology's functional all-reduce (`allreduce`), which sums the strips
//     of a replica and the replicas at once. The per-core threads, gradient
//     buffers and this summation are the shared data-parallel machinery
//     (workloads/functional/data_parallel.h); the in-step collectives above
//     keep their own schedules, built once per layout (DataParallel's
//     CollectiveInStep builds one per call).
// With partitions = 1 this is plain data parallelism and the computation is
// the unpartitioned one; any k gives the same loss, forward values and
// gradients up to the order of floating-point sums (ssd_functional_test).
// Convolutions run in the kernels' bf16 MXU mode (default) or fp32; master
// weights, batch norm and the loss are fp32.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/conv/conv2d.h"
#include "topology/system.h"
#include "workloads/functional/data_parallel.h"
#include "workloads/ssd/ssd_loss.h"
#include "workloads/ssd/ssd_model.h"

namespace podbench::ssd {

struct FunctionalConfig {
  SsdConfig net;
  // The slice whose cores are the emulated cores ("tpu-v3-8"); empty = one
  // core, no topology.
  std::string slice;
  const topology::SystemSpec* system = nullptr;  // null = topology::DefaultSystem()
  // The processes the cores are spread over (functional::DataParallelConfig::
  // ranks); null = this process holds every core. With several ranks,
  // last_predictions() holds this process's replicas' images only.
  std::shared_ptr<topology::RankGroup> ranks;
  int partitions = 1;           // cores per replica; REQUIRES: divides the slice's cores
  int64_t global_batch = 32;    // REQUIRES: a positive multiple of the replicas
  int bn_group = 1;             // replicas per batch-norm group; REQUIRES: divides the replicas
  std::string allreduce = "torus2d";  // gradient summation over all cores
  kernels::Precision precision = kernels::Precision::kBf16;
  int negatives_per_positive = 3;
  float bn_momentum = 0.9f;     // moving averages: m * old + (1 - m) * batch
  float bn_epsilon = 1e-4f;     // Google's SSD BATCH_NORM_EPSILON
  uint64_t seed = 1;            // initial weights
};

// One global batch as the host prepares it.
struct DetectionBatch {
  std::vector<float> images;    // [global_batch, S, S, 3]
  std::vector<int32_t> labels;  // [global_batch, anchors]: class, 0 = background
  std::vector<float> targets;   // [global_batch, anchors, 4]: encoded boxes where label > 0
};

struct SgdStep {
  float lr = 0.01f;
  float momentum = 0.9f;
  float weight_decay = 5e-4f;  // on convolution weights (not biases, not batch norm)
};

// What one executed op of the training plan does on the busiest core, for
// pricing the emulated step (one entry per op, gathers included).
struct PlannedOp {
  const Op* op = nullptr;       // null for a gather
  TensorShape in, out;          // per image, whole tensors
  int in_rows = 0, out_rows = 0;  // rows the busiest core reads (with halo) and writes
  bool replicated = false;
  int halo = 0;                 // halo rows exchanged each way
};

class FunctionalSsd {
 public:
  // InvalidArgument naming the field for a bad config; also when a slice's
  // replica groups do not map onto its chips.
  static Result<std::unique_ptr<FunctionalSsd>> Create(const FunctionalConfig& config);
  ~FunctionalSsd();

  // Forward and backward of one global batch. Leaves the gradient of the
  // mean per-image loss, summed over all cores, in gradient(); returns the
  // mean loss. REQUIRES: batch sized for config().global_batch.
  Result<double> ComputeGradients(const DetectionBatch& batch);
  // Momentum SGD on the last gradient.
  void Update(const SgdStep& step);
  // Predictions [n, anchors, pred_width] (class logits, then box offsets, in
  // the anchors' order) with inference batch norm (replica 0's moving
  // averages), the images spread over all cores in chunks of `chunk`, each
  // core running whole images as Google's evaluation split the batch.
  // Over several ranks the images of other ranks' cores' chunks are not
  // read (they may be zeros); every rank returns every prediction.
  Result<std::vector<float>> Predict(const float* images, int64_t n, int64_t chunk = kPredictChunk);
  static constexpr int64_t kPredictChunk = 16;

  // Whether this process's cores read row `row` of a training batch (the
  // row's replica has a core here; a spatially partitioned replica may span
  // ranks, and each of them reads its rows), or held-out image `i` of
  // Predict with `chunk` (its chunk's core is here). SsdDataConfig's
  // train_row_needed / eval_image_needed.
  bool IsLocalTrainRow(int64_t row) const;
  bool IsLocalEvalImage(int64_t i, int64_t chunk = kPredictChunk) const;

  // The predictions of the last ComputeGradients as each replica's first
  // core assembled them: [global_batch, anchors, pred_width].
  const std::vector<float>& last_predictions() const { return last_pred_; }
  std::vector<float>& parameters() { return params_; }
  const std::vector<float>& parameters() const { return params_; }
  const float* gradient() const;
  const SsdNet& net() const { return net_; }
  const FunctionalConfig& config() const { return cfg_; }
  int cores() const { return cores_; }
  int replicas() const { return cores_ / cfg_.partitions; }
  const std::vector<PlannedOp>& plan() const { return planned_; }
  // Batch-norm moving averages of `core` (means then variances, per BN op in
  // order), for tests.
  std::vector<float> MovingAverages(int core) const;

  struct Plan;
  struct Core;
  struct Comms;

 private:
  FunctionalSsd();
  Status Setup(const FunctionalConfig& config);
  void Forward(const Plan& plan, int core, const float* images, int64_t n, bool training);
  void Backward(const Plan& plan, int core, int64_t n);
  void AssemblePredictions(int core, int64_t n, float* out);
  void ComputeLoss(int core, int64_t n, const DetectionBatch& batch);
  void ScatterLossGradient(int core, int64_t n);

  FunctionalConfig cfg_;
  SsdNet net_;
  int cores_ = 1;
  std::vector<float> params_, momentum_;
  std::vector<std::unique_ptr<Core>> core_;
  std::unique_ptr<Plan> train_plan_, eval_plan_;
  std::unique_ptr<functional::DataParallel> dp_;  // threads, gradient buffers and their summation
  std::unique_ptr<Comms> comms_;
  std::vector<PlannedOp> planned_;
  std::vector<float> last_pred_;
  std::vector<double> replica_loss_;
};

}  // namespace podbench::ssd
