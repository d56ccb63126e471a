#include "workloads/detection/sampling.h"

#include <algorithm>
#include <string>
#include <utility>

#include "workloads/detection/box_coder.h"
#include "workloads/detection/rpn.h"

namespace podbench::detection {

std::vector<int> SampleSubset(std::vector<int> candidates, int k, Rng& rng) {
  const size_t n = candidates.size();
  const size_t take = std::min(n, static_cast<size_t>(std::max(k, 0)));
  for (size_t i = 0; i < take; ++i) {
    const size_t j = i + static_cast<size_t>(rng() % (n - i));
    std::swap(candidates[i], candidates[j]);
  }
  candidates.resize(take);
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

namespace {

Status CheckFraction(const char* what, int batch, double fraction) {
  if (batch <= 0) return Status::InvalidArgument(std::string(what) + ": batch " + std::to_string(batch) + " <= 0");
  if (!(fraction >= 0 && fraction <= 1))
    return Status::InvalidArgument(std::string(what) + ": positive fraction " + std::to_string(fraction) +
                                   " outside [0, 1]");
  return Status::Ok();
}

}  // namespace

std::vector<int> MatchRpnAnchors(std::span<const Box> anchors, std::span<const Box> truth,
                                 const RpnSamplingConfig& config) {
  std::vector<int> match(anchors.size(), kRpnNegative);
  if (truth.empty()) return match;
  std::vector<double> best_for_truth(truth.size(), -1.0);
  std::vector<int> best_anchor(truth.size(), -1);
  for (size_t a = 0; a < anchors.size(); ++a) {
    double best = -1;
    int arg = -1;
    for (size_t g = 0; g < truth.size(); ++g) {
      const double iou = Iou(anchors[a], truth[g]);
      if (iou > best) best = iou, arg = static_cast<int>(g);
      if (iou > best_for_truth[g]) best_for_truth[g] = iou, best_anchor[g] = static_cast<int>(a);
    }
    if (best >= config.positive_iou) match[a] = arg;
    else if (best >= config.negative_iou) match[a] = kRpnIgnored;
  }
  // Forced matches; walking the boxes from the last, the first claimant wins.
  for (size_t g = truth.size(); g-- > 0;)
    if (best_anchor[g] >= 0) match[static_cast<size_t>(best_anchor[g])] = static_cast<int>(g);
  return match;
}

Result<RpnTargets> SampleRpnAnchors(std::span<const Box> anchors, std::span<const Box> truth,
                                    const RpnSamplingConfig& config, Rng& rng) {
  if (Status s = CheckFraction("RPN sampling", config.batch, config.positive_fraction); !s.ok()) return s;
  if (config.negative_iou > config.positive_iou)
    return Status::InvalidArgument("RPN sampling: negative_iou " + std::to_string(config.negative_iou) +
                                   " above positive_iou " + std::to_string(config.positive_iou));
  const std::vector<int> match = MatchRpnAnchors(anchors, truth, config);
  std::vector<int> pos, neg;
  for (size_t a = 0; a < match.size(); ++a) {
    if (match[a] >= 0) pos.push_back(static_cast<int>(a));
    else if (match[a] == kRpnNegative) neg.push_back(static_cast<int>(a));
  }
  pos = SampleSubset(std::move(pos), static_cast<int>(config.batch * config.positive_fraction), rng);
  neg = SampleSubset(std::move(neg), config.batch - static_cast<int>(pos.size()), rng);
  RpnTargets t;
  t.labels.assign(anchors.size(), -1);
  t.boxes.assign(anchors.size(), {0, 0, 0, 0});
  const BoxCoder coder{1.0, 1.0};
  for (int a : pos) {
    const auto at = static_cast<size_t>(a);
    t.labels[at] = 1;
    t.boxes[at] = coder.Encode(truth[static_cast<size_t>(match[at])], CentreForm(anchors[at]));
  }
  for (int a : neg) t.labels[static_cast<size_t>(a)] = 0;
  t.positives = static_cast<int>(pos.size());
  t.negatives = static_cast<int>(neg.size());
  return t;
}

Result<SampledRois> SampleRois(std::span<const Box> proposals, std::span<const Box> truth,
                               std::span<const int> truth_classes, const RoiSamplingConfig& config, Rng& rng) {
  if (Status s = CheckFraction("ROI sampling", config.batch, config.fg_fraction); !s.ok()) return s;
  if (config.bg_iou_lo > config.bg_iou_hi)
    return Status::InvalidArgument("ROI sampling: bg_iou_lo " + std::to_string(config.bg_iou_lo) +
                                   " above bg_iou_hi " + std::to_string(config.bg_iou_hi));
  if (truth.size() != truth_classes.size())
    return Status::InvalidArgument("ROI sampling: " + std::to_string(truth.size()) + " ground-truth boxes but " +
                                   std::to_string(truth_classes.size()) + " classes");
  for (size_t g = 0; g < truth_classes.size(); ++g)
    if (truth_classes[g] < 1)
      return Status::InvalidArgument("ROI sampling: ground-truth box " + std::to_string(g) + " has class " +
                                     std::to_string(truth_classes[g]) + " (classes start at 1)");
  std::vector<Box> candidates(proposals.begin(), proposals.end());
  candidates.insert(candidates.end(), truth.begin(), truth.end());
  std::vector<int> matched(candidates.size(), -1), fg, bg;
  for (size_t c = 0; c < candidates.size(); ++c) {
    double best = 0;
    int arg = -1;
    for (size_t g = 0; g < truth.size(); ++g) {
      const double iou = Iou(candidates[c], truth[g]);
      if (arg < 0 || iou > best) best = iou, arg = static_cast<int>(g);
    }
    if (arg >= 0 && best > config.fg_iou) {
      matched[c] = arg;
      fg.push_back(static_cast<int>(c));
    } else if (best >= config.bg_iou_lo && best < config.bg_iou_hi) {
      bg.push_back(static_cast<int>(c));
    }
  }
  fg = SampleSubset(std::move(fg), static_cast<int>(config.batch * config.fg_fraction), rng);
  bg = SampleSubset(std::move(bg), config.batch - static_cast<int>(fg.size()), rng);
  std::vector<int> chosen = fg;
  chosen.insert(chosen.end(), bg.begin(), bg.end());
  std::sort(chosen.begin(), chosen.end());
  SampledRois out;
  out.foreground = static_cast<int>(fg.size());
  const BoxCoder coder{config.center_variance, config.size_variance};
  for (int c : chosen) {
    const auto at = static_cast<size_t>(c);
    const bool is_fg = std::binary_search(fg.begin(), fg.end(), c);
    out.rois.push_back(candidates[at]);
    out.classes.push_back(is_fg ? truth_classes[static_cast<size_t>(matched[at])] : 0);
    out.matched.push_back(is_fg ? matched[at] : -1);
    out.box_targets.push_back(is_fg ? coder.Encode(truth[static_cast<size_t>(matched[at])], CentreForm(candidates[at]))
                                    : std::array<float, 4>{0, 0, 0, 0});
  }
  return out;
}

}  // namespace podbench::detection
