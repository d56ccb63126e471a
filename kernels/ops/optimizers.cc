#include "kernels/ops/optimizers.h"

#include <cassert>
#include <cmath>

namespace podbench::kernels {

void SgdMomentumUpdate(float* w, const float* g, float* v, std::int64_t n, float lr, float momentum,
                       float weight_decay) {
  for (std::int64_t i = 0; i < n; ++i) {
    v[i] = momentum * v[i] + (g[i] + weight_decay * w[i]);
    w[i] -= lr * v[i];
  }
}

float LarsTrustRatio(double w_norm, double g_norm, float weight_decay, float eta, float epsilon) {
  if (!(w_norm > 0 && g_norm > 0)) return 1.0f;
  return float(eta * w_norm / (g_norm + weight_decay * w_norm + epsilon));
}

void LarsApply(float* w, const float* g, float* v, std::int64_t n, float lr, float momentum,
               float weight_decay, float trust) {
  for (std::int64_t i = 0; i < n; ++i) {
    v[i] = momentum * v[i] + lr * trust * (g[i] + weight_decay * w[i]);
    w[i] -= v[i];
  }
}

float LarsUpdate(float* w, const float* g, float* v, std::int64_t n, float lr, float momentum,
                 float weight_decay, float eta, float epsilon) {
  double w2 = 0, g2 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    w2 += double(w[i]) * w[i];
    g2 += double(g[i]) * g[i];
  }
  const float trust = LarsTrustRatio(std::sqrt(w2), std::sqrt(g2), weight_decay, eta, epsilon);
  LarsApply(w, g, v, n, lr, momentum, weight_decay, trust);
  return trust;
}

void AdamUpdate(float* w, const float* g, float* m, float* v, std::int64_t n, const AdamParams& p,
                std::int64_t step) {
  assert(step >= 1);
  const double c1 = 1.0 - std::pow(double(p.beta1), double(step));
  const double c2 = 1.0 - std::pow(double(p.beta2), double(step));
  for (std::int64_t i = 0; i < n; ++i) {
    m[i] = p.beta1 * m[i] + (1 - p.beta1) * g[i];
    v[i] = p.beta2 * v[i] + (1 - p.beta2) * g[i] * g[i];
    w[i] -= float(p.lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + p.epsilon));
  }
}

}  // namespace podbench::kernels
