// Functional Transformer training: the model of transformer_model.h trained
// for real, data parallel over a slice's emulated cores through the shared
// machinery of workloads/functional/data_parallel.h.
//
// Per step: core c runs forward + backward on rows [c b, (c + 1) b) of the
// global batch of packed rows (b = global_batch / cores) with its own
// dropout masks; the loss is the label-smoothed cross-entropy summed over
// the global batch's target tokens divided by their number (every token
// weighs the same whatever core it lands on); the gradients are summed by
// the topology's functional all-reduce (fp32 or bf16), or reduce-scattered
// with weight-update sharding; then Adam (Kingma and Ba 2015, with bias
// correction: kernels::AdamUpdate) updates the fp32 master weights, each
// core its own shard under sharding. Google's v0.6 submission used LazyAdam,
// which is Adam on dense gradients; with the embedding shared by the softmax
// every gradient here is dense.
//
// Learning rate (tensor2tensor's "constant*linear_warmup*rsqrt_decay*
// rsqrt_hidden_size", the schedule of Google's v0.6 runs):
//   lr(step) = constant * hidden^-0.5 * min(step * warmup^-1.5, step^-0.5),
// step counted from 1.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "workloads/functional/data_parallel.h"
#include "workloads/transformer/transformer_model.h"
#include "workloads/translation/beam_search.h"
#include "workloads/translation/packing.h"

namespace podbench::transformer {

struct LearningRateSchedule {
  double constant = 2.0;       // Google v0.6, 32-256 cores: 2.0 (512+: 1.3)
  double warmup_steps = 1000;  // Google v0.6: 1000 (512+: 550)
  int hidden = 1024;
  // REQUIRES: step >= 1.
  double At(int64_t step) const;
};

struct AdamConfig {
  double beta1 = 0.9, beta2 = 0.98, epsilon = 1e-9;  // Google v0.6 at 32-256 cores
};

struct FunctionalConfig {
  TransformerConfig model;
  functional::DataParallelConfig parallel;
  int64_t global_batch = 32;  // packed rows per step; REQUIRES: a multiple of parallel.cores
  AdamConfig adam;
  uint64_t seed = 1;          // initial weights and dropout
};

class FunctionalTransformer {
 public:
  // InvalidArgument naming the field for a bad config.
  static Result<std::unique_ptr<FunctionalTransformer>> Create(const FunctionalConfig& config);
  ~FunctionalTransformer();

  // Forward + backward of `batch` (global_batch rows) on every core and the
  // gradient summation. Returns the loss per target token. InvalidArgument
  // for a batch of another row count.
  Result<double> ComputeGradients(const translation::PackedRows& batch);
  // The same with only this process's cores' rows: shares[k] is core
  // parallel().local_cores().begin + k's global_batch / cores rows (the
  // other cores' token counts come from their ranks). Bitwise the batch form
  // when the shares are its rows. InvalidArgument for other counts.
  Result<double> ComputeGradients(std::span<const translation::PackedRows> shares);
  // Adam with learning rate `lr` on the gradient of the last ComputeGradients.
  Status Update(double lr);

  // Beam-search translations of `sources` (ids, end-of-sentence included),
  // in chunks of `chunk` sentences spread over the cores; each chunk decodes
  // at most (its longest source + extra_length) tokens, as tensor2tensor's
  // decode_length extends the input length (Google's v0.6 eval: +50).
  Result<std::vector<std::vector<int32_t>>> Translate(const std::vector<std::vector<int32_t>>& sources,
                                                      const translation::BeamSearchOptions& beam, int extra_length,
                                                      int chunk = 32);

  // Core `core`'s weights (all replicas are equal between steps); -1: this
  // process's first core.
  const float* weights(int core = -1) const { return dp_->weights(core < 0 ? dp_->local_cores().begin : core); }
  int64_t num_parameters() const { return layout_.total; }
  const ParameterLayout& layout() const { return layout_; }
  const functional::DataParallel& parallel() const { return *dp_; }
  // For the session's exchanges between ranks (ShareCoreValues).
  functional::DataParallel& parallel() { return *dp_; }
  int64_t steps() const { return step_; }
  // Sets every replica's weights (tests). REQUIRES: w.size() == num_parameters().
  void SetWeights(std::span<const float> w) { dp_->SetWeights(w); }

 private:
  explicit FunctionalTransformer(const FunctionalConfig& c);
  FunctionalConfig cfg_;
  ParameterLayout layout_;
  std::unique_ptr<functional::DataParallel> dp_;
  std::vector<std::unique_ptr<TransformerCore>> cores_;
  std::vector<float> adam_m_, adam_v_;  // indexed like the parameters; each core touches its shard
  int64_t step_ = 0;
  std::vector<translation::PackedRows> shares_;  // per local core, for the batch form
};

}  // namespace podbench::transformer
