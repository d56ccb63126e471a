// Mask R-CNN's training samples as Google's MLPerf v0.6 code draws them
// (../shared/reference/maskrcnn-v0.6.md §1):
//   - RPN anchors (anchors.py AnchorLabeler, on the host): an ArgMaxMatcher
//     at IoU 0.7 / 0.3, then 256 anchors per image at most half positive;
//   - second-stage ROIs (training_ops.py proposal_label_op): the proposals
//     plus the ground-truth boxes, 512 per image at most 25% foreground.
// Sampling is a uniform random subset, drawn from the caller's generator
// (`Rng`: a partial Fisher-Yates shuffle on its raw 64-bit output, so a seed
// gives the same sample with every standard library).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "base/status.h"
#include "workloads/detection/box.h"

namespace podbench::detection {

using Rng = std::mt19937_64;

// A uniform random subset of min(k, candidates.size()) of `candidates`,
// returned in ascending order.
std::vector<int> SampleSubset(std::vector<int> candidates, int k, Rng& rng);

// Google's ArgMaxMatcher(0.7, 0.3, negatives_lower_than_unmatched,
// force_match_for_each_row) over IoU: an anchor whose best IoU (first
// ground truth on ties) is >= positive_iou is matched to that box, one below
// negative_iou is negative, one in between is ignored; then each ground-truth
// box's best anchor (first anchor on ties) is matched to it whatever the IoU
// (the lowest-index box wins an anchor two boxes pick). Unlike matching.h's
// SSD matcher: two thresholds, an ignore band, forced matches at IoU 0 too,
// and the first claimant wins.
inline constexpr int kRpnNegative = -1;
inline constexpr int kRpnIgnored = -2;
struct RpnSamplingConfig {
  double positive_iou = 0.7;
  double negative_iou = 0.3;
  int batch = 256;                 // anchors sampled per image
  double positive_fraction = 0.5;  // at most int(batch * fraction) positives
};
// Per anchor: the ground-truth index, kRpnNegative or kRpnIgnored.
std::vector<int> MatchRpnAnchors(std::span<const Box> anchors, std::span<const Box> truth,
                                 const RpnSamplingConfig& config = {});

struct RpnTargets {
  std::vector<int> labels;  // per anchor: 1 sampled positive, 0 sampled negative, -1 not sampled
  std::vector<std::array<float, 4>> boxes;  // per anchor: box_coder.h encoding (variances 1) of its match; 0 unless positive
  int positives = 0, negatives = 0;
};
// Google's RPN targets: the matching above, then up to
// int(batch * positive_fraction) positives at random and batch - (those
// drawn) negatives at random (fewer when there are fewer). No ground truth:
// every anchor is negative. InvalidArgument naming the field for a batch
// <= 0, a fraction outside [0, 1] or thresholds with negative_iou >
// positive_iou.
Result<RpnTargets> SampleRpnAnchors(std::span<const Box> anchors, std::span<const Box> truth,
                                    const RpnSamplingConfig& config, Rng& rng);

// Google's proposal_label_op. The candidates are the proposals followed by
// the ground-truth boxes (Detectron includes them on purpose). Each takes
// the ground truth it overlaps most (first on ties): foreground when that
// IoU > fg_iou (strictly, as Google's tf.greater), background when it is in
// [bg_iou_lo, bg_iou_hi); others are never sampled. Up to
// int(batch * fg_fraction) foreground at random, then batch - (those drawn)
// background at random. Google pads a short sample to the batch with
// ignored candidates for static shapes; here it is just shorter.
struct RoiSamplingConfig {
  int batch = 512;
  double fg_fraction = 0.25;
  double fg_iou = 0.5;
  double bg_iou_hi = 0.5, bg_iou_lo = 0.0;
  // Google's bbox_reg_weights (10, 10, 5, 5): box_coder.h variances 0.1, 0.2.
  double center_variance = 0.1, size_variance = 0.2;
};
struct SampledRois {
  // In candidate order (Google gathers its sample by ascending index).
  std::vector<Box> rois;
  std::vector<int> classes;     // the matched box's class if foreground, else 0
  std::vector<int> matched;     // the matched ground-truth index if foreground, else -1
  std::vector<std::array<float, 4>> box_targets;  // encoding of the match against the ROI; 0 if background
  int foreground = 0;
};
// truth_classes: one class (>= 1) per ground-truth box. No ground truth:
// every proposal is background. InvalidArgument naming the field for
// mismatched truth and classes, a class < 1, batch <= 0, a fraction outside
// [0, 1] or bg_iou_lo > bg_iou_hi.
Result<SampledRois> SampleRois(std::span<const Box> proposals, std::span<const Box> truth,
                               std::span<const int> truth_classes, const RoiSamplingConfig& config, Rng& rng);

}  // namespace podbench::detection
