// Optimizer updates on a flat parameter vector, as the v0.6 reference
// implementations apply them.
#pragma once

#include <cstdint>

namespace podbench::kernels {

// SGD with momentum (Nesterov off): v = momentum * v + (g + weight_decay * w);
// w -= lr * v.
void SgdMomentumUpdate(float* w, const float* g, float* v, std::int64_t n, float lr, float momentum,
                       float weight_decay);

// LARS (You et al. 2017, as in the MLPerf ResNet reference and Google's v0.6
// lars_util.py): trust ratio
//   eta * ||w|| / (||g|| + weight_decay * ||w|| + epsilon), 1 when either norm is 0;
// v = momentum * v + lr * trust * (g + weight_decay * w); w -= v.
// Returns the trust ratio used. `epsilon` (lars_epsilon, >= 0) keeps the
// ratio finite for tiny gradients.
float LarsUpdate(float* w, const float* g, float* v, std::int64_t n, float lr, float momentum,
                 float weight_decay, float eta, float epsilon);
// LarsUpdate's two halves, for updates whose norms are summed elsewhere
// (weight-update sharding: per-shard sums, all-reduced): the trust ratio from
// the layer's norms, and the update of n parameters with a given ratio.
float LarsTrustRatio(double w_norm, double g_norm, float weight_decay, float eta, float epsilon);
void LarsApply(float* w, const float* g, float* v, std::int64_t n, float lr, float momentum,
               float weight_decay, float trust);

struct AdamParams {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
};
// Adam with bias correction; step counts from 1.
// m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// w -= lr * (m / (1-b1^step)) / (sqrt(v / (1-b2^step)) + epsilon).
void AdamUpdate(float* w, const float* g, float* m, float* v, std::int64_t n, const AdamParams& p,
                std::int64_t step);

}  // namespace podbench::kernels
