#include "kernels/ops/softmax_xent.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace podbench::kernels {

double SoftmaxCrossEntropy(const float* logits, const std::int32_t* labels, std::int64_t rows,
                           std::int64_t classes, float smoothing, float* dlogits) {
  assert(rows >= 1 && classes >= 1);
  const double off = double(smoothing) / double(classes);
  const double on = 1.0 - double(smoothing) + off;
  double total = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* z = logits + r * classes;
    assert(labels[r] >= 0 && labels[r] < classes);
    const double mx = *std::max_element(z, z + classes);
    double sum = 0;
    for (std::int64_t j = 0; j < classes; ++j) sum += std::exp(double(z[j]) - mx);
    const double log_sum = std::log(sum) + mx;
    for (std::int64_t j = 0; j < classes; ++j) {
      const double target = j == labels[r] ? on : off;
      const double log_p = double(z[j]) - log_sum;
      total -= target * log_p;
      if (dlogits != nullptr) dlogits[r * classes + j] = float((std::exp(log_p) - target) / double(rows));
    }
  }
  return total / double(rows);
}

void MaskedSoftmax(float* x, const std::uint8_t* mask, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float* z = x + r * cols;
    const std::uint8_t* m = mask ? mask + r * cols : nullptr;
    float mx = -std::numeric_limits<float>::infinity();
    for (std::int64_t j = 0; j < cols; ++j)
      if (!m || m[j]) mx = std::max(mx, z[j]);
    if (mx == -std::numeric_limits<float>::infinity()) {
      std::fill_n(z, cols, 0.0f);
      continue;
    }
    double sum = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      z[j] = (!m || m[j]) ? std::exp(z[j] - mx) : 0.0f;
      sum += z[j];
    }
    for (std::int64_t j = 0; j < cols; ++j) z[j] = float(z[j] / sum);
  }
}

void SoftmaxBackward(const float* y, const float* dy, float* dx, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    double dot = 0;
    for (std::int64_t j = 0; j < cols; ++j) dot += double(dy[r * cols + j]) * y[r * cols + j];
    for (std::int64_t j = 0; j < cols; ++j)
      dx[r * cols + j] = float(y[r * cols + j] * (dy[r * cols + j] - dot));
  }
}

}  // namespace podbench::kernels
