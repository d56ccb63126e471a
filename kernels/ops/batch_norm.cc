#include "kernels/ops/batch_norm.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/ops/vector_ops.h"

namespace podbench::kernels {

// The statistics are sums in double (ops_internal::VectorOps); the
// normalisation and its gradient are per-channel affine maps of x and dy,
// whose coefficients are computed in double once per channel.

void BatchNormForwardTraining(const float* x, std::int64_t rows, std::int64_t c, const float* gamma,
                              const float* beta, const BatchNormParams& params, float* y,
                              float* mean, float* inv_std, float* running_mean, float* running_var,
                              BatchNormStatsReducer* reducer) {
  const auto& ops = ops_internal::SelectedVectorOps();
  std::vector<double> s(std::size_t(2 * c + 1), 0.0);
  ops.bn_stats(x, rows, c, s.data());
  s[std::size_t(2 * c)] = double(rows);
  if (reducer != nullptr) reducer->AllReduceSum(s);
  const double count = s[std::size_t(2 * c)];
  assert(count > 0);
  std::vector<float> a(static_cast<std::size_t>(c)), b(static_cast<std::size_t>(c));
  for (std::int64_t j = 0; j < c; ++j) {
    const double m = s[std::size_t(j)] / count;
    const double var = std::max(0.0, s[std::size_t(c + j)] / count - m * m);
    const double is = 1.0 / std::sqrt(var + params.epsilon);
    mean[j] = float(m);
    inv_std[j] = float(is);
    const double unbiased = count > 1 ? var * count / (count - 1) : var;
    running_mean[j] = float(params.momentum * running_mean[j] + (1 - params.momentum) * m);
    running_var[j] = float(params.momentum * running_var[j] + (1 - params.momentum) * unbiased);
    // y = gamma (x - mean) inv_std + beta = (x - mean) a + b.
    a[std::size_t(j)] = float(gamma[j] * is);
    b[std::size_t(j)] = beta[j];
  }
  ops.bn_affine(x, rows, c, mean, a.data(), b.data(), y);
}

void BatchNormForwardInference(const float* x, std::int64_t rows, std::int64_t c, const float* gamma,
                               const float* beta, const float* running_mean, const float* running_var,
                               float epsilon, float* y) {
  std::vector<float> a(static_cast<std::size_t>(c)), b(static_cast<std::size_t>(c));
  for (std::int64_t j = 0; j < c; ++j) {
    const double is = 1.0 / std::sqrt(double(running_var[j]) + epsilon);
    a[std::size_t(j)] = float(gamma[j] * is);
    b[std::size_t(j)] = beta[j];
  }
  ops_internal::SelectedVectorOps().bn_affine(x, rows, c, running_mean, a.data(), b.data(), y);
}

void BatchNormBackward(const float* x, const float* dy, std::int64_t rows, std::int64_t c,
                       const float* gamma, const float* mean, const float* inv_std, float* dx,
                       float* dgamma, float* dbeta, BatchNormStatsReducer* reducer, Values dx_values) {
  const auto& ops = ops_internal::SelectedVectorOps();
  // [sum dy, sum dy x] locally, turned into [sum dy, sum dy xhat] before the
  // reduction (xhat = (x - mean) inv_std uses this replica's mean and inv_std,
  // which the forward pass made equal across the group).
  std::vector<double> s(std::size_t(2 * c + 1), 0.0);
  ops.bn_backward_stats(x, dy, rows, c, s.data());
  for (std::int64_t j = 0; j < c; ++j) {
    const double sdy = s[std::size_t(j)];
    s[std::size_t(c + j)] = (s[std::size_t(c + j)] - double(mean[j]) * sdy) * inv_std[j];
  }
  s[std::size_t(2 * c)] = double(rows);
  if (reducer != nullptr) reducer->AllReduceSum(s);
  const double count = s[std::size_t(2 * c)];
  std::vector<float> k(static_cast<std::size_t>(c)), a(static_cast<std::size_t>(c)), b(static_cast<std::size_t>(c));
  for (std::int64_t j = 0; j < c; ++j) {
    const double sdy = s[std::size_t(j)], sdyxhat = s[std::size_t(c + j)];
    dbeta[j] = float(sdy);
    dgamma[j] = float(sdyxhat);
    // dx = gamma inv_std (dy - (sdy + xhat sdyxhat) / count), xhat = (x - mean) inv_std
    //    = dy k + (x - mean) a + b.
    const double gi = double(gamma[j]) * inv_std[j];
    const double per_xhat = -gi * sdyxhat / count;
    k[std::size_t(j)] = float(gi);
    a[std::size_t(j)] = float(per_xhat * inv_std[j]);
    b[std::size_t(j)] = float(-gi * sdy / count);
  }
  (dx_values == Values::kBf16 ? ops.bn_backward_affine_bf16 : ops.bn_backward_affine)(x, dy, rows, c, mean, k.data(),
                                                                                        a.data(), b.data(), dx);
}

}  // namespace podbench::kernels
