// The bf16 GEMM reference (MXU contract): each bf16 x bf16 product is formed
// exactly in fp32 and summed over depth in order in fp32.
#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {

void bf16_gemm__scalar(const GemmProblem& p, int /*threads*/) {
  const Bf16* a = static_cast<const Bf16*>(p.a);
  const Bf16* b = static_cast<const Bf16*>(p.b);
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      float sum = 0.0f;
      for (std::int64_t q = 0; q < p.k; ++q) {
        sum += a[i * p.rsa + q * p.csa].ToFloat() * b[q * p.rsb + j * p.csb].ToFloat();
      }
      float& c = p.c[i * p.ldc + j];
      c = p.accumulate ? c + sum : sum;
    }
  }
}

const gemm_internal::BlockedGemmConfig* bf16_gemm__scalar_config() { return nullptr; }

}  // namespace podbench::kernels
