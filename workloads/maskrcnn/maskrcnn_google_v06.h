// Google's MLPerf v0.6 Mask R-CNN submission on TPU-v3, per slice: the
// `google-v0.6` preset of the "maskrcnn" model and the other facts of its run
// scripts that a projected workload needs.
//
// Sources: MLPerf Training v0.6 results (mlcommons/training_results_v0.6 at
// f312518), Google/benchmarks/mask/tpu-v3-<N>/run_and_time.sh and
// implementations/tpu-v3-<N>-mask/mask_rcnn/{mask_rcnn_params.py,
// mask_rcnn_model.py}; summarised in
// ../shared/reference/google-v0.6-implementation.md section 3.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/projection/layout.h"

namespace podbench::maskrcnn {

inline constexpr int64_t kCocoTrainImages = 118287;  // num_examples_per_epoch
inline constexpr int64_t kCocoEvalImages = 5000;

// Shared by the three slices (run scripts' hparams and mask_rcnn_params.py).
inline constexpr int64_t kMaskRcnnGlobalBatch = 128;     // train_batch_size
inline constexpr int64_t kMaskRcnnStepsPerBlock = 924;   // iterations_per_loop: one epoch
inline constexpr int64_t kMaskRcnnTotalSteps = 14784;    // 16 blocks
inline constexpr double kMaskRcnnLearningRate = 0.16;    // after a linear warmup from 0
inline constexpr int64_t kMaskRcnnWarmupSteps = 1000;
inline constexpr int64_t kMaskRcnnFirstLrDropStep = 9750;    // x0.1
inline constexpr int64_t kMaskRcnnSecondLrDropStep = 13000;  // x0.01
inline constexpr double kMaskRcnnMomentum = 0.9;
inline constexpr double kMaskRcnnWeightDecay = 1e-4;  // L2 on trained weights, not BN nor biases

struct MaskRcnnGoogleV06Slice {
  std::string_view slice;
  int64_t cores = 0;
  int64_t replicas = 0;
  // 4 with input_partition_dims [1,4,1] (tpu-v3-128 and -256): each image in
  // horizontal strips, and the heads pinned to cores 0-2 (the graph's
  // Op::pinned_core).
  int64_t cores_per_replica = 1;
  int64_t per_replica_batch = 0;
  int64_t replicas_per_host = 0;
  int64_t eval_batch = 0;   // eval_batch_size (global)
  int64_t eval_steps = 0;   // ceil(5000 / eval_batch) + 1, padded images flagged is_padding

  int64_t Blocks() const { return kMaskRcnnTotalSteps / kMaskRcnnStepsPerBlock; }
  int64_t EvalPerReplicaBatch() const { return eval_batch / replicas; }
};

// The three slices of the submission (32, 128, 256), smallest first. The
// tpu-v3-256 code also pins the eval heads and concatenates the FPN levels
// for the ROI gather (reference section 3); the graph does not model that.
const std::vector<MaskRcnnGoogleV06Slice>& MaskRcnnGoogleV06Slices();

// The "maskrcnn" zoo entry's preset function: `google-v0.6` only. Momentum
// SGD, fp32 gradients, no distributed BN (it is frozen).
Result<projection::StepConfig> GoogleV06Preset(std::string_view preset, std::string_view slice,
                                               int64_t slice_cores);

}  // namespace podbench::maskrcnn
