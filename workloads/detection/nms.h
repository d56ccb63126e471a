// Non-maximum suppression and the per-class post-processing of SSD's
// evaluation (MLPerf v0.6 reference: scores above MIN_SCORE 0.05, per class
// the top 200 candidates, NMS at OVERLAP_CRITERIA 0.5, then the 200 best
// detections of the image, MAX_NUM_EVAL_BOXES).
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/detection/box.h"

namespace podbench::detection {

// Greedy NMS over candidates `order` (indices into boxes), visited by score
// descending (lower index first on equal scores): a candidate is kept unless
// its IoU with an already kept box exceeds `iou_threshold`. Returns the kept
// indices in that order, at most `max_keep` (0 = no limit).
std::vector<int> Nms(const std::vector<Box>& boxes, const std::vector<float>& scores, std::vector<int> order,
                     double iou_threshold, int max_keep = 0);

struct NmsConfig {
  float min_score = 0.05f;      // candidates must score above this
  int per_class_top_k = 200;    // candidates per class before NMS
  double iou_threshold = 0.5;
  int max_detections = 200;     // per image, after NMS over all classes
};

struct Detection {
  Box box;
  float score = 0;
  int label = 0;  // class index, >= 1 (0 is the background)
};

// Per-class NMS for one image: `boxes` (n anchors' decoded boxes) and
// `scores` (n x classes probabilities, row-major, class 0 the background,
// which is skipped). Result sorted by score descending (ties: lower class,
// then lower anchor index first).
std::vector<Detection> PerClassNms(const std::vector<Box>& boxes, const float* scores, int classes,
                                   const NmsConfig& config = {});

}  // namespace podbench::detection
