// Functional GNMT training: the model of gnmt_model.h trained for real,
// data parallel over a slice's emulated cores through the shared machinery
// of workloads/functional/data_parallel.h, with Google's v0.6 gradient path
// (../shared/reference/gnmt-v0.6.md section 1, "Gradient path"):
//   1. core c runs forward + backward on rows [c b, (c + 1) b) of the global
//      batch (b = global_batch / cores), the gradient of its own summed loss;
//   2. each core clips its own gradient to global norm max_gradient_norm
//      (clip_by_global_norm, 5.0), before any summation;
//   3. the cores' gradients are summed (cross_replica_sum: a plain sum, no
//      1/N) by the topology's functional all-reduce;
//   4. Adam (TF defaults beta1 0.9, beta2 0.999, epsilon 1e-8, with bias
//      correction: kernels::AdamUpdate) updates the fp32 master weights.
// Because each core clips before the sum, the update depends on how the
// batch is split whenever a core's norm exceeds the bound (as on Google's
// pod); below it, any core count gives the same update.
//
// Learning rate (section 2; G/model.py _get_learning_rate_warmup/_decay),
// step counted from 0 (TF's global_step before the update):
//   lr * 0.01^((warmup - step) / warmup)  while step < warmup  (t2t warmup);
//   lr * 0.5^min(decay_steps, floor((step - decay_start) / interval))
//                                          from decay_start on;
//   lr                                     in between.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "workloads/functional/data_parallel.h"
#include "workloads/gnmt/gnmt_model.h"
#include "workloads/translation/beam_search.h"
#include "workloads/translation/packing.h"

namespace podbench::gnmt {

struct LearningRateSchedule {
  double lr = 4.5e-3;          // Google v0.6, 128+ cores (32: 3.5e-3)
  int64_t warmup_steps = 200;  // (32: 150)
  int64_t decay_start = 1924;  // opt_learning_rate_remain_steps (32: 4000)
  int64_t decay_interval = 241;  // (32: 300)
  int decay_steps = 4;         // halvings
  double decay_factor = 0.5;
  // REQUIRES: step >= 0.
  double At(int64_t step) const;
};

struct FunctionalConfig {
  GnmtConfig model;
  functional::DataParallelConfig parallel;
  int64_t global_batch = 32;  // REQUIRES: a multiple of parallel.cores
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double max_gradient_norm = 5.0;  // per core; > 0
  uint64_t seed = 1;               // initial weights and dropout
};

class FunctionalGnmt {
 public:
  // InvalidArgument naming the field for a bad config.
  static Result<std::unique_ptr<FunctionalGnmt>> Create(const FunctionalConfig& config);
  ~FunctionalGnmt();

  // Forward + backward of `batch` (global_batch rows, one example each:
  // translation::PadBatch) on every core, the per-core clipping and the
  // summation. Returns the summed loss over the global batch divided by the
  // positions in it (for reporting; the gradient is of the sum).
  Result<double> ComputeGradients(const translation::PackedRows& batch);
  // The same with only this process's cores' rows: shares[k] is core
  // parallel().local_cores().begin + k's global_batch / cores rows, each
  // share padded to its own length (PadBatch). Bitwise the batch form when
  // the shares are its rows. InvalidArgument for other row counts.
  Result<double> ComputeGradients(std::span<const translation::PackedRows> shares);
  // Adam with learning rate `lr` on the gradient of the last ComputeGradients.
  Status Update(double lr);

  // Beam-search translations of `sources` (ids, end-of-sentence included),
  // in chunks of `chunk` sentences spread over the cores; each chunk decodes
  // at most max_steps tokens (beam.max_steps); coverage, when beam has it,
  // gets the chunk's longest source as its width.
  Result<std::vector<std::vector<int32_t>>> Translate(const std::vector<std::vector<int32_t>>& sources,
                                                      const translation::BeamSearchOptions& beam, int chunk = 32);

  // -1: this process's first core.
  const float* weights(int core = -1) const { return dp_->weights(core < 0 ? dp_->local_cores().begin : core); }
  int64_t num_parameters() const { return layout_.total; }
  const GnmtLayout& layout() const { return layout_; }
  int64_t steps() const { return step_; }
  // For the session's exchanges between ranks (ShareCoreValues).
  functional::DataParallel& parallel() { return *dp_; }
  // Each core's gradient norm before clipping, from the last ComputeGradients.
  const std::vector<double>& core_gradient_norms() const { return norms_; }
  void SetWeights(std::span<const float> w) { dp_->SetWeights(w); }

 private:
  explicit FunctionalGnmt(const FunctionalConfig& c);
  FunctionalConfig cfg_;
  GnmtLayout layout_;
  std::unique_ptr<functional::DataParallel> dp_;
  std::vector<std::unique_ptr<GnmtCore>> cores_;
  std::vector<float> adam_m_, adam_v_;
  std::vector<double> norms_;
  int64_t step_ = 0;
};

}  // namespace podbench::gnmt
