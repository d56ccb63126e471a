// bf16 GEMM for AVX-512F without AVX-512 BF16: the packing step widens bf16
// to fp32 (exact, a 16-bit shift), then the fp32 14 x 32 micro-kernel
// accumulates in fp32, which is the MXU contract.
#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {

const gemm_internal::BlockedGemmConfig* bf16_gemm__avx512f_14x32_config() {
  static const gemm_internal::BlockedGemmConfig config = [] {
    gemm_internal::BlockedGemmConfig c = *f32_gemm__avx512f_14x32_config();
    c.pack_a = gemm_internal::VectorPackers__avx512f().pack_a_bf16_to_f32;
    c.pack_b = gemm_internal::VectorPackers__avx512f().pack_b_bf16_to_f32;
    return c;
  }();
  return &config;
}

void bf16_gemm__avx512f_14x32(const GemmProblem& p, int threads) {
  gemm_internal::RunBlockedGemm(*bf16_gemm__avx512f_14x32_config(), p, threads);
}

}  // namespace podbench::kernels
