// Functional Mask R-CNN: Google's MLPerf v0.6 model structure
// (../shared/reference/maskrcnn-v0.6.md §1) at a size a 2-core machine
// trains, on podbench's kernels, forward and backward, data parallel over
// the emulated cores of a slice (functional/data_parallel.h).
//
// The network, for a square image of S pixels (S a multiple of 64):
//   backbone (ResNet-style, what Google's ResNet-50 keeps and changes):
//     conv0 7x7/2 + ReLU, max pool 3x3/2 (kept); then stages res2..res5 of
//     ONE basic block each (two 3x3 convs, identity or 1x1 projection
//     shortcut; ResNet-50 has 3, 4, 6, 3 bottleneck blocks) of widths w, 2w,
//     4w, 8w at strides 4, 8, 16, 32 (ResNet-50: 256 .. 2048 channels).
//     Google freezes every batch norm of a pretrained network, i.e. a fixed
//     affine map; this model trains from scratch, so those are folded away:
//     every backbone convolution has a bias instead, and nothing is frozen.
//   FPN (kept): 1x1 lateral convs C2..C5 -> F channels, top-down nearest x2
//     upsampling and add, a 3x3 post-hoc conv per level, P6 = max pool
//     (window 1, stride 2) of P5; levels 2..6.
//   RPN (kept): a 3x3 conv (F, ReLU) then a 1x1 conv to 3 scores and 12 box
//     deltas, weights shared by every level; anchors of detection/rpn.h
//     (3 aspect ratios, one scale per level; anchor_scale configurable).
//   Proposals: detection::GenerateProposals (per-level top-k, NMS, best per
//     image). Samples: detection::SampleRpnAnchors and SampleRois as Google
//     draws them (no gradient flows through proposals or samples).
//   Box head (kept): multilevel ROIAlign 7x7 (level by ROI size), fc6 and
//     fc7 (ReLU), a class fc (classes + 1 logits) and a class-specific box fc
//     (4 (classes + 1) deltas).
//   Mask head (kept): ROIAlign 14x14 of the foreground ROIs, 4 x (3x3 conv,
//     ReLU), a 2x2 stride-2 deconvolution (ReLU), a 1x1 conv to classes + 1
//     channels: 28x28 logits; targets cropped from the ground-truth masks
//     (detection::MaskTarget).
// Losses per image (Google's losses.py), each part's gradient scaled by
// 1 / global batch so the summed gradient is that of the batch mean:
//   rpn_class: sigmoid cross entropy over the sampled anchors / their count;
//   rpn_box:   Huber (delta 1/9) on the positives' 4 deltas / sampled count;
//   frcnn_class: softmax cross entropy, mean over the sampled ROIs;
//   frcnn_box: Huber (delta 1) on the foreground ROIs' target-class deltas
//              / sampled ROIs;
//   mask:      detection::MaskLoss over the foreground ROIs.
// Optimizer: momentum SGD with weight decay on weights (not biases), bias
// gradients doubled (Google's), linear warmup then two step drops
// (LearningRate).
//
// Parallelism: the slice's cores form replicas of k = spatial_partitions
// consecutive cores; replica r takes rows [r n, (r + 1) n) of the global
// batch (n = global_batch / replicas), one host thread per core, gradients
// summed over all cores with the topology's all-reduce (the k strips' and
// the replicas' at once). Every random sample of image g at step s comes
// from a generator seeded by (seed, s, g), so any layout computes the same
// samples.
// Spatial partitioning of the first stage (k = 2 or 4; the layout of
// Google's tpu-v3-128 and -256 runs, maskrcnn-v0.6.md §2): each core of a
// replica holds a strip of rows (functional/spatial_partition.h's split) of
// every backbone, FPN and RPN tensor. A convolution or max pool whose window
// reaches a neighbour's rows gets them through the topology's functional
// "halo_exchange" over the replica (and sends their gradients back the same
// way); nearest upsampling is planned as a window too (row o reads row o/2),
// so the FPN's top-down adds work on strips whose boundaries line up, or
// take a halo. An op whose window reaches past a neighbour (res5's first conv
// at k = 4) runs on the gathered input (an all-reduce "ring" of the
// replica's disjoint strips) on every core of the replica, and the ops after
// it read their rows of that whole tensor. The FPN levels P2..P6 and the RPN
// outputs are gathered the same way at the end of the first stage, as
// proposals need whole levels. The second stage is not partitioned; it runs
// on the replica's cores as Google pinned it in training
// (core_assignment_utils.py, as the projected graph has it; core numbers
// modulo k): proposals, samples, the RPN losses and the mask targets on
// core 0, ROIAlign 7x7, the box head and its losses on core 2, ROIAlign
// 14x14, the mask head and its loss on core 1. In the backward pass
// the gradients of a gathered tensor are summed over the replica (the
// all-reduce again) and each core keeps its strip; every core adds its
// weight gradients, so the summation over all cores gives the whole
// batch's. Partitioned equals unpartitioned up to the order of sums
// (maskrcnn_functional_test).
// Predict and EvaluateShapes give detections with masks and their COCO
// box and segm AP.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/conv/conv2d.h"
#include "topology/rank_group.h"
#include "topology/system.h"
#include "workloads/detection/box.h"
#include "workloads/detection/roi_align.h"
#include "workloads/detection/rpn.h"
#include "workloads/detection/sampling.h"
#include "workloads/detection/shapes_data.h"
#include "workloads/functional/data_parallel.h"

namespace podbench::maskrcnn {

struct FunctionalConfig {
  int image_size = 64;     // square RGB input; a multiple of 64 (levels 2..6 whole)
  int classes = 4;         // object classes; the heads add the background
  int width = 8;           // res2's channels; res3..res5 have 2w, 4w, 8w
  int fpn_channels = 16;   // F (Google: 256)
  int fc_channels = 64;    // fc6, fc7 (Google: 1024)
  int mask_channels = 16;  // mask head convs and deconv (Google: 256)
  int gt_mask_size = 28;   // stored gt mask side (Google: 112)
  double anchor_scale = 4; // Google: 8 (32 px at level 2); 4 suits small images
  detection::RpnSamplingConfig rpn_sampling{0.7, 0.3, 64, 0.5};
  detection::ProposalConfig proposals{200, 0.7, 100, 0};
  detection::RoiSamplingConfig roi_sampling{32, 0.25, 0.5, 0.5, 0.0, 0.1, 0.2};

  std::string slice;  // emulated cores ("tpu-v3-8"); empty = one core
  const topology::SystemSpec* system = nullptr;  // null = topology::DefaultSystem()
  std::string allreduce = "torus2d";
  // Cores per replica, each holding a strip of rows of the first stage: 1,
  // 2 or 4. REQUIRES: divides the slice's cores.
  int spatial_partitions = 1;
  int64_t global_batch = 2;  // REQUIRES: a positive multiple of the replicas (cores / spatial_partitions)
  kernels::Precision precision = kernels::Precision::kF32;
  uint64_t seed = 1;  // initial weights and the samples' generators
  // The processes the cores are spread over (`mpirun -np R`,
  // functional/data_parallel.h); null = this process holds every core. Each
  // rank runs only its own cores, so the batch rows of replicas none of
  // whose cores it holds (IsLocalImage false) may be left as zero images
  // without ground truth; the losses and the summed gradient are every
  // rank's. A replica whose cores fall on two ranks (e.g. k = 4 over
  // R = 4 ranks of tpu-v3-8) runs its halo exchanges and gathers over the
  // ranks, and each of its ranks draws the replica's samples itself, so the
  // run equals one process bitwise.
  std::shared_ptr<topology::RankGroup> ranks;

  // InvalidArgument naming the field.
  Status Validate() const;
};

// One image's ground truth. padded_masks holds, per object, its
// detection::CropGtMask map of (gt_mask_size + 4)^2 values.
struct GroundTruth {
  std::vector<detection::Box> boxes;  // pixels
  std::vector<int> classes;           // 1..classes
  std::vector<float> padded_masks;
};

struct MaskBatch {
  std::vector<float> images;  // [n, S, S, 3]
  std::vector<GroundTruth> truth;  // per image
};

// Images first_index .. first_index + count - 1 of the shapes data (with
// masks; spec's sides must equal the config's image size), pixels scaled to
// [-1, 1], masks cropped with CropGtMask at config.gt_mask_size.
// InvalidArgument naming the field for a bad spec or size.
Result<MaskBatch> MakeShapesBatch(const detection::ShapesSpec& spec, uint64_t first_index, int64_t count,
                                  const FunctionalConfig& config);

struct LossParts {
  double rpn_class = 0, rpn_box = 0, frcnn_class = 0, frcnn_box = 0, mask = 0;  // batch means
  double total() const { return rpn_class + rpn_box + frcnn_class + frcnn_box + mask; }
};

// Google's lr_policy: warmup_init + (base - warmup_init) step / warmup_steps
// during the warmup, then base, x drop_factor[0] from drop_steps[0], x
// drop_factor[1] from drop_steps[1].
struct SgdSchedule {
  double base_lr = 0.02;
  double warmup_init = 0.002;
  int64_t warmup_steps = 20;
  int64_t drop_steps[2] = {1000, 2000};
  double drop_factor[2] = {0.1, 0.01};
  float momentum = 0.9f;
  float weight_decay = 1e-4f;
};
double LearningRate(const SgdSchedule& s, int64_t step);

// Inference (Google's eval: proposals 1000 / 0.7 / 1000, class NMS 0.5,
// 100 detections per image).
struct InferenceConfig {
  detection::ProposalConfig proposals{1000, 0.7, 1000, 0};
  float min_score = 0.05f;  // per class, softmax probability
  double nms_iou = 0.5;     // per class
  int max_detections = 100; // per image, best scores over all classes
};

// One detected instance: its class-specific box decoded from its proposal
// (deltas' tw, th capped at log(1000 / 16) as Google's), clipped to the
// image; the mask head's sigmoid of its class channel on that box, pasted
// into the image (pixel centres inside the box sample the 28x28 map
// bilinearly, edges clamped) and binarised at >= 0.5.
struct Instance {
  detection::Box box;
  float score = 0;
  int label = 0;              // 1..classes
  std::vector<uint8_t> mask;  // [S, S], 1 = the instance's pixel
};

// An RGB image as the network's input: [S, S, 3] scaled to [-1, 1] (what
// MakeShapesBatch stores).
void ShapesInput(const data::Image& image, float* dst);

// COCO box and segm AP (mAP@[0.5:0.95]) of a model's predictions on shapes
// images first_index .. first_index + count - 1 (their instance masks, run-
// length encoded, and visible areas as ground truth), from one evaluator
// (detection::EvaluateCoco).
struct MaskRcnnAp {
  double box = 0, mask = 0;
};

// A named block of parameters (a layer's weights or its bias), for tests.
struct ParamBlock {
  std::string name;  // e.g. "res3.conv1", "fpn.lateral2", "box.fc6", "mask.deconv"
  int64_t offset = 0, size = 0;
  bool bias = false;
};

class FunctionalMaskRcnn;
// The AP of `predictions` (per image) against `truth` (generated with
// masks, as many images, sides `image_size`), categories 1..classes.
// InvalidArgument when the counts differ.
Result<MaskRcnnAp> ScoreShapes(std::span<const std::vector<Instance>> predictions,
                               std::span<const detection::ShapesImage> truth, int image_size, int classes);
Result<MaskRcnnAp> EvaluateShapes(FunctionalMaskRcnn& model, const detection::ShapesSpec& spec, uint64_t first_index,
                                  int64_t count, const InferenceConfig& config = {});

class FunctionalMaskRcnn {
 public:
  static Result<std::unique_ptr<FunctionalMaskRcnn>> Create(const FunctionalConfig& config);
  ~FunctionalMaskRcnn();

  // Forward and backward of one global batch at step `step` (which seeds
  // the samples). Leaves the gradient of the batch-mean total loss in
  // gradient(); returns the batch-mean losses. InvalidArgument for a batch
  // of the wrong size or bad ground truth.
  Result<LossParts> ComputeGradients(const MaskBatch& batch, uint64_t step);
  // Forward only (losses, no gradient).
  Result<LossParts> ComputeLoss(const MaskBatch& batch, uint64_t step);
  // Momentum SGD on the last gradient at the schedule's rate for `step`.
  void Update(const SgdSchedule& schedule, int64_t step);

  // Detections of images [n, S, S, 3], image by image on the calling thread,
  // unpartitioned (inference has no batch norm or samples: any core gives
  // the same).
  // InvalidArgument for n < 0.
  Result<std::vector<std::vector<Instance>>> Predict(const float* images, int64_t n,
                                                    const InferenceConfig& config = {});

  // While frozen, every pass reuses the proposals and samples of the last
  // unfrozen pass instead of drawing new ones (for finite differences,
  // whose perturbations must not change the discrete samples).
  void FreezeSamples(bool frozen) { frozen_ = frozen; }

  std::vector<float>& parameters() { return params_; }
  const std::vector<float>& parameters() const { return params_; }
  const float* gradient() const;
  const std::vector<ParamBlock>& blocks() const { return blocks_; }
  const FunctionalConfig& config() const { return cfg_; }
  int cores() const { return cores_; }
  int replicas() const { return cores_ / cfg_.spatial_partitions; }
  // The first stage's ops over a replica's cores: how many run on strips,
  // how many on every core of the replica (on a gathered input, or reading
  // a whole tensor), how many exchange halos, and how many tensors are
  // gathered (the levels and RPN outputs the second stage reads among them).
  struct FirstStageLayout {
    int split_ops = 0, replicated_ops = 0, halo_exchanges = 0, gathers = 0;
  };
  FirstStageLayout first_stage_layout() const;
  // Whether row `row` of a global batch is an image of a replica whose
  // cores this process holds any of (always, without ranks). A replica of
  // spatial_partitions cores takes global_batch / replicas() consecutive rows.
  bool IsLocalImage(int64_t row) const;
  int64_t anchors_per_image() const;

  struct Net;
  struct Core;
  struct Samples;
  struct Plan;
  struct Comms;

 private:
  FunctionalMaskRcnn();
  Status Setup(const FunctionalConfig& config);
  Result<LossParts> Run(const MaskBatch& batch, uint64_t step, bool backward);
  Status ReplicaStep(int core, const MaskBatch& batch, uint64_t step, bool backward);
  // The first stage of `plan` on core `c` (its strips of images [n, S, S,
  // 3], the replica's), then its gathers. Collectives' errors go to
  // core.error; every core of the replica must call it (plans with k = 1
  // have no collectives: c may be -1).
  void ForwardFirstStage(const Plan& plan, Core& core, int c, const float* images, int64_t n);
  void BackwardFirstStage(const Plan& plan, Core& core, int c, int64_t n, float* grads);
  // Proposals, samples and mask targets of the replica's images [first,
  // first + n) into core.samples, from core's whole RPN outputs.
  Status DrawSamples(Core& core, int64_t first, int64_t n, const MaskBatch& batch, uint64_t step) const;
  // Everything after the first stage that core c runs, as Google pinned it
  // (see the .cc): samples, losses, heads, and with `backward` the
  // gradients of the heads and of the gathered levels and RPN outputs. Every
  // core of the slice calls it (its cores meet once).
  Status SecondStage(Core& core, int c, const MaskBatch& batch, uint64_t step, bool backward, float* grads);
  void Collective(Core& core, int c, size_t step, const char* algorithm);
  Result<std::vector<detection::Proposal>> Propose(const Plan& plan, const Core& core, int64_t img,
                                                   const detection::ProposalConfig& pc) const;
  detection::FeaturePyramid Pyramid(int64_t n) const;
  Status ForwardBoxHead(Core& core, const detection::FeaturePyramid& pyr, std::span<const float* const> levels,
                        std::span<const detection::Roi> rois) const;
  Status ForwardMaskHead(Core& core, const detection::FeaturePyramid& pyr, std::span<const float* const> levels,
                         std::span<const detection::Roi> mrois) const;

  FunctionalConfig cfg_;
  std::unique_ptr<Net> net_;
  int cores_ = 1;
  std::vector<float> params_, momentum_;
  std::vector<ParamBlock> blocks_;
  std::vector<std::unique_ptr<Core>> core_;
  std::unique_ptr<Core> eval_core_;                 // Predict's
  std::unique_ptr<Plan> train_plan_, eval_plan_;    // eval: unpartitioned
  std::unique_ptr<functional::DataParallel> dp_;
  std::unique_ptr<Comms> comms_;                    // per-step buffers, k > 1
  bool frozen_ = false;
};

}  // namespace podbench::maskrcnn
