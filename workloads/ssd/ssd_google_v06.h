// Google's MLPerf v0.6 SSD submission on TPU-v3, per slice: the `google-v0.6`
// preset of the "ssd" model and the other facts of its run scripts that a
// projected workload needs (steps per block, blocks, evaluation, learning
// rate schedule).
//
// Sources: MLPerf Training v0.6 results (mlcommons/training_results_v0.6 at
// f312518), Google/benchmarks/ssd/tpu-v3-<N>/run_and_time.sh and
// implementations/tpu-v3-<N>-ssd/ssd/{ssd_model.py, ssd_constants.py};
// summarised in ../shared/reference/google-v0.6-implementation.md section 2.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/projection/layout.h"

namespace podbench::ssd {

// num_examples_per_epoch (ssd_model.py default_hparams): COCO 2017 train
// images with boxes, rounded.
inline constexpr int64_t kSsdTrainImagesPerEpoch = 120000;
inline constexpr int64_t kSsdEvalImages = 5000;  // COCO val2017
inline constexpr double kSsdMomentum = 0.9;      // ssd_constants.MOMENTUM
inline constexpr double kSsdWeightDecay = 5e-4;  // L2 on every trainable variable

struct SsdGoogleV06Slice {
  std::string_view slice;         // "tpu-v3-32" ...
  int64_t cores = 0;
  int64_t replicas = 0;           // num_shards
  // 4 with input_partition_dims [1,4,1,1] (tpu-v3-1024 and -2048): each image
  // split 4 ways along its height.
  int64_t cores_per_replica = 1;
  int64_t global_batch = 0;       // train_batch_size
  int64_t per_replica_batch = 0;
  int64_t steps_per_block = 0;    // iterations_per_loop
  int64_t epochs = 0;             // num_epochs (the budget; runs stop at the target)
  int64_t blocks = 0;             // ceil(epochs * 120000 / global_batch / steps_per_block)
  int64_t eval_batch = 0;         // eval_batch_size (global)
  int64_t eval_steps = 0;         // ceil(5000 / eval_batch): the padded eval set
  // distributed_group_size: replicas per BN group (BN span = bn_group x
  // per_replica_batch = 64 images on every slice).
  int64_t bn_group = 1;
  // The 2-D BN tile and the slice shape it is cut from, in chips (0: unset,
  // contiguous groups).
  int64_t dbn_tile_row = 0, dbn_tile_col = 0;
  int64_t tpu_slice_row = 0, tpu_slice_col = 0;
  bool space_to_depth = true;     // conv0_space_to_depth
  double lr_warmup_epochs = 0;
  // base_learning_rate per 32 images: the peak rate is base x global_batch / 32
  // (learning_rate_schedule), then x0.1 and x0.01 at the two drop epochs.
  double base_lr = 0;
  double first_lr_drop_epoch = 0, second_lr_drop_epoch = 0;
  // How much longer the first block is than the later ones, median over the
  // five runs (rules/score_split.h: the first block_start segment less its
  // blocks and evaluation at the fitted block and evaluation times).
  double published_first_block_extra_s = 0;

  double PeakLearningRate() const { return base_lr * double(global_batch) / 32.0; }
  int64_t EvalPerReplicaBatch() const { return eval_batch / replicas; }
};

// The six slices of the submission, smallest first.
const std::vector<SsdGoogleV06Slice>& SsdGoogleV06Slices();

// COCO scoring of one evaluation on the host: the block_start after the
// run's last evaluation (when its detections reached the host) to run_stop,
// median over the five tpu-v3-32 runs (rules/score_split.h).
inline constexpr double kPublishedCocoScoringS = 6.23;
// The row of `slice`, or nullptr.
const SsdGoogleV06Slice* FindSsdGoogleV06Slice(std::string_view slice);

// Where Google's runs evaluated (their logs): after `blocks` blocks of
// iterations_per_loop steps, logged with eval_accuracy's epoch_num `label`
// (the first epoch of the next block). Batch 1024: labels 33, 43, 49, 54,
// 59, 65 after 6, 8, 9, 10, 11, 12 blocks of 625 steps; batch 2048: 33, 44,
// 49, 54, 60, 65, 71, 76, 81 after 6, 8, ..., 15 blocks of 313 steps.
struct SsdEvalPoint {
  int64_t label = 0;
  int64_t blocks = 0;
};
// Empty for a batch Google did not run.
const std::vector<SsdEvalPoint>& SsdEvalSchedule(int64_t global_batch);
// Steps per block at `global_batch` (iterations_per_loop: 625 at 1024, 313 at
// 2048); 0 for a batch Google did not run.
int64_t SsdStepsPerBlock(int64_t global_batch);

// The convergence table: per slice, the eval (its label) at which each of
// Google's five scored runs first reached mAP 0.23, counting only the evals
// logged before run_stop (SSD logs one more after it). Read from
// fixtures/logs/v0.6/Google/results/tpu-v3-N/ssd/result_{0..4}.txt
// (../shared/reference/google-v0.6-runs.csv, column last_eval_label): every
// run at batch 1024 succeeded at its 5th eval (label 59), every run at 2048
// at its 8th (label 76).
struct SsdConvergence {
  std::string_view slice;
  int64_t global_batch = 0;
  std::vector<int64_t> success_labels;  // one per published run
};
const std::vector<SsdConvergence>& SsdConvergenceTable();
// The row of `slice`, else the first row at `global_batch`, else nullptr.
const SsdConvergence* SsdConvergenceFor(std::string_view slice, int64_t global_batch);

}  // namespace podbench::ssd
