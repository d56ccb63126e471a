// Mask R-CNN's region proposal pieces as Google's MLPerf v0.6 code has them
// (anchors.py, roi_ops.py proposal_op; ../shared/reference/maskrcnn-v0.6.md
// §1): the FPN anchors and the proposals made from the RPN's outputs.
//
// Coordinates are continuous image pixels (Box), as in the rest of
// workloads/detection/: a box's width is x1 - x0. Google's box_utils keeps
// Detectron's legacy "+1" pixel widths when it decodes, clips to W - 1 and
// encodes; here boxes are decoded, clipped to [0, W] x [0, H] and encoded
// without it (box_coder.h), the same convention ROIAlign (roi_align.h) and
// the mask targets read boxes in.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"
#include "workloads/detection/anchors.h"
#include "workloads/detection/box.h"

namespace podbench::detection {

// Centre form of a box, for BoxCoder (box_coder.h).
inline Anchor CentreForm(const Box& b) { return {b.cx(), b.cy(), b.width(), b.height()}; }

// Google's anchors.py. Level l (stride 2^l) puts, at every centre
// (stride / 2 + j stride, stride / 2 + i stride) of the image, for each scale
// s < num_scales and then each aspect ratio (ax, ay), the box of
//   width  anchor_scale 2^l 2^(s / num_scales) ax,
//   height anchor_scale 2^l 2^(s / num_scales) ay.
// Google's: levels 2..6, one scale, ratios (1, 1), (1.4, 0.7), (0.7, 1.4),
// anchor_scale 8 (32 ... 512 pixel boxes); 279,279 anchors at 832 x 1344.
struct FpnAnchorConfig {
  int min_level = 2, max_level = 6;
  int num_scales = 1;
  std::vector<std::pair<double, double>> aspect_ratios = {{1.0, 1.0}, {1.4, 0.7}, {0.7, 1.4}};  // (x, y)
  double anchor_scale = 8;
  std::int64_t image_height = 832, image_width = 1344;  // pixels

  int PerLocation() const { return num_scales * static_cast<int>(aspect_ratios.size()); }
  // InvalidArgument naming the field: levels 0 <= min <= max < 31, positive
  // scales, ratios and image sides, and image sides that 2^max_level divides
  // (Google requires it so that every level's grid is whole).
  Status Validate() const;
};

// Per level (min_level first), its anchors in the order row, column, scale,
// aspect ratio. REQUIRES: config.Validate().ok().
std::vector<std::vector<Box>> MakeFpnAnchors(const FpnAnchorConfig& config);

// One FPN level's RPN outputs for one image, in its anchors' order: one
// objectness logit and four box deltas (tx, ty, tw, th as box_coder.h
// encodes them, variances 1 for the RPN) per anchor.
struct RpnLevelOutputs {
  std::span<const Box> anchors;
  std::span<const float> logits;  // [anchors]
  std::span<const float> deltas;  // [anchors, 4]
};

// Google's proposal_op: train 2000 / 0.7 / 1000, eval 1000 / 0.7 / 1000.
struct ProposalConfig {
  int pre_nms_top_k = 2000;   // per level, by score, before NMS
  double nms_iou = 0.7;       // per level; 0 or less = no NMS
  int post_nms_top_k = 1000;  // per level after NMS, then per image over all levels
  double min_size = 0;        // pixels: shorter boxes (after clipping) are dropped
};

struct Proposal {
  Box box;
  float score = 0;  // sigmoid of the logit
  int level = 0;    // index into the levels passed
};

// Per level: the pre_nms_top_k highest scores (sigmoid of the logit; ties:
// lower anchor index first), their boxes decoded (tw, th capped at
// log(1000 / 16) as Google's BBOX_XFORM_CLIP) and clipped to the image,
// boxes left empty or narrower than min_size dropped, greedy NMS (nms.h Nms)
// keeping at most post_nms_top_k; then the post_nms_top_k best over all
// levels (ties: lower level, then higher rank). Sorted by score descending.
// InvalidArgument naming the level for mismatched logits or deltas, or for a
// non-positive top-k or image side.
Result<std::vector<Proposal>> GenerateProposals(std::span<const RpnLevelOutputs> levels, double image_height,
                                                double image_width, const ProposalConfig& config = {});

}  // namespace podbench::detection
