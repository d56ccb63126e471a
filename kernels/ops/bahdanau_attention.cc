#include "kernels/ops/bahdanau_attention.h"

#include <cmath>
#include <cstddef>

#include "kernels/ops/vector_ops.h"
#include "kernels/scratch.h"

namespace podbench::kernels {
namespace {

// |v| and u = g v / |v| (units values).
double NormalisedScale(const float* v, float g, std::int64_t units, float* u) {
  double sq = 0;
  for (std::int64_t k = 0; k < units; ++k) sq += double(v[k]) * v[k];
  const double norm = std::sqrt(sq);
  for (std::int64_t k = 0; k < units; ++k) u[k] = norm > 0 ? float(g * v[k] / norm) : 0.0f;
  return norm;
}

}  // namespace

void BahdanauForward(const BahdanauShape& s, const float* keys, const float* values, const float* q,
                     const float* v, float g, const float* bias, const std::int32_t* lengths, float* tanh_out,
                     float* probs, float* context) {
  const std::int64_t A = s.units, T = s.time, D = s.depth;
  const ScratchLease lease(std::size_t(A) * sizeof(float));
  float* u = lease.as<float>();
  NormalisedScale(v, g, A, u);
  const auto& ops = ops_internal::SelectedVectorOps();
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t len = lengths[b];
    float* p = probs + b * T;
    float best = -INFINITY;
    for (std::int64_t t = 0; t < T; ++t) {
      float* th = tanh_out + (b * T + t) * A;
      const float* kr = keys + (b * T + t) * A;
      const float* qr = q + b * A;
      for (std::int64_t k = 0; k < A; ++k) th[k] = kr[k] + qr[k] + bias[k];
      ops.tanh(th, th, A);
      if (t >= len) {
        p[t] = 0;
        continue;
      }
      float e = 0;
      for (std::int64_t k = 0; k < A; ++k) e += u[k] * th[k];
      p[t] = e;
      best = e > best ? e : best;
    }
    double sum = 0;
    for (std::int64_t t = 0; t < len; ++t) {
      p[t] = std::exp(p[t] - best);
      sum += p[t];
    }
    for (std::int64_t t = 0; t < len; ++t) p[t] = float(p[t] / sum);
    float* out = context + b * D;
    for (std::int64_t d = 0; d < D; ++d) out[d] = 0;
    for (std::int64_t t = 0; t < len; ++t) ops.axpy(p[t], values + (b * T + t) * D, out, D);
  }
}

void BahdanauBackward(const BahdanauShape& s, const float* values, const float* v, float g,
                      const std::int32_t* lengths, const float* tanh_out, const float* probs,
                      const float* dcontext, float* dkeys, float* dvalues, float* dq, float* dv, float* dg,
                      float* dbias) {
  const std::int64_t A = s.units, T = s.time, D = s.depth;
  const ScratchLease lease(std::size_t(2 * A + T) * sizeof(float));
  float* u = lease.as<float>();
  float* du = u + A;
  float* de = du + A;
  const double norm = NormalisedScale(v, g, A, u);
  for (std::int64_t k = 0; k < A; ++k) du[k] = 0;
  const auto& ops = ops_internal::SelectedVectorOps();
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t len = lengths[b];
    const float* p = probs + b * T;
    const float* dc = dcontext + b * D;
    // dp[t] = dcontext . values[t]; de = p (dp - sum p dp).
    double mean = 0;
    for (std::int64_t t = 0; t < len; ++t) {
      const float* vr = values + (b * T + t) * D;
      double dp = 0;
      for (std::int64_t d = 0; d < D; ++d) dp += double(dc[d]) * vr[d];
      de[t] = float(dp);
      mean += p[t] * dp;
      ops.axpy(p[t], dc, dvalues + (b * T + t) * D, D);
    }
    float* dqr = dq + b * A;
    for (std::int64_t k = 0; k < A; ++k) dqr[k] = 0;
    for (std::int64_t t = 0; t < len; ++t) {
      const float e = float(p[t] * (de[t] - mean));
      const float* th = tanh_out + (b * T + t) * A;
      float* dk = dkeys + (b * T + t) * A;
      for (std::int64_t k = 0; k < A; ++k) {
        const float pre = e * u[k] * (1.0f - th[k] * th[k]);
        dk[k] += pre;
        dqr[k] += pre;
        dbias[k] += pre;
        du[k] += e * th[k];
      }
    }
  }
  // u = g v / |v|: dg = du . v / |v|; dv = g / |v| (du - (du . vhat) vhat).
  if (norm <= 0) return;
  double dot = 0;
  for (std::int64_t k = 0; k < A; ++k) dot += double(du[k]) * v[k];
  *dg += float(dot / norm);
  for (std::int64_t k = 0; k < A; ++k) dv[k] += float(g / norm * (du[k] - dot * v[k] / (norm * norm)));
}

}  // namespace podbench::kernels
