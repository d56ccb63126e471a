// Google's MLPerf v0.6 ResNet-50 submission on TPU-v3: the per-slice
// configuration (the `google-v0.6` preset) and the convergence table.
//
// Sources: MLPerf Training v0.6 results, Google/benchmarks/resnet/
// implementations/tpu-v3-<N>-resnet (run_and_time.sh, lars_util.py,
// resnet_model.py) and Google/results/tpu-v3-<N>/resnet/result_*.txt.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace podbench::resnet {

// ImageNet 2012 (ILSVRC) training and validation images.
constexpr int64_t kImageNetTrainImages = 1281167;
constexpr int64_t kImageNetEvalImages = 50000;

struct GoogleV06Config {
  std::string_view slice;      // "tpu-v3-32" ...
  int64_t cores = 0;
  int64_t global_batch = 0;
  int64_t per_core_batch = 0;
  int64_t steps_per_eval = 0;  // iterations_per_loop: about 4 epochs
  int64_t train_steps = 0;     // rounded up to whole blocks
  int64_t eval_batch = 0;
  int64_t eval_steps = 0;      // 50,000 images padded to eval_steps * eval_batch
  int64_t bn_group = 1;        // distributed_group_size (replicas per BN group)
  double base_lr = 0;          // LARS
  double warmup_epochs = 0;
  double weight_decay = 0;
  double lars_epsilon = 0;
  int64_t decay_steps = 0;     // polynomial (power 2) decay after warmup
  double end_lr = 1e-4;
  double label_smoothing = 0.1;
  // Published score (olympic mean of 5 runs, minutes) and the median
  // 4-epoch block time including its evaluation (seconds).
  double published_score_min = 0;
  double published_block_s = 0;
  // The host pipeline caches decoded images (cache_decoded_image in the run
  // scripts): the first epoch decodes every image in full, later ones crop
  // from memory. Otherwise raw records are cached and decoded every epoch.
  bool cache_decoded_image = false;
  // How much longer the first block (run_start to the first eval) is than
  // the median block, median over the 5 runs (seconds; read from the logs).
  double published_first_block_extra_s = 0;
};

// The six slices of the submission, smallest first.
const std::vector<GoogleV06Config>& GoogleV06Configs();
std::optional<GoogleV06Config> GoogleV06ConfigFor(std::string_view slice);

// Epochs to reach 75.9% top-1 at a global batch: the eval epochs at which
// runs first reached the target, with how many of the published runs did so.
struct ConvergencePoint {
  int64_t epochs = 0;
  int runs = 0;
};
struct ConvergenceRow {
  int64_t global_batch = 0;
  std::vector<ConvergencePoint> points;
  double MeanEpochs() const;
};

// The table, from Google's v0.6 logs (first eval_accuracy >= 0.759; the one
// aborted run at tpu-v3-1024 is left out). Larger batches need more epochs.
const std::vector<ConvergenceRow>& ConvergenceTable();

// The row for `global_batch`: exact, else the nearest batch below, else the
// smallest (batches below 4096 converge in no fewer epochs than 4096 does in
// this table; MLPerf's reference at batch 256 needs about 60-64 as well).
const ConvergenceRow& ConvergenceFor(int64_t global_batch);

// The same per slice: the epochs at which each of Google's five runs on a
// slice first reached 0.759 (tpu-v3-1024: the four that did; the fifth was
// aborted at 76). A projected run on a slice Google ran at its batch draws
// from that slice's runs, as SSD's and the Transformer's do; elsewhere from
// the batch's pooled row (ConvergenceFor). The slice's row, or nullptr.
struct SliceConvergence {
  std::string_view slice;
  int64_t global_batch = 0;
  std::vector<ConvergencePoint> points;
};
const SliceConvergence* SliceConvergenceFor(std::string_view slice, int64_t global_batch);

}  // namespace podbench::resnet
