// The full-size Mask R-CNN (ResNet-50-FPN) of MLPerf v0.6 as a projection
// graph (maskrcnn.cc registers it as "maskrcnn").
//
// The network, as Google's v0.6 submission defines it (mask_rcnn/
// {mask_rcnn_params.py, mask_rcnn_architecture.py, fpn.py, resnet.py,
// mask_rcnn_model.py}; ../shared/reference/google-v0.6-implementation.md
// section 3), per image of 832x1344 (the tf.cond's other branch, 1344x832, has
// the same work):
//   - ResNet-50 with the stride on each bottleneck's 3x3 convolution, conv0 as
//     the host's space-to-depth image (416x672x12) through a 4x4 convolution.
//     Batch norm is frozen everywhere (inference mode, scale and shift not
//     trained); conv0 and res2's 10 convolutions are not trained either;
//   - FPN P2-P5 (1x1 laterals and 3x3 outputs, with bias; nearest-neighbour
//     top-down adds) and P6 (P5 subsampled by 2);
//   - RPN, one head shared by the 5 levels: 3x3/256 with ReLU, 1x1 to 3
//     scores and 12 box deltas (3 anchors per location). Proposals per level:
//     top 2000, NMS 0.7, 1000 kept, then the best 1000 over all levels;
//   - training: 512 sampled ROIs (25% foreground); ROIAlign 7x7 -> box head
//     (FC 1024, FC 1024, 91 classes, 91x4 boxes) on core 2 of a partitioned
//     replica; the up to 128 foreground ROIs: mask targets cropped on core 0,
//     ROIAlign 14x14 -> mask head (4 conv 3x3/256, a 2x2 stride-2 deconv,
//     1x1 to 28x28x91) and its loss on core 1 (core_assignment_utils.py);
//   - evaluation: 1000 proposals through the box head, per-class NMS (0.5) to
//     100 detections, the mask head on those 100.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "workloads/projection/graph.h"
#include "workloads/projection/graph_builder.h"

namespace podbench::maskrcnn {

inline constexpr int64_t kMaskRcnnClasses = 91;        // COCO category ids and background
inline constexpr int64_t kTrainRoisPerImage = 512;     // batch_size_per_im
inline constexpr int64_t kMaskedRoisPerImage = 128;    // 512 x fg_fraction 0.25
inline constexpr int64_t kEvalRoisPerImage = 1000;     // test_rpn_post_nms_topn
inline constexpr int64_t kEvalDetectionsPerImage = 100;

// The second stage under spatial partitioning, as Google pinned it in
// training (core_assignment_utils.py): each part runs whole on one core of
// the replica (numbers modulo its cores), the parts side by side. The
// projected graph (below), the functional graph (maskrcnn_session.h) and the
// functional model (maskrcnn_functional.h) all place them here.
enum class SecondStagePart {
  kSamples,   // the ROI samples and the foreground ROIs' mask targets: core 0
  kMaskHead,  // ROIAlign 14x14, the mask head and its loss: core 1
  kBoxHead,   // ROIAlign 7x7, the box head and its losses: core 2
};
int64_t PinnedCore(SecondStagePart part);
// Makes the ops `w` writes next run pinned (projection::Placement::
// kPinnedCore0) on `part`'s core, or on core 0 when !distribute (the
// projected what-if that runs the whole second stage there).
void PinSecondStage(projection::OpWriter& w, SecondStagePart part, bool distribute = true);

struct MaskRcnnGraphOptions {
  int64_t image_height = 832, image_width = 1344;  // image_size, padded
  bool space_to_depth = true;                      // conv0 on the host's space-to-depth image
  // Google's ResNet strides each bottleneck's 3x3 convolution. Detectron2's
  // R-50 (MSRA weights; the published FLOPs the graph test checks) strides
  // the first 1x1 instead.
  bool stride_in_1x1 = false;
  int64_t num_classes = kMaskRcnnClasses;
  // Under spatial partitioning (what-ifs of Google's layout, the seed
  // paper's "multi-core distribution in first and second stages"):
  //   partition_first_stage  backbone, FPN and RPN split over the replica's
  //                          cores along H (Google); false: they run whole
  //                          on its core 0 while the others wait;
  //   distribute_heads       the second stage pinned as Google pinned it
  //                          (box head core 2, mask targets core 0, mask
  //                          head core 1, side by side); false: all of it
  //                          on core 0.
  bool partition_first_stage = true;
  bool distribute_heads = true;
};

// Google's v0.6 host work per image (maskrcnn-v0.6.md §1, §3): the infeed
// of a training image and its labels, the outfeed of an evaluated image's
// detections and masks, and the host's scoring of it (mask pasting and RLE
// encoding in 16 worker processes, then COCOeval of boxes and masks in one).
// Counts only; the rates are the system file's.
projection::HostWork MaskRcnnHostWork(const MaskRcnnGraphOptions& options, int64_t anchors);

// The graph. InvalidArgument naming the option unless both image sides are
// positive multiples of 32 (P5 is 1/32 of the image) and num_classes >= 2.
Result<projection::ModelGraph> BuildMaskRcnnGraph(const MaskRcnnGraphOptions& options = {});


}  // namespace podbench::maskrcnn
