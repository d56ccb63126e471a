// Google's MLPerf v0.6 GNMT submission on TPU-v3, per slice: the facts of
// its run scripts that the `google-v0.6` preset of the "gnmt" workload
// (gnmt.cc) and its projected runs (gnmt_projection.h) take.
//
// Sources: MLPerf Training v0.6 results (mlcommons/training_results_v0.6 at
// f312518), Google/benchmarks/gnmt/tpu-v3-<N>/run_and_time.sh and
// implementations/tpu-v3-<N>-gnmt/nmt/{nmt.py, model.py}; summarised in
// ../shared/reference/google-v0.6-implementation.md section 5.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace podbench::gnmt {

inline constexpr int64_t kGnmtTrainPairsPerEpoch = 3442299;  // num_examples_per_epoch in the run scripts
inline constexpr int64_t kGnmtEvalSentences = 3003;         // newstest2014 (examples_to_infer)
inline constexpr int64_t kGnmtBeam = 5;
inline constexpr double kGnmtLengthPenalty = 0.6;
inline constexpr double kGnmtCoveragePenalty = 0.1;
inline constexpr double kGnmtGradientClipNorm = 5.0;  // global norm, on local gradients before the all-reduce
inline constexpr int64_t kGnmtDecaySteps = 4;          // decays of x0.5, every decay_interval after decay_start
inline constexpr double kGnmtDecayFactor = 0.5;

struct GnmtGoogleV06Slice {
  std::string_view slice;
  int64_t cores = 0;
  int64_t global_batch = 0;        // batch_size
  int64_t per_core_batch = 0;      // the per-replica batch (one core per replica)
  int64_t steps_per_epoch = 0;     // int(3442299 / global_batch): one block
  int64_t max_epochs = 0;          // max_train_epochs
  double learning_rate = 0;        // Adam, after the t2t warmup
  int64_t warmup_steps = 0;
  int64_t decay_start = 0, decay_interval = 0;
  int64_t infer_batch = 0;         // infer_batch_size (global sentences)
  int64_t eval_steps = 0;          // ceil(3003 / infer_batch)
  // Hosts that build the global batch and infeed it (the other cores get
  // zeros and gather their slice after an int32 all-reduce).
  int64_t infeed_workers = 1;

  int64_t InferPerCore() const { return infer_batch / cores; }
};

// The five slices of the submission (32 to 1024), smallest first.
const std::vector<GnmtGoogleV06Slice>& GnmtGoogleV06Slices();

}  // namespace podbench::gnmt
