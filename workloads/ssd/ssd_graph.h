// The full-size SSD-ResNet34 of MLPerf v0.6 as a projection graph (the zoo
// entry of "ssd", registered in ssd.cc).
//
// The network, as Google's v0.6 submission defines it
// (ssd/ssd_architecture.py, ssd_constants.py; ../shared/reference/
// google-v0.6-implementation.md section 2):
//   - 300x300x3 input; ResNet-34 block groups 1-3 (3, 4, 6 basic blocks of 64,
//     128, 256 channels), group 3 at stride 1, so the backbone ends at 38x38;
//   - conv0 either a 7x7 stride-2 convolution, or (space_to_depth) the host's
//     150x150x12 space-to-depth image through a 4x4 stride-1 convolution (the
//     7x7 kernel padded to 8x8 and reshaped; the stored weight stays
//     [7, 7, 3, 64]);
//   - extra layers (1x1 then 3x3 convolutions with bias and ReLU, no batch
//     norm) to 19x19x512, 10x10x512, 5x5x256, 3x3x256, 1x1x256;
//   - per level a 3x3 class head (anchors x 81) and box head (anchors x 4),
//     with 4/6/6/6/4/4 anchors: 8732 boxes;
//   - training ends with the loss: softmax cross-entropy over 8732 x 81 and
//     smooth-L1 over the boxes, and hard-negative mining (topk_mask, 3
//     negatives per positive) pinned to core 0 of a partitioned replica;
//   - evaluation ends with softmax, box decode, per-class top-200 and NMS
//     (IoU 0.5) to 200 detections, on the TPU.
#pragma once

#include <array>
#include <cstdint>

#include "base/status.h"
#include "workloads/projection/graph.h"

namespace podbench::ssd {

inline constexpr int64_t kSsdClasses = 81;      // 80 COCO classes and background
inline constexpr int64_t kSsdAnchors = 8732;    // at 300x300
inline constexpr int64_t kSsdEvalTopK = 200;    // MAX_NUM_EVAL_BOXES

struct SsdGraphOptions {
  int64_t image_size = 300;
  // conv0 as a space-to-depth stem. Google used it on every slice but
  // tpu-v3-32 (conv0_space_to_depth in the run scripts; see
  // ssd_google_v06.h); the zoo's graph has it on.
  bool space_to_depth = true;
  // Stride of the class and box heads and of the five extra 3x3 layers. The
  // defaults are MLPerf training's 300x300 network; MLPerf inference's
  // 1200x1200 ssd-resnet34 is the same network with head stride 3 and extra
  // strides {2, 2, 2, 2, 1} (what the graph test checks its published FLOPs
  // with).
  int64_t head_stride = 1;
  std::array<int64_t, 5> extra_strides = {2, 2, 2, 1, 1};
  int64_t num_classes = kSsdClasses;
};

// The graph. InvalidArgument naming the option when the image is too small
// for six levels, a stride is < 1, or space_to_depth is asked of an odd size.
Result<projection::ModelGraph> BuildSsdGraph(const SsdGraphOptions& options = {});


}  // namespace podbench::ssd
