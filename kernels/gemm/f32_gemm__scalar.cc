// The fp32 GEMM reference: the definition, summing over depth in order.
#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {

void f32_gemm__scalar(const GemmProblem& p, int /*threads*/) {
  const float* a = static_cast<const float*>(p.a);
  const float* b = static_cast<const float*>(p.b);
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      float sum = 0.0f;
      for (std::int64_t q = 0; q < p.k; ++q) sum += a[i * p.rsa + q * p.csa] * b[q * p.rsb + j * p.csb];
      float& c = p.c[i * p.ldc + j];
      c = p.accumulate ? c + sum : sum;
    }
  }
}

const gemm_internal::BlockedGemmConfig* f32_gemm__scalar_config() { return nullptr; }

}  // namespace podbench::kernels
