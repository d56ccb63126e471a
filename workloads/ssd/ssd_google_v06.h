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

  double PeakLearningRate() const { return base_lr * double(global_batch) / 32.0; }
  int64_t EvalPerReplicaBatch() const { return eval_batch / replicas; }
};

// The six slices of the submission, smallest first.
const std::vector<SsdGoogleV06Slice>& SsdGoogleV06Slices();

// The "ssd" zoo entry's preset function: `google-v0.6` only. Momentum SGD,
// fp32 gradients summed over replicas, BN groups as above. Under 4-way
// partitioning the eval batch per replica is eval_batch / replicas (Google's
// eval program appears to split that batch over the 4 cores rather than the
// image; reference section 2).
Result<projection::StepConfig> GoogleV06Preset(std::string_view preset, std::string_view slice,
                                               int64_t slice_cores);

}  // namespace podbench::ssd
