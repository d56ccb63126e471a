#include "kernels/ops/elementwise.h"

namespace podbench::kernels {

void Add(const float* a, const float* b, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
void Mul(const float* a, const float* b, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}
void Axpy(float alpha, const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}
void Scale(float alpha, const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}
void AddBias(const float* bias, float* y, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) y[r * cols + j] += bias[j];
}
void BiasGrad(const float* dy, float* db, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t j = 0; j < cols; ++j) db[j] = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) db[j] += dy[r * cols + j];
}
void Relu(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}
void ReluGrad(const float* x, const float* dy, float* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] = x[i] > 0 ? dy[i] : 0.0f;
}

}  // namespace podbench::kernels
