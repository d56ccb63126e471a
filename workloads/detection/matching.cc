#include "workloads/detection/matching.h"

#include <cstddef>

namespace podbench::detection {

std::vector<int> MatchAnchors(const std::vector<Box>& anchors, const std::vector<Box>& truth, double threshold) {
  const size_t A = anchors.size(), G = truth.size();
  std::vector<int> match(A, -1);
  std::vector<double> best_gt_iou(G, 0.0);
  std::vector<size_t> best_anchor(G, 0);
  for (size_t a = 0; a < A; ++a) {
    double best = -1;
    for (size_t g = 0; g < G; ++g) {
      const double iou = Iou(anchors[a], truth[g]);
      if (iou > best) {
        best = iou;
        if (iou >= threshold) match[a] = static_cast<int>(g);
      }
      if (iou > best_gt_iou[g]) {
        best_gt_iou[g] = iou;
        best_anchor[g] = a;
      }
    }
  }
  for (size_t g = 0; g < G; ++g) {
    if (best_gt_iou[g] > 0) match[best_anchor[g]] = static_cast<int>(g);
  }
  return match;
}

}  // namespace podbench::detection
