#include "workloads/ssd/ssd_loss.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace podbench::ssd {

SsdLossParts SsdImageLoss(const float* pred, int width, int classes, const int32_t* labels, const float* targets,
                          int64_t anchors, int negatives_per_positive, float scale, float* dpred) {
  SsdLossParts r;
  const size_t A = static_cast<size_t>(anchors), W = static_cast<size_t>(width), C = static_cast<size_t>(classes);
  if (dpred != nullptr) std::fill(dpred, dpred + A * W, 0.f);
  // Per anchor: log-sum-exp of the logits and the cross-entropy of its label.
  std::vector<double> lse(A), ce(A);
  std::vector<size_t> negatives;
  for (size_t a = 0; a < A; ++a) {
    const float* z = pred + a * W;
    const double m = *std::max_element(z, z + C);
    double s = 0;
    for (size_t c = 0; c < C; ++c) s += std::exp(static_cast<double>(z[c]) - m);
    lse[a] = m + std::log(s);
    ce[a] = lse[a] - z[labels[a]];
    if (labels[a] > 0) {
      ++r.positives;
    } else {
      negatives.push_back(a);
    }
  }
  if (r.positives == 0) return r;
  const size_t mined = std::min(negatives.size(), static_cast<size_t>(negatives_per_positive * r.positives));
  std::partial_sort(negatives.begin(), negatives.begin() + static_cast<long>(mined), negatives.end(),
                    [&](size_t x, size_t y) { return ce[x] > ce[y] || (ce[x] == ce[y] && x < y); });
  negatives.resize(mined);
  r.negatives = static_cast<int64_t>(mined);
  const double norm = static_cast<double>(r.positives);
  const double g = static_cast<double>(scale) / norm;
  auto classify = [&](size_t a) {
    const float* z = pred + a * W;
    r.cls += ce[a];
    if (dpred == nullptr) return;
    for (size_t c = 0; c < C; ++c) {
      const double p = std::exp(static_cast<double>(z[c]) - lse[a]);
      dpred[a * W + c] = static_cast<float>(g * (p - (static_cast<int32_t>(c) == labels[a] ? 1.0 : 0.0)));
    }
  };
  for (size_t a = 0; a < A; ++a) {
    if (labels[a] <= 0) continue;
    classify(a);
    for (size_t k = 0; k < 4; ++k) {
      const double d = static_cast<double>(pred[a * W + C + k]) - targets[a * 4 + k];
      const double ad = std::abs(d);
      r.box += ad < 1 ? 0.5 * d * d : ad - 0.5;
      if (dpred != nullptr) dpred[a * W + C + k] = static_cast<float>(g * (ad < 1 ? d : (d > 0 ? 1.0 : -1.0)));
    }
  }
  for (size_t a : negatives) classify(a);
  r.loss = (r.box + r.cls) / norm;
  return r;
}

}  // namespace podbench::ssd
