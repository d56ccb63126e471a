// Elementwise ops and ReLU, forward and backward. All on n contiguous fp32.
// Outputs may alias inputs element for element.
#pragma once

#include <cstdint>

#include "kernels/bf16.h"

namespace podbench::kernels {

void Add(const float* a, const float* b, float* y, std::int64_t n);        // y = a + b
void Mul(const float* a, const float* b, float* y, std::int64_t n);        // y = a * b
void Axpy(float alpha, const float* x, float* y, std::int64_t n);          // y += alpha x
void Scale(float alpha, const float* x, float* y, std::int64_t n);         // y = alpha x
// Adds bias[j] to every row of y (rows x cols).
void AddBias(const float* bias, float* y, std::int64_t rows, std::int64_t cols);
// db[j] = sum over rows of dy (rows x cols).
void BiasGrad(const float* dy, float* db, std::int64_t rows, std::int64_t cols);

// y = max(x, 0); with out = Values::kBf16 rounded to bf16 values (RoundToBf16)
// in the same pass: the bf16 activations a bf16 convolution then takes as
// they are (kernels/conv/conv2d.h). A NaN input gives 0.
void Relu(const float* x, float* y, std::int64_t n, Values out = Values::kF32);
// dx = dy where the forward input x > 0, else 0.
void ReluGrad(const float* x, const float* dy, float* dx, std::int64_t n);

}  // namespace podbench::kernels
