// The functional SSD's data: generated shapes images (detection/shapes_data.h)
// through the MLPerf v0.6 SSD reference's training input and evaluation.
//
// Training, per image and step (the reference's host pipeline):
//   - the IoU-biased random crop: each pass picks "no crop" or a minimum IoU
//     from {0, 0.1, 0.3, 0.5, 0.7, 0.9} (Google's CROP_MIN_IOU_CHOICES,
//     each 1/7), then makes up to `max_samples` tries (the MLPerf key
//     max_samples) of a crop 0.3..1 of each side with aspect 1/2..2 whose IoU
//     with every box exceeds the minimum and that holds at least one box
//     centre; boxes whose centre falls outside are dropped, the rest clipped;
//     passes repeat until one succeeds (or picks no crop);
//   - a horizontal flip with probability 1/2;
//   - bilinear resize to the network's input, normalisation with the
//     reference's mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225);
//   - anchor matching (IoU >= 0.5 plus each box's best anchor) and box
//     encoding (variances 0.1, 0.2).
// The augmentation of a batch row is drawn from its own generator, seeded
// from (the step's seed, the row) (MixSeed, base/hash.h), so a row's crop
// and flip do not depend on the other rows.
// Over MPI ranks each process renders only the images its cores consume
// (SsdDataConfig::train_row_needed / eval_image_needed, from
// FunctionalSsd::IsLocalTrainRow / IsLocalEvalImage): the rows of its
// replicas and the held-out images of the chunks its cores predict. Every
// image is a pure function of (dataset seed, index) (shapes_data.h), so the
// rows it does make are bitwise one process's. The held-out ground truth
// is shared between the ranks as their per-core predictions are
// (LocalEvalTruth / AddEvalTruth), since COCO mAP is computed over all images.
// Evaluation: the held-out images unaugmented; predictions decoded,
// softmax scores, per-class NMS (detection/nms.h) and COCO mAP in pixels,
// the ground truth's area being its visible pixel count (detection/coco_eval.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/detection/anchors.h"
#include "workloads/detection/coco_eval.h"
#include "workloads/detection/nms.h"
#include "workloads/detection/shapes_data.h"
#include "workloads/ssd/ssd_functional.h"

namespace podbench::ssd {

struct SsdDataConfig {
  detection::ShapesSpec shapes;  // height/width = the network's input; classes = its classes
  int64_t train_images = 1024;
  int64_t eval_images = 256;
  int max_samples = 1;     // crop tries per pass (the MLPerf v0.6 key)
  bool flip = true;
  // Over MPI ranks: whether this process needs row `row` of a global batch,
  // or held-out image `i`. An image nobody here needs is never rendered:
  // its batch rows, pixels, labels and targets are zeros and its ground
  // truth is absent until AddEvalTruth brings it. Null = all.
  std::function<bool(int64_t row)> train_row_needed;
  std::function<bool(int64_t i)> eval_image_needed;
};

// A crop window in pixels of the source image, and which boxes it keeps.
struct SsdCrop {
  int x = 0, y = 0, width = 0, height = 0;
  std::vector<char> keep;
};
// The reference's IoU-biased crop of an image of `height` x `width` pixels
// with boxes `boxes` (pixels). REQUIRES: boxes non-empty, max_samples >= 1.
SsdCrop SampleSsdCrop(const std::vector<detection::Box>& boxes, int height, int width, int max_samples,
                      std::mt19937_64& rng);

// Matches `truth` (normalised boxes, labels >= 1) to `anchors` and writes
// labels [anchors] (0 = background) and encoded targets [anchors, 4].
void EncodeTargets(const std::vector<detection::Anchor>& anchors, const std::vector<detection::Box>& truth,
                   const std::vector<int>& labels, int32_t* out_labels, float* out_targets);

class SsdData {
 public:
  // Renders the held-out images this process needs (image i of the held-out
  // set is sample train_images + i); training images are rendered when a
  // batch first needs them. InvalidArgument for a bad config.
  static Result<std::unique_ptr<SsdData>> Create(const SsdNet& net, const SsdDataConfig& config);

  int64_t train_images() const { return cfg_.train_images; }
  int64_t eval_images() const { return cfg_.eval_images; }
  // One global batch of training images `indices`, row b augmented by a
  // generator seeded MixSeed(step_seed, b). Rows this process does not need
  // (train_row_needed) are zeros.
  void MakeBatch(const std::vector<int64_t>& indices, uint64_t step_seed, DetectionBatch* out);
  // The held-out images, normalised: [eval_images, S, S, 3] (zeros for the
  // images this process does not need).
  const std::vector<float>& eval_pixels() const { return eval_pixels_; }
  // COCO summary of predictions [eval_images, anchors, pred_width].
  // FailedPrecondition when a held-out image's ground truth is missing
  // (another rank's, not yet added).
  Result<detection::CocoSummary> Evaluate(const std::vector<float>& predictions,
                                          const detection::NmsConfig& nms = {}) const;

  // The ground truth of the held-out images this process rendered, as bytes
  // for AddEvalTruth on the other ranks.
  std::string LocalEvalTruth() const;
  // Adds another rank's LocalEvalTruth. Corruption for malformed bytes or
  // an image index out of range.
  Status AddEvalTruth(std::string_view bytes);
  // The training and held-out images this process has rendered so far,
  // ascending. For the data-sharding tests.
  std::vector<int64_t> GeneratedTrainImages() const;
  std::vector<int64_t> GeneratedEvalImages() const;

 private:
  SsdData() = default;
  SsdDataConfig cfg_;
  int S_ = 0, classes_ = 0;
  std::vector<detection::Anchor> anchors_;
  std::vector<detection::ShapesImage> train_;        // rendered where train_made_
  std::vector<char> train_made_, eval_made_;
  std::vector<std::vector<detection::ShapeObject>> eval_truth_;  // present where eval_truth_known_
  std::vector<char> eval_truth_known_;
  std::vector<float> eval_pixels_;
};

}  // namespace podbench::ssd
