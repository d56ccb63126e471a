#include "workloads/detection/nms.h"

#include <algorithm>

namespace podbench::detection {

std::vector<int> Nms(const std::vector<Box>& boxes, const std::vector<float>& scores, std::vector<int> order,
                     double iou_threshold, int max_keep) {
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return scores[static_cast<size_t>(a)] > scores[static_cast<size_t>(b)] ||
           (scores[static_cast<size_t>(a)] == scores[static_cast<size_t>(b)] && a < b);
  });
  std::vector<int> kept;
  for (int c : order) {
    if (max_keep > 0 && static_cast<int>(kept.size()) >= max_keep) break;
    bool keep = true;
    for (int k : kept) {
      if (Iou(boxes[static_cast<size_t>(c)], boxes[static_cast<size_t>(k)]) > iou_threshold) {
        keep = false;
        break;
      }
    }
    if (keep) kept.push_back(c);
  }
  return kept;
}

std::vector<Detection> PerClassNms(const std::vector<Box>& boxes, const float* scores, int classes,
                                   const NmsConfig& cfg) {
  const size_t n = boxes.size();
  std::vector<Detection> out;
  std::vector<float> s(n);
  for (int c = 1; c < classes; ++c) {
    std::vector<int> cand;
    for (size_t a = 0; a < n; ++a) {
      s[a] = scores[a * static_cast<size_t>(classes) + static_cast<size_t>(c)];
      if (s[a] > cfg.min_score) cand.push_back(static_cast<int>(a));
    }
    if (cand.empty()) continue;
    auto by_score = [&](int a, int b) { return s[static_cast<size_t>(a)] > s[static_cast<size_t>(b)] ||
                                               (s[static_cast<size_t>(a)] == s[static_cast<size_t>(b)] && a < b); };
    if (static_cast<int>(cand.size()) > cfg.per_class_top_k) {
      std::partial_sort(cand.begin(), cand.begin() + cfg.per_class_top_k, cand.end(), by_score);
      cand.resize(static_cast<size_t>(cfg.per_class_top_k));
    }
    for (int k : Nms(boxes, s, cand, cfg.iou_threshold)) {
      out.push_back({boxes[static_cast<size_t>(k)], s[static_cast<size_t>(k)], c});
    }
  }
  // Stable: equal scores keep class order, then anchor order.
  std::stable_sort(out.begin(), out.end(), [](const Detection& a, const Detection& b) { return a.score > b.score; });
  if (static_cast<int>(out.size()) > cfg.max_detections) out.resize(static_cast<size_t>(cfg.max_detections));
  return out;
}

}  // namespace podbench::detection
