#include "kernels/ops/batch_norm.h"

#include <cassert>
#include <cmath>
#include <vector>

namespace podbench::kernels {

void BatchNormForwardTraining(const float* x, std::int64_t rows, std::int64_t c, const float* gamma,
                              const float* beta, const BatchNormParams& params, float* y,
                              float* mean, float* inv_std, float* running_mean, float* running_var,
                              BatchNormStatsReducer* reducer) {
  std::vector<double> s(std::size_t(2 * c + 1), 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < c; ++j) {
      const double v = x[r * c + j];
      s[std::size_t(j)] += v;
      s[std::size_t(c + j)] += v * v;
    }
  s[std::size_t(2 * c)] = double(rows);
  if (reducer != nullptr) reducer->AllReduceSum(s);
  const double count = s[std::size_t(2 * c)];
  assert(count > 0);
  for (std::int64_t j = 0; j < c; ++j) {
    const double m = s[std::size_t(j)] / count;
    const double var = std::max(0.0, s[std::size_t(c + j)] / count - m * m);
    mean[j] = float(m);
    inv_std[j] = float(1.0 / std::sqrt(var + params.epsilon));
    const double unbiased = count > 1 ? var * count / (count - 1) : var;
    running_mean[j] = float(params.momentum * running_mean[j] + (1 - params.momentum) * m);
    running_var[j] = float(params.momentum * running_var[j] + (1 - params.momentum) * unbiased);
  }
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < c; ++j)
      y[r * c + j] = gamma[j] * (x[r * c + j] - mean[j]) * inv_std[j] + beta[j];
}

void BatchNormForwardInference(const float* x, std::int64_t rows, std::int64_t c, const float* gamma,
                               const float* beta, const float* running_mean, const float* running_var,
                               float epsilon, float* y) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < c; ++j)
      y[r * c + j] = gamma[j] * (x[r * c + j] - running_mean[j]) / std::sqrt(running_var[j] + epsilon) +
                     beta[j];
}

void BatchNormBackward(const float* x, const float* dy, std::int64_t rows, std::int64_t c,
                       const float* gamma, const float* mean, const float* inv_std, float* dx,
                       float* dgamma, float* dbeta, BatchNormStatsReducer* reducer) {
  std::vector<double> s(std::size_t(2 * c + 1), 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < c; ++j) {
      const double xhat = (x[r * c + j] - mean[j]) * inv_std[j];
      s[std::size_t(j)] += dy[r * c + j];
      s[std::size_t(c + j)] += dy[r * c + j] * xhat;
    }
  s[std::size_t(2 * c)] = double(rows);
  if (reducer != nullptr) reducer->AllReduceSum(s);
  const double count = s[std::size_t(2 * c)];
  for (std::int64_t j = 0; j < c; ++j) {
    dbeta[j] = float(s[std::size_t(j)]);
    dgamma[j] = float(s[std::size_t(c + j)]);
  }
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < c; ++j) {
      const double xhat = (x[r * c + j] - mean[j]) * inv_std[j];
      dx[r * c + j] = float(gamma[j] * inv_std[j] *
                            (dy[r * c + j] - (s[std::size_t(j)] + xhat * s[std::size_t(c + j)]) / count));
    }
}

}  // namespace podbench::kernels
