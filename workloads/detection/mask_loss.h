// Mask R-CNN's mask branch targets and loss, as Google's MLPerf v0.6 code
// computes them (training_ops.py get_mask_targets, losses.py
// _mask_rcnn_loss; ../shared/reference/maskrcnn-v0.6.md §1).
//
// Ground-truth masks. Each instance's mask is held as Google's data loader
// holds it: its gt box's crop of the instance mask resampled to G x G
// (Google: G = gt_mask_size = 112), with a border of 2 zero cells on every
// side, so a (G + 4) x (G + 4) map ("padded mask").
//
// Mask target of a foreground ROI (S x S, Google: 28). The ROI is mapped
// into the padded mask of the ground truth it was matched to:
//   y = (roi.y0 - gt.y0) G / (gt.h + eps) + 2,   h = roi.h G / (gt.h + eps)
// (x and w alike, eps = 1e-8), resampled with ROIAlign's sampling
// (roi_align.h CropAndResize: one bilinear sample per bin centre, border
// cell G + 3), then binarised: 1 where the sample is >= 0.5, else 0.
//
// Mask loss. The mask head predicts S x S logits per class; only the channel
// of the ROI's class (its class target) is scored, by sigmoid cross entropy
// against the target, summed over every pixel of every ROI whose class is
// > 0 and divided by their count (TensorFlow's SUM_BY_NONZERO_WEIGHTS):
//   L = sum_{r: class_r > 0} sum_p xent(logit[r, p, class_r], target[r, p])
//       / (#{r: class_r > 0} S^2),
// and L = 0 (with a zero gradient) when no ROI has a class.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"
#include "workloads/detection/box.h"

namespace podbench::detection {

inline constexpr int kMaskBorder = 2;  // zero cells around a stored gt mask

// The padded mask of one instance, as Google's data loader makes it
// (dataloader.py / preprocess_ops.py crop_gt_masks): TensorFlow's
// crop_and_resize, bilinear, of the instance's image mask [h, w] over its
// gt box (pixels, normalised by the mask's w and h as Google divides by the
// image size), to gt_size x gt_size, placed inside a kMaskBorder zero border:
// padded [(gt_size + 4), (gt_size + 4)] (overwritten). crop_and_resize reads
// output row i at mask row y0 / h (h - 1) + i (y1 - y0) / h (h - 1) /
// (gt_size - 1) (the box's centre when gt_size is 1), columns alike, and
// writes 0 where that falls outside [0, h - 1]. The values are not
// binarised (MaskTarget binarises what it resamples from them).
// InvalidArgument naming the input for h, w or gt_size <= 0 or a non-finite
// box.
Status CropGtMask(const float* mask, std::int64_t h, std::int64_t w, const Box& gt_box, int gt_size, float* padded);

// target [size, size] (overwritten) for `roi` matched to ground truth
// `gt_box`, from its padded mask [padded, padded]. InvalidArgument naming
// the input when padded <= 2 * kMaskBorder, size <= 0, or a box is not
// finite.
Status MaskTarget(const float* padded_mask, std::int64_t padded, const Box& gt_box, const Box& roi, int size,
                  float* target);

struct MaskLossShape {
  std::int64_t rois = 0;     // R
  std::int64_t size = 28;    // S
  std::int64_t classes = 1;  // mask head channels, background included
};

// logits [R, S, S, classes] (the mask head's NHWC output), targets [R, S, S]
// (0 or 1), roi_class [R] (class target of each ROI; 0 = not a mask ROI).
// Returns L above; when dlogits is not null it is overwritten with dL/dlogits
// (0 on every channel but the ROI's class). InvalidArgument naming the input
// for a negative or oversized shape, a roi_class of the wrong length or a
// class outside [0, classes).
Result<double> MaskLoss(const MaskLossShape& s, const float* logits, const float* targets,
                        std::span<const int> roi_class, float* dlogits);

}  // namespace podbench::detection
