// bf16 GEMM for AVX2 + FMA (no bf16 dot-product instruction): the packing step
// widens bf16 to fp32 (exact, a 16-bit shift), then the fp32 6 x 16
// micro-kernel accumulates in fp32, which is the MXU contract.
#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {

const gemm_internal::BlockedGemmConfig* bf16_gemm__avx2_fma_6x16_config() {
  static const gemm_internal::BlockedGemmConfig config = [] {
    gemm_internal::BlockedGemmConfig c = *f32_gemm__avx2_fma_6x16_config();
    c.pack_a = gemm_internal::VectorPackers__avx2().pack_a_bf16_to_f32;
    c.pack_b = gemm_internal::VectorPackers__avx2().pack_b_bf16_to_f32;
    return c;
  }();
  return &config;
}

void bf16_gemm__avx2_fma_6x16(const GemmProblem& p, int threads) {
  gemm_internal::RunBlockedGemm(*bf16_gemm__avx2_fma_6x16_config(), p, threads);
}

}  // namespace podbench::kernels
