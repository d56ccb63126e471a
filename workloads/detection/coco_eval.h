// COCO-style detection mAP, computed by podbench with the semantics of
// pycocotools' COCOeval (evaluate, accumulate, summarize) as MLPerf v0.6
// scored SSD and Mask R-CNN with it (../shared/reference/metrics-coco-bleu.md):
//   - IoU thresholds 0.50:0.05:0.95 and recall thresholds 0:0.01:1 (101
//     points), both built as numpy's linspace builds them (i * step + start,
//     the last one exactly the end);
//   - area ranges all / small / medium / large on the ground truth's `area`
//     field (limits 32^2 and 96^2 belong to both neighbouring ranges), maxDets
//     1, 10, 100 per image and category;
//   - per image and category, detections by score descending (stable), the
//     first 100 kept before matching; each matched greedily to the unmatched
//     ground truth of highest IoU >= the threshold (a later one on equal IoU),
//     non-ignored ground truth first; crowd regions (IoU = intersection over
//     the detection's area) absorb any number of detections, which are then
//     ignored; ground truth outside the area range and unmatched detections
//     whose own area is outside it are ignored; the 1- and 10-detection
//     results are prefixes of the 100-detection matching;
//   - precision at each recall threshold is the maximum precision at any
//     recall at or above it; categories without (non-ignored) ground truth
//     are left out of the means.
// The evaluator is generic over the geometry (CocoGeometry), one per
// pycocotools iouType: boxes (CocoBoxGeometry, "bbox") and masks
// (CocoMaskGeometry, "segm": IoU the pixel count of the two masks'
// intersection over that of their union, over the detection mask's pixel
// count when `crowd`, as maskUtils.iou does; a detection's area its mask's
// pixel count, as loadRes sets it). The ground truth's area range always
// comes from its `area` field (COCO's own files hold the polygon's area
// there, not the pixel count; ShapeObject::area in shapes_data.h is the
// mask's pixel count). The matching, accumulation and summary here are
// shared unchanged by both iouTypes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/detection/mask_rle.h"

namespace podbench::detection {

struct CocoGroundTruth {
  int64_t id = 0;           // REQUIRES: >= 1, unique (COCOeval uses 0 for "unmatched")
  int64_t image_id = 0;
  int64_t category_id = 0;
  double area = 0;          // the annotation's area field (COCO: the mask's), for the area ranges
  bool iscrowd = false;
};

struct CocoDetection {
  int64_t image_id = 0;
  int64_t category_id = 0;
  double score = 0;
};

struct CocoInput {
  std::vector<int64_t> image_ids;     // the evaluated images (duplicates allowed)
  std::vector<int64_t> category_ids;  // the categories (duplicates allowed)
  std::vector<CocoGroundTruth> truth;
  std::vector<CocoDetection> detections;
};

// The overlaps the evaluator matches on, by index into the input's `truth`
// and `detections` lists.
class CocoGeometry {
 public:
  virtual ~CocoGeometry() = default;
  // InvalidArgument naming the entry when the geometry does not describe
  // `in` (one shape per ground truth and per detection, and whatever the
  // geometry needs of them). EvaluateCoco calls it first.
  virtual Status Validate(const CocoInput& in) const = 0;
  // IoU of detection `d` with ground truth `g`; when `crowd`, intersection
  // over the detection's area instead (pycocotools' iscrowd rule).
  virtual double Iou(size_t d, size_t g, bool crowd) const = 0;
  // The detection's own area (bbox: w * h; segm: the mask's pixel count),
  // which decides whether an unmatched detection counts in an area range.
  virtual double DetectionArea(size_t d) const = 0;
};

// Boxes as COCO writes them: [x, y, width, height]. IoU with pycocotools'
// arithmetic (areas w * h, overlap from x + w; 0 unless both overlaps > 0).
using CocoBox = std::array<double, 4>;
class CocoBoxGeometry final : public CocoGeometry {
 public:
  CocoBoxGeometry(std::vector<CocoBox> detections, std::vector<CocoBox> truth)
      : dt_(std::move(detections)), gt_(std::move(truth)) {}
  // One box per entry, every coordinate finite.
  Status Validate(const CocoInput& in) const override;
  double Iou(size_t d, size_t g, bool crowd) const override;
  double DetectionArea(size_t d) const override { return dt_[d][2] * dt_[d][3]; }

 private:
  std::vector<CocoBox> dt_, gt_;
};

// Masks (mask_rle.h; coco_segmentation.h makes them from COCO's forms).
// Pixel areas are counted once, here.
class CocoMaskGeometry final : public CocoGeometry {
 public:
  CocoMaskGeometry(std::vector<Rle> detections, std::vector<Rle> truth);
  // One mask per entry, each one's counts summing to its size, and all masks
  // on one image of the same size.
  Status Validate(const CocoInput& in) const override;
  double Iou(size_t d, size_t g, bool crowd) const override;
  double DetectionArea(size_t d) const override { return dt_area_[d]; }

 private:
  std::vector<Rle> dt_, gt_;
  std::vector<double> dt_area_;  // pixel counts
};

// The 12 numbers of COCOeval.summarize(), in its order; -1 where COCO prints
// -1 (no ground truth in that area range).
struct CocoSummary {
  static constexpr int kCount = 12;
  std::array<double, kCount> stats{};
  // "AP", "AP50", "AP75", "APs", "APm", "APl", "AR1", "AR10", "AR100",
  // "ARs", "ARm", "ARl".
  static const std::array<const char*, kCount>& Names();
  double ap() const { return stats[0]; }  // mAP@[0.5:0.95], all areas, 100 detections
};

// Evaluates `input` with the overlaps of `geometry`. InvalidArgument naming
// the entry for: a ground-truth id < 1 or repeated, an annotation or a
// detection on an image or category not listed, a non-finite score or area,
// and whatever geometry.Validate(input) refuses.
Result<CocoSummary> EvaluateCoco(const CocoInput& input, const CocoGeometry& geometry);

}  // namespace podbench::detection
