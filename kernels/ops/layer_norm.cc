#include "kernels/ops/layer_norm.h"

#include <cmath>

namespace podbench::kernels {

void LayerNormForward(const float* x, std::int64_t rows, std::int64_t cols, const float* gamma,
                      const float* beta, float epsilon, float* y, float* mean, float* inv_std) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    double s = 0, s2 = 0;
    for (std::int64_t j = 0; j < cols; ++j) s += in[j];
    const double m = s / double(cols);
    for (std::int64_t j = 0; j < cols; ++j) s2 += (in[j] - m) * (in[j] - m);
    const double is = 1.0 / std::sqrt(s2 / double(cols) + epsilon);
    mean[r] = float(m);
    inv_std[r] = float(is);
    for (std::int64_t j = 0; j < cols; ++j) y[r * cols + j] = float(gamma[j] * (in[j] - m) * is + beta[j]);
  }
}

void LayerNormBackward(const float* x, const float* dy, std::int64_t rows, std::int64_t cols,
                       const float* gamma, const float* mean, const float* inv_std, float* dx,
                       float* dgamma, float* dbeta) {
  for (std::int64_t j = 0; j < cols; ++j) dgamma[j] = dbeta[j] = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum_g = 0, sum_gx = 0;  // sums of g = dy * gamma and g * xhat
    for (std::int64_t j = 0; j < cols; ++j) {
      const double xhat = (x[r * cols + j] - mean[r]) * inv_std[r];
      const double g = double(dy[r * cols + j]) * gamma[j];
      sum_g += g;
      sum_gx += g * xhat;
      dgamma[j] += float(dy[r * cols + j] * xhat);
      dbeta[j] += dy[r * cols + j];
    }
    for (std::int64_t j = 0; j < cols; ++j) {
      const double xhat = (x[r * cols + j] - mean[r]) * inv_std[r];
      const double g = double(dy[r * cols + j]) * gamma[j];
      dx[r * cols + j] = float(inv_std[r] * (g - (sum_g + xhat * sum_gx) / double(cols)));
    }
  }
}

}  // namespace podbench::kernels
