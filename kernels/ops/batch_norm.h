// Batch normalisation over NHWC activations viewed as rows x channels, with a
// hook for cross-replica (distributed) statistics.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/bf16.h"

namespace podbench::kernels {

// Sums statistics over a group of replicas (the v0.6 distributed batch norm).
// Called with this replica's partial sums; must leave the group's elementwise
// totals in place. topology/ implements it over its collectives.
class BatchNormStatsReducer {
 public:
  virtual ~BatchNormStatsReducer() = default;
  virtual void AllReduceSum(std::span<double> partials) = 0;
};

struct BatchNormParams {
  float epsilon = 1e-5f;
  float momentum = 0.9f;  // running = momentum * running + (1 - momentum) * batch
};

// Training forward. x, y: rows x c. Writes mean and inv_std (c each, needed by
// the backward pass) and updates running_mean / running_var (unbiased
// variance). reducer: null for local statistics; otherwise called once with
// [sum x (c), sum x^2 (c), rows (1)].
// REQUIRES: the group's total rows > 0.
void BatchNormForwardTraining(const float* x, std::int64_t rows, std::int64_t c, const float* gamma,
                              const float* beta, const BatchNormParams& params, float* y,
                              float* mean, float* inv_std, float* running_mean, float* running_var,
                              BatchNormStatsReducer* reducer = nullptr);

// Inference forward with running statistics.
void BatchNormForwardInference(const float* x, std::int64_t rows, std::int64_t c, const float* gamma,
                               const float* beta, const float* running_mean, const float* running_var,
                               float epsilon, float* y);

// Backward of the training forward. reducer (same group as forward) is called
// once with [sum dy (c), sum dy * xhat (c), rows (1)]. Writes dx, dgamma, dbeta (the
// latter two are group totals).
// dx_values = Values::kBf16 rounds dx to bf16 values (RoundToBf16) as it is
// written: the gradient a bf16 convolution then takes as it is.
void BatchNormBackward(const float* x, const float* dy, std::int64_t rows, std::int64_t c,
                       const float* gamma, const float* mean, const float* inv_std, float* dx,
                       float* dgamma, float* dbeta, BatchNormStatsReducer* reducer = nullptr,
                       Values dx_values = Values::kF32);

}  // namespace podbench::kernels
