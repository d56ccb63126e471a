// Functional mode of the "maskrcnn" workload: the small Mask R-CNN of
// maskrcnn_functional.h trained on generated shapes with instance masks
// (detection/shapes_data.h), evaluated for COCO box and segm mAP every
// epoch, on the emulated clock of its own graph (FunctionalMaskRcnnGraph
// priced by the projection layer, as ResNet's and GNMT's functional runs are).
//
// Hyperparameters (maskrcnn.cc declares them): the five v0.6 keys drive the
// run (global_batch_size the step's images; opt_base_learning_rate,
// opt_learning_rate_warmup_steps and opt_learning_rate_warmup_factor
// Google's warmup, SgdSchedule; num_image_candidates the proposals kept per
// training image), first_lr_drop_step and second_lr_drop_step the two x0.1
// drops, opt_momentum and opt_weight_decay the optimizer, allreduce the
// gradient sum, spatial_partitions the cores of a replica (1, 2 or 4; its
// first stage split over them, FunctionalConfig::spatial_partitions; the
// clock prices that layout), max_epochs the budget; functional_* the
// network, the data and the two targets.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "workloads/detection/shapes_data.h"
#include "workloads/maskrcnn/maskrcnn_functional.h"
#include "workloads/projection/graph.h"
#include "workloads/workload.h"

namespace podbench::maskrcnn {

// The network, sizes and training schedule hp sets on `slice` (ranks and
// system left for the session). InvalidArgument naming the hyperparameter.
Result<FunctionalConfig> FunctionalConfigOf(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);
SgdSchedule FunctionalSchedule(const workloads::Hyperparameters& hp);
// The generated data hp asks for on images of `image_size`: dataset seed
// 20190610 (fixed; the run seed is not the data's), objects from
// functional_min_object_size pixels up to the side with spread_area_ranges
// (COCO's three area ranges), else up to 5/8 of the side. InvalidArgument
// naming the hyperparameter.
Result<detection::ShapesSpec> FunctionalShapesOf(const workloads::Hyperparameters& hp);

// The functional network as a projection graph (its emulated clock): per
// image, the training step (first stage, RPN loss, the sampled ROIs through
// the box head, the foreground ones through the mask head) and the
// evaluation (1000 proposals through the box head, 100 detections through
// the mask head). Its parameters are the model's, one for one. Placed as
// the projected graph is: the first stage, proposals and RPN loss split
// over a partitioned replica's cores, the second stage pinned
// (PinSecondStage).
Result<projection::ModelGraph> FunctionalMaskRcnnGraph(const FunctionalConfig& config);

struct ShapesDataConfig {
  detection::ShapesSpec shapes;  // sides: the model's image size
  int64_t train_images = 1024;   // samples 0 .. train_images - 1
  int64_t eval_images = 128;     // samples train_images .. + eval_images - 1
  // Over MPI ranks: whether this process needs row `row` of a global batch
  // (FunctionalMaskRcnn::IsLocalImage). Rows nobody here needs are zero
  // images without ground truth, never rendered. Null = every row.
  std::function<bool(int64_t row)> row_needed;
};

// The training images, rendered per batch for the rows this process needs,
// and the held-out set, rendered once on every process (every rank
// evaluates the whole set with the same weights, so they agree).
class ShapesData {
 public:
  // InvalidArgument for a bad spec, a size other than the model's or
  // counts < 1.
  static Result<std::unique_ptr<ShapesData>> Create(const ShapesDataConfig& config, const FunctionalConfig& model);

  int64_t train_images() const { return cfg_.train_images; }
  // Global batch of training samples `indices` (each in [0, train_images)).
  Status MakeBatch(std::span<const int64_t> indices, MaskBatch* out);
  // The model's COCO box and segm AP on the held-out set.
  Result<MaskRcnnAp> Evaluate(FunctionalMaskRcnn& model) const;
  // The training samples this process has rendered so far, ascending (for
  // the per-rank data test).
  std::vector<int64_t> RenderedTrainImages() const;

 private:
  ShapesData() = default;
  ShapesDataConfig cfg_;
  FunctionalConfig model_;
  std::vector<char> rendered_;
  std::vector<detection::ShapesImage> eval_truth_;
  std::vector<float> eval_pixels_;
};

std::unique_ptr<workloads::Session> StartFunctionalSession(const workloads::RunContext& ctx);

}  // namespace podbench::maskrcnn
