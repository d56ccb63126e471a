// Google's MLPerf v0.6 Transformer submission on TPU-v3, per slice: the
// `google-v0.6` preset of the "transformer" model and the other facts of its
// run scripts that a projected workload needs.
//
// Sources: MLPerf Training v0.6 results (mlcommons/training_results_v0.6 at
// f312518), Google/benchmarks/transformer/tpu-v3-<N>/run_and_time.sh and
// implementations/tpu-v3-<N>-transformer/transformer/{models/transformer.py,
// utils/optimize.py}; summarised in
// ../shared/reference/google-v0.6-implementation.md section 4.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/projection/layout.h"

namespace podbench::transformer {

inline constexpr int64_t kPackedLength = 256;      // tokens per packed example (batch_size / 256 per core)
inline constexpr int64_t kEvalSentences = 3003;    // newstest2014
inline constexpr int64_t kDecodeBeam = 4;
inline constexpr double kDecodeAlpha = 0.6;        // length penalty
inline constexpr int64_t kDecodeExtraLength = 50;  // decode length = padded input (97) + 50
// Learning-rate schedule of transformer_base_v3:
// constant * linear_warmup * rsqrt_decay * rsqrt_hidden_size.
inline constexpr double kAdamEpsilon = 1e-9;       // transformer_base_v1

struct TransformerGoogleV06Slice {
  std::string_view slice;
  int64_t cores = 0;
  int64_t tokens_per_core = 0;        // batch_size hparam
  int64_t sequences_per_core = 0;     // tokens_per_core / 256: the per-replica batch
  int64_t global_sequences = 0;
  bool bf16_gradients = false;        // bfloat16_grads_all_reduce
  int64_t steps_per_block = 0;        // iterations_per_loop
  int64_t train_steps = 0;
  int64_t blocks = 0;                 // train_steps / steps_per_block
  int64_t decode_batch = 0;           // decode_hparams batch_size (global sentences)
  int64_t decode_steps = 0;           // ceil(3003 / decode_batch)
  double lr_constant = 0;             // learning_rate_constant
  int64_t warmup_steps = 0;
  double adam_beta1 = 0, adam_beta2 = 0;

  int64_t DecodePerCore() const { return decode_batch / cores; }
};

// The six slices of the submission, smallest first.
const std::vector<TransformerGoogleV06Slice>& TransformerGoogleV06Slices();

// The "transformer" zoo entry's preset function: `google-v0.6` only. Pure
// data parallelism (one core per replica), LazyAdam, gradients summed in bf16
// on tpu-v3-32 and fp32 elsewhere, no weight-update sharding (none in the
// code; a switchable technique of the emulated backend).
Result<projection::StepConfig> GoogleV06Preset(std::string_view preset, std::string_view slice,
                                               int64_t slice_cores);

}  // namespace podbench::transformer
