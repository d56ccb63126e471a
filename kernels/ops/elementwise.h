// Elementwise ops and ReLU, forward and backward. All on n contiguous fp32.
// Outputs may alias inputs element for element.
#pragma once

#include <cstdint>

namespace podbench::kernels {

void Add(const float* a, const float* b, float* y, std::int64_t n);        // y = a + b
void Mul(const float* a, const float* b, float* y, std::int64_t n);        // y = a * b
void Axpy(float alpha, const float* x, float* y, std::int64_t n);          // y += alpha x
void Scale(float alpha, const float* x, float* y, std::int64_t n);         // y = alpha x
// Adds bias[j] to every row of y (rows x cols).
void AddBias(const float* bias, float* y, std::int64_t rows, std::int64_t cols);
// db[j] = sum over rows of dy (rows x cols).
void BiasGrad(const float* dy, float* db, std::int64_t rows, std::int64_t cols);

void Relu(const float* x, float* y, std::int64_t n);
// dx = dy where the forward input x > 0, else 0.
void ReluGrad(const float* x, const float* dy, float* dx, std::int64_t n);

}  // namespace podbench::kernels
