#include "workloads/minigo/go/fake_evaluator.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace podbench::minigo {

Status FakeEvaluator::Evaluate(std::span<const float> features, int batch, std::span<float> policy,
                               std::span<float> value) {
  PODBENCH_RETURN_IF_ERROR(CheckEvaluatorSizes("fake evaluator", features, batch, policy, value));
  const size_t n = static_cast<size_t>(batch);
  ++calls_;
  positions_ += batch;
  max_batch_ = std::max(max_batch_, batch);
  const bool favour = options_.favoured_move >= 0 && options_.favoured_move < kNumMoves;
  const float rest = favour ? (1 - options_.favoured_share) / (kNumMoves - 1) : 1.0f / kNumMoves;
  for (size_t i = 0; i < n; ++i) {
    float* p = policy.data() + i * kNumMoves;
    std::fill(p, p + kNumMoves, rest);
    if (favour) p[options_.favoured_move] = options_.favoured_share;
    float v = options_.constant_value;
    if (options_.material_scale > 0) {
      const float* f = features.data() + i * kFeatureSize;
      const float black_to_play = f[16];  // plane 16 (features.h)
      float own = 0;
      float opp = 0;
      for (int q = 0; q < kNumPoints; ++q) {
        own += f[q * kNumPlanes + 0];
        opp += f[q * kNumPlanes + 1];
      }
      const float black_minus_white = black_to_play > 0.5f ? own - opp : opp - own;
      v += std::tanh(options_.material_scale * black_minus_white);
    }
    value[i] = std::clamp(v, -1.0f, 1.0f);
  }
  return Status::Ok();
}

}  // namespace podbench::minigo
