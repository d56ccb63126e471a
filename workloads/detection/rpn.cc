#include "workloads/detection/rpn.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "workloads/detection/box_coder.h"
#include "workloads/detection/nms.h"

namespace podbench::detection {

Status FpnAnchorConfig::Validate() const {
  if (min_level < 0 || max_level < min_level || max_level > 30)
    return Status::InvalidArgument("FPN anchors: levels " + std::to_string(min_level) + ".." +
                                   std::to_string(max_level) + " (need 0 <= min_level <= max_level <= 30)");
  if (num_scales <= 0) return Status::InvalidArgument("FPN anchors: num_scales " + std::to_string(num_scales) + " <= 0");
  if (aspect_ratios.empty()) return Status::InvalidArgument("FPN anchors: no aspect ratios");
  for (const auto& [ax, ay] : aspect_ratios)
    if (!(ax > 0) || !(ay > 0))
      return Status::InvalidArgument("FPN anchors: aspect ratio (" + std::to_string(ax) + ", " + std::to_string(ay) +
                                     ") must be positive");
  if (!(anchor_scale > 0)) return Status::InvalidArgument("FPN anchors: anchor_scale must be positive");
  const std::int64_t top = std::int64_t{1} << max_level;
  if (image_height <= 0 || image_width <= 0 || image_height % top != 0 || image_width % top != 0)
    return Status::InvalidArgument("FPN anchors: image " + std::to_string(image_height) + "x" +
                                   std::to_string(image_width) + " must have positive sides divisible by " +
                                   std::to_string(top) + " (2^max_level)");
  return Status::Ok();
}

std::vector<std::vector<Box>> MakeFpnAnchors(const FpnAnchorConfig& c) {
  std::vector<std::vector<Box>> out;
  for (int level = c.min_level; level <= c.max_level; ++level) {
    const std::int64_t stride = std::int64_t{1} << level;
    const std::int64_t rows = c.image_height / stride, cols = c.image_width / stride;
    std::vector<Box> boxes;
    boxes.reserve(static_cast<size_t>(rows * cols * c.PerLocation()));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        const double cy = static_cast<double>(stride) / 2 + static_cast<double>(i * stride);
        const double cx = static_cast<double>(stride) / 2 + static_cast<double>(j * stride);
        for (int s = 0; s < c.num_scales; ++s) {
          const double base = c.anchor_scale * static_cast<double>(stride) * std::exp2(double(s) / c.num_scales);
          for (const auto& [ax, ay] : c.aspect_ratios) boxes.push_back(Box::FromCenter(cx, cy, base * ax, base * ay));
        }
      }
    out.push_back(std::move(boxes));
  }
  return out;
}

Result<std::vector<Proposal>> GenerateProposals(std::span<const RpnLevelOutputs> levels, double image_height,
                                                double image_width, const ProposalConfig& config) {
  if (config.pre_nms_top_k <= 0 || config.post_nms_top_k <= 0)
    return Status::InvalidArgument("proposals: pre_nms_top_k " + std::to_string(config.pre_nms_top_k) +
                                   " and post_nms_top_k " + std::to_string(config.post_nms_top_k) +
                                   " must be positive");
  if (!(image_height > 0) || !(image_width > 0))
    return Status::InvalidArgument("proposals: image " + std::to_string(image_height) + "x" +
                                   std::to_string(image_width) + " must have positive sides");
  const BoxCoder rpn_coder{1.0, 1.0};
  const float max_log_scale = static_cast<float>(std::log(1000.0 / 16.0));
  const Box frame{0, 0, image_width, image_height};
  std::vector<Proposal> all;
  for (size_t l = 0; l < levels.size(); ++l) {
    const RpnLevelOutputs& lv = levels[l];
    const size_t n = lv.anchors.size();
    if (lv.logits.size() != n || lv.deltas.size() != 4 * n)
      return Status::InvalidArgument("proposals: level " + std::to_string(l) + " has " + std::to_string(n) +
                                     " anchors, " + std::to_string(lv.logits.size()) + " logits and " +
                                     std::to_string(lv.deltas.size()) + " deltas (want 1 and 4 per anchor)");
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    const size_t k = std::min(n, static_cast<size_t>(config.pre_nms_top_k));
    auto by_logit = [&](int a, int b) {
      const float la = lv.logits[static_cast<size_t>(a)], lb = lv.logits[static_cast<size_t>(b)];
      return la > lb || (la == lb && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), by_logit);
    order.resize(k);
    std::vector<Box> boxes;
    std::vector<float> scores;
    for (int a : order) {
      const auto at = static_cast<size_t>(a);
      float t[4] = {lv.deltas[4 * at], lv.deltas[4 * at + 1], std::min(lv.deltas[4 * at + 2], max_log_scale),
                    std::min(lv.deltas[4 * at + 3], max_log_scale)};
      const Box b = Clip(rpn_coder.Decode(t, CentreForm(lv.anchors[at])), frame);
      if (b.Empty() || b.width() < config.min_size || b.height() < config.min_size) continue;
      boxes.push_back(b);
      scores.push_back(static_cast<float>(1.0 / (1.0 + std::exp(-double(lv.logits[at])))));
    }
    std::vector<int> ranked(boxes.size());
    std::iota(ranked.begin(), ranked.end(), 0);
    const std::vector<int> kept =
        config.nms_iou > 0 ? Nms(boxes, scores, ranked, config.nms_iou, config.post_nms_top_k)
                           : std::vector<int>(ranked.begin(),
                                              ranked.begin() + std::min<std::ptrdiff_t>(
                                                                   static_cast<std::ptrdiff_t>(ranked.size()),
                                                                   config.post_nms_top_k));
    for (int i : kept) all.push_back({boxes[static_cast<size_t>(i)], scores[static_cast<size_t>(i)], static_cast<int>(l)});
  }
  // Levels are appended in order and each in rank order: a stable sort by
  // score keeps ties at the lower level, then the higher rank.
  std::stable_sort(all.begin(), all.end(), [](const Proposal& a, const Proposal& b) { return a.score > b.score; });
  if (all.size() > static_cast<size_t>(config.post_nms_top_k)) all.resize(static_cast<size_t>(config.post_nms_top_k));
  return all;
}

}  // namespace podbench::detection
