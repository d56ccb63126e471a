// Functional ResNet v1.5: the network of resnet_model.h trained for real on
// the kernels, data parallel over emulated TPU cores.
//
// The data-parallel machinery is the shared functional::DataParallel
// (workloads/functional/data_parallel.h): one host thread per emulated core,
// each holding its own activations; the cores' fp32 gradient buffers and
// their sum; the fp32 master weights, replicated (DataParallel's one shared
// copy, updated once per step, which is what identical replicas computing
// identical updates amount to) or, with weight-update sharding, one replica
// per core. Per step:
//   - every core runs forward + backward on its share of the global batch
//     (convolutions and the dense layer in the kernels' bf16 MXU mode, or
//     fp32); the loss is the global mean, so core gradients are scaled by
//     1 / cores;
//   - in bf16 mode the activations are bf16 values, as in Google's v0.6
//     code ("bf16 activations"): the images are rounded as they are copied
//     in, every ReLU rounds its output, and the batch norm after each
//     convolution rounds its input gradient; the convolutions then take
//     those operands as they are (kernels::Values::kBf16). The convolution
//     and dense weights are rounded into a bf16 copy once a step (and once
//     per evaluation), which the forward and data-gradient passes read as
//     bf16 values (Values::kBf16: the TPU's cast of the fp32 master weights
//     to bf16), so no pass rounds them again. Batch norm,
//     the residual additions, the loss and all gradients of parameters stay
//     fp32;
//   - batch norm sums its statistics over groups of `bn_group` replicas with
//     the topology's functional all-reduce ("ring" inside each group, run by
//     DataParallel::CollectiveInStep), through the kernels'
//     BatchNormStatsReducer hook;
//   - the fp32 gradients are summed over all cores with the topology's
//     functional all-reduce (`allreduce`, e.g. "torus2d";
//     DataParallel::SumGradients);
//   - LARS (eta 0.001, momentum 0.9, weight decay, epsilon) updates conv and
//     dense weights; batch-norm scales/shifts and the dense bias take momentum
//     SGD at lr / 100 without weight decay (LARS's large base learning rate is
//     meant for the trust-ratio-scaled weights only). Or momentum SGD on
//     everything (OptimizerStep::optimizer).
// With weight-update sharding (weight_update_sharding), the gradient is
// reduce-scattered instead of all-reduced: core c holds the summed gradient
// of its shard only (topology::ShardOfCore's range), keeps the momentum of
// that shard, and updates that shard of its replica of the weights
// (DataParallel::ApplyUpdate). LARS needs whole-layer norms: each core sums
// ||w||^2 and ||g||^2 over its part of every layer, and those 2 scalars per
// layer are all-reduced (`allreduce`, DataParallel::AllReduce) before the
// trust ratios are taken. The updated shards are then all-gathered into
// every replica. Same arithmetic as the replicated update up to the order of
// the fp32 sums.
//
// Over processes (FunctionalConfig::ranks, e.g. the ranks of `mpirun`): this
// process holds only its block of the cores (DataParallel::local_cores():
// their threads, activations, batch-norm statistics, gradients and
// replicas), reads only their images (IsLocalTrainRow, IsLocalEvalImage),
// and every collective (gradient sum, BN groups, LARS norms, all-gather)
// runs over the ranks. The per-core losses and evaluation counts are shared
// in core order (DataParallel::ShareCoreValues), so every rank returns the
// numbers of one process, bitwise.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kernels/conv/conv2d.h"
#include "kernels/cost/tpu_cost.h"
#include "topology/collectives.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/functional/data_parallel.h"
#include "workloads/resnet/resnet_model.h"

namespace podbench::resnet {

struct FunctionalConfig {
  ResNetConfig net;
  int cores = 1;                   // emulated cores = data-parallel replicas
  std::string slice;               // REQUIRED when cores > 1 (e.g. "tpu-v3-8"), its core count
  const topology::SystemSpec* system = nullptr;  // the slice's system; null = DefaultSystem()
  int64_t global_batch = 32;       // REQUIRES: a multiple of cores
  int bn_group = 1;                // replicas per batch-norm group; REQUIRES: divides cores
  std::string allreduce = "torus2d";
  bool weight_update_sharding = false;
  // Registered topology algorithms of kind reduce-scatter and all-gather
  // that give each core its topology::ShardOfCore shard (DataParallelConfig's
  // pair); the run uses topology::ShardedPairOf(allreduce).
  std::string reduce_scatter = "reduce_scatter";
  std::string all_gather = "all_gather";
  kernels::Precision precision = kernels::Precision::kBf16;
  float label_smoothing = 0.1f;
  uint64_t seed = 1;               // initial weights
  int threads_per_core = 1;        // kernel threads inside each emulated core (0 = all)
  // The processes the cores are spread over (DataParallelConfig::ranks);
  // null = this process holds every core.
  std::shared_ptr<topology::RankGroup> ranks;
};

// One update. kLars: LARS on conv and dense weights, momentum SGD at lr / 100
// without weight decay on batch-norm scales/shifts and the dense bias.
// kSgdMomentum: momentum SGD at lr on everything, weight decay on conv and
// dense weights only (as the MLPerf reference's SGD leaves batch norm out).
struct OptimizerStep {
  kernels::Optimizer optimizer = kernels::Optimizer::kLars;  // kLars or kSgdMomentum
  float lr = 1;
  float weight_decay = 1e-4f;
  float momentum = 0.9f;
  float eta = 0.001f;    // LARS trust coefficient
  float epsilon = 0.f;   // LARS: added to the trust ratio's denominator (lars_epsilon)
};

class FunctionalResNet {
 public:
  // InvalidArgument for a bad config (names the field).
  static Result<std::unique_ptr<FunctionalResNet>> Create(const FunctionalConfig& config);
  ~FunctionalResNet();

  // Forward + backward of one global batch: images [global_batch, size, size,
  // 3] fp32 NHWC, labels [global_batch]; core r takes rows [r * b, (r+1) * b).
  // Only the rows of this process's cores (IsLocalTrainRow) are read.
  // Leaves the all-reduced gradient of the mean loss in gradient() (with
  // weight-update sharding on more than one core: reduce-scattered, valid on
  // shard(0) only). Returns the mean loss.
  Result<double> ComputeGradients(const float* images, const int32_t* labels);
  // Applies the optimizer to the gradient of the last ComputeGradients.
  // Errors come from the collectives of weight-update sharding.
  // InvalidArgument for an optimizer other than kLars and kSgdMomentum.
  Status Update(const OptimizerStep& step);
  // Top-1 correct predictions over n images (inference batch norm with the
  // running statistics), spread over the cores in chunks of `chunk` images
  // (chunk k on core k % cores). Only the images of this process's cores
  // (IsLocalEvalImage) are read; the count is every rank's.
  Result<int64_t> CountCorrect(const float* images, const int32_t* labels, int64_t n, int64_t chunk = 64);

  // Whether row `row` of a global training batch, or held-out image `i` of
  // CountCorrect with `chunk`, belongs to one of this process's cores (the
  // only images this rank needs). Always true in one process.
  bool IsLocalTrainRow(int64_t row) const;
  bool IsLocalEvalImage(int64_t i, int64_t chunk) const;

  // The weights the forward pass reads: DataParallel's shared copy, whose
  // edits between steps the update sees too. With weight-update sharding
  // they are replica 0's copy after the all-gather; edits made here between
  // steps are not seen by the sharded update (replicas are refreshed from
  // Update only).
  std::vector<float>& parameters() { return *weights_; }
  const std::vector<float>& parameters() const { return *weights_; }
  const float* gradient() const;
  // The half-open range of parameters core `core` updates (everything without
  // weight-update sharding).
  std::pair<int64_t, int64_t> shard(int core) const;
  // Replica `core`'s weights after the last all-gather; nullptr without
  // weight-update sharding on more than one core. REQUIRES: `core` is one
  // of this process's cores.
  const float* replica_parameters(int core) const;
  int64_t num_parameters() const { return static_cast<int64_t>(weights_->size()); }
  const std::vector<Layer>& layers() const { return layers_; }
  const FunctionalConfig& config() const { return cfg_; }
  // The data-parallel machinery the network trains on.
  const functional::DataParallel& parallel() const { return *dp_; }

  struct Op;
  struct Core;

 private:
  FunctionalResNet() = default;
  Status Setup(const FunctionalConfig& config);
  void MarkBf16Activations();  // the Op flags of bf16 activations
  // bf16 mode: weights_bf16_ = the conv and dense weights of params_ rounded
  // to bf16 values (from the current params_, which parameters() may edit).
  void RoundWeights();
  // The filter a conv or dense op's forward and data-gradient passes read,
  // and what it holds.
  const float* Filter(const Op& op) const;
  kernels::Values FilterValues() const;
  Status Forward(int core, const float* images, const int32_t* labels, int64_t n, bool training,
                 double* loss, int32_t* predictions);
  void Backward(int core, int64_t n);
  // Inside a step, on every core: sums one batch norm's statistics over the
  // core's BN group.
  Status ReduceBn(int core, int op, double* partials, int64_t len);
  void UpdateRange(const Op& op, const OptimizerStep& st, float trust, float* w, const float* g, float* v,
                   int64_t lo, int64_t hi) const;

  FunctionalConfig cfg_;
  std::vector<Layer> layers_;
  std::vector<Op> ops_;
  std::vector<int64_t> tensor_elems_;  // per image
  // The threads, the gradients and their sum, the weights and their update.
  std::unique_ptr<functional::DataParallel> dp_;
  // What the forward pass reads: dp_'s shared copy, or params_ with sharding.
  std::vector<float>* weights_ = nullptr;
  std::vector<float> params_;        // weight-update sharding: this process's first replica after the all-gather
  std::vector<float> momentum_;      // indexed like the parameters; sharded, each core touches its shard
  std::vector<float> weights_bf16_;  // bf16 mode: RoundWeights's copy (the parameters' offsets)
  std::vector<std::unique_ptr<Core>> cores_;  // indexed by core; null for other ranks' cores
  std::optional<topology::LogicalTopology> bn_groups_;
  std::vector<std::unique_ptr<topology::CoreBuffers>> bn_bufs_;  // per op (null when not BN)
  // Weight-update sharding with LARS: per LARS layer ||w||^2, ||g||^2.
  std::unique_ptr<topology::CoreBuffers> norms_;
  std::vector<int> lars_ops_;  // op index of each LARS layer
};

}  // namespace podbench::resnet
