// Layer normalisation over the last dimension (rows x cols).
#pragma once

#include <cstdint>

namespace podbench::kernels {

// y = gamma * (x - mean) * inv_std + beta per row; writes mean and inv_std
// (rows each) for the backward pass.
void LayerNormForward(const float* x, std::int64_t rows, std::int64_t cols, const float* gamma,
                      const float* beta, float epsilon, float* y, float* mean, float* inv_std);
// dx overwritten; dgamma and dbeta (cols) overwritten with sums over rows.
void LayerNormBackward(const float* x, const float* dy, std::int64_t rows, std::int64_t cols,
                       const float* gamma, const float* mean, const float* inv_std, float* dx,
                       float* dgamma, float* dbeta);

}  // namespace podbench::kernels
