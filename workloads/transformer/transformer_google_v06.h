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
const TransformerGoogleV06Slice* TransformerGoogleV06SliceFor(std::string_view slice);

// The gradient all-reduce of the preset: rings in both directions along
// both torus dimensions (a registered topology algorithm).
inline constexpr const char* kGoogleAllReduce = "torus2d_bidir";

// How many evaluations Google's v0.6 runs made before run_stop, per slice:
// `evals` blocks of training each followed by its evaluation, the last of
// which reached 25.0 BLEU, and how many of the slice's 10 published runs did
// so. Source: Google/results/tpu-v3-<N>/transformer/result_*.txt of
// mlcommons/training_results_v0.6 (columns evals and blocks_started of
// ../shared/reference/google-v0.6-runs.csv).
//
// Why `evals` and not `blocks_started` sets the training that enters the
// score: the device program runs ahead of the host (one session.run for the
// whole run), so block_start lines are logged for blocks the device starts
// while the host is still scoring the previous evaluation; blocks_started is
// evals + 1 at tpu-v3-512 and 4 or 7 (every block of the run, capped by
// train_steps) elsewhere, the same for the 3- and 4-eval runs of one slice,
// while their run times differ by one median eval gap (tpu-v3-32: 9.79 vs
// 13.02 min, gap 193.6 s). The score is therefore start-up + `evals` x
// (block + evaluation) + the host's scoring of the last evaluation.
struct TransformerConvergencePoint {
  int64_t evals = 0;
  int64_t blocks_started = 0;  // as logged; see above
  int runs = 0;
};
struct TransformerConvergenceRow {
  std::string_view slice;
  int64_t global_sequences = 0;
  std::vector<TransformerConvergencePoint> points;  // runs add up to 10
  // The published score (olympic mean of the 10 runs, minutes) and the
  // median gap between consecutive eval_accuracy lines (seconds; a block of
  // training and what of its evaluation is not overlapped), medians over
  // the runs (../shared/reference/google-v0.6-submission.md).
  double published_score_min = 0;
  double published_gap_s = 0;
  // How much longer the first block's training is than a later block's,
  // median over the runs (rules/score_split.h: run_start to block_start 2,
  // less the median block).
  double published_first_block_extra_s = 0;
};

// The host's BLEU scoring of one evaluation (eval_start to eval_stop: the
// detokenising and BLEU of the 3003 sentences), median over every
// evaluation of Google's ten tpu-v3-32 runs (rules/score_split.h); the
// larger slices' windows also wait for the decode.
inline constexpr double kPublishedBleuScoringS = 5.41;
const std::vector<TransformerConvergenceRow>& TransformerConvergenceTable();

// The row for `slice`; else the first row of the same global batch; else
// the row of the nearest global batch.
const TransformerConvergenceRow& TransformerConvergenceFor(std::string_view slice, int64_t global_sequences);

}  // namespace podbench::transformer
