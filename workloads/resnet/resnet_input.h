// The functional ResNet's data: the generated image set (workloads/data/
// synthetic_images.h), held in memory as normalised fp32 images, or written
// once as an ImageNet-format JPEG tree and read through the host input
// pipeline (workloads/data/input_pipeline.h), as the full-size runs read
// ImageNet.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "base/status.h"
#include "workloads/data/input_pipeline.h"
#include "workloads/data/synthetic_images.h"

namespace podbench::resnet {

struct FunctionalDataConfig {
  data::SyntheticImageSpec images;  // the network's side and classes; the dataset's seed
  int64_t train_examples = 0;
  int64_t eval_examples = 0;
  int64_t global_batch = 1;
  bool jpeg = false;             // through the JPEG tree and the input pipeline
  bool flip = true;              // random horizontal flips of training images
  // input=jpeg: the tree's cache folder (empty: <temp>/podbench-data) and
  // the decode threads (0: one per host core).
  std::filesystem::path cache_dir;
  int input_threads = 2;
  uint64_t seed = 0;             // the run's: shuffles, flips, crops
  // Over MPI ranks: whether this process needs row `row` of a training
  // batch, or held-out image `i` (FunctionalResNet::IsLocalTrainRow /
  // IsLocalEvalImage). Images it does not need are never generated (memory)
  // or read and decoded (jpeg: the pipeline skips those rows): their batch
  // rows, held-out images and labels are zeros. Shuffles, flips and crops
  // are drawn as in one process, so the rows it needs are bitwise one
  // process's. Null = all. (input=jpeg still writes the whole JPEG tree once
  // per cache folder: that is the dataset on disk, as ImageNet is, not the
  // run's reading of it.)
  std::function<bool(int64_t row)> train_row_needed;
  std::function<bool(int64_t i)> eval_image_needed;
};

// Training batches and the held-out images of one run.
class FunctionalData {
 public:
  // Generates (memory) or opens (jpeg; writing the tree once) the data.
  // Errors name the JPEG folder when it holds another number of images.
  static Result<std::unique_ptr<FunctionalData>> Create(const FunctionalDataConfig& config);

  int64_t steps_per_epoch() const { return steps_per_epoch_; }
  // Fills `x` ([batch, side, side, 3] normalised fp32) and `y` with training
  // step `s` of the current epoch; StartEpoch reshuffles (memory input).
  void StartEpoch();
  Status Batch(int64_t s, std::vector<float>* x, std::vector<int32_t>* y);
  const std::vector<float>& eval_images() const { return eval_x_; }
  const std::vector<int32_t>& eval_labels() const { return eval_y_; }
  // Memory input: the indices of the training and held-out images this
  // process has generated so far, ascending (training images are generated
  // when a batch first needs them). For the data-sharding tests. (The JPEG
  // pipeline's equivalent is tested in input_pipeline_test.)
  std::vector<int64_t> GeneratedTrainImages() const;
  std::vector<int64_t> GeneratedEvalImages() const;

 private:
  FunctionalData() = default;
  Status OpenJpeg(data::SyntheticImageSpec spec);
  // Writes image `index` of the generated set, normalised, to `dst` (one
  // image) and returns its label.
  static int32_t Generate(const data::SyntheticImageSpec& spec, uint64_t index, float* dst);
  size_t ImageFloats() const;

  FunctionalDataConfig cfg_;
  int64_t steps_per_epoch_ = 1;
  std::vector<float> train_x_, eval_x_;
  std::vector<int32_t> train_y_, eval_y_;
  std::vector<char> train_made_, eval_made_;  // memory input: which images are generated
  std::vector<int64_t> order_;
  std::mt19937_64 rng_;
  std::unique_ptr<data::InputPipeline> pipeline_;  // jpeg
};

}  // namespace podbench::resnet
