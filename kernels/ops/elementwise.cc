#include "kernels/ops/elementwise.h"

#include "kernels/cpu_features.h"
#include "kernels/ops/vector_ops.h"

namespace podbench::kernels {
namespace ops_internal {

const VectorOps& SelectedVectorOps() {
  static const VectorOps ops = CpuSupports(Isa::kAvx512f)   ? VectorOps_Avx512f()
                               : CpuSupports(Isa::kAvx2Fma) ? VectorOps_Avx2()
                                                            : VectorOps_Baseline();
  return ops;
}

}  // namespace ops_internal

using ops_internal::SelectedVectorOps;

void Add(const float* a, const float* b, float* y, std::int64_t n) { SelectedVectorOps().add(a, b, y, n); }
void Mul(const float* a, const float* b, float* y, std::int64_t n) { SelectedVectorOps().mul(a, b, y, n); }
void Axpy(float alpha, const float* x, float* y, std::int64_t n) { SelectedVectorOps().axpy(alpha, x, y, n); }
void Scale(float alpha, const float* x, float* y, std::int64_t n) { SelectedVectorOps().scale(alpha, x, y, n); }
void AddBias(const float* bias, float* y, std::int64_t rows, std::int64_t cols) {
  SelectedVectorOps().add_bias(bias, y, rows, cols);
}
void BiasGrad(const float* dy, float* db, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t j = 0; j < cols; ++j) db[j] = 0;
  for (std::int64_t r = 0; r < rows; ++r) SelectedVectorOps().add(db, dy + r * cols, db, cols);
}
void Relu(const float* x, float* y, std::int64_t n, Values out) {
  (out == Values::kBf16 ? SelectedVectorOps().relu_bf16 : SelectedVectorOps().relu)(x, y, n);
}
void ReluGrad(const float* x, const float* dy, float* dx, std::int64_t n) {
  SelectedVectorOps().relu_grad(x, dy, dx, n);
}

}  // namespace podbench::kernels
