// Private to kernels/gemm: one declaration per own kernel of gemm_manifest.inc.
#pragma once

#include "kernels/gemm/gemm.h"

namespace podbench::kernels {

#define PODBENCH_GEMM(name, dtype, isa, mr, nr)      \
  void name(const GemmProblem& p, int threads); \
  const gemm_internal::BlockedGemmConfig* name##_config();
#define PODBENCH_GEMM_ONEDNN(name, dtype)
#define PODBENCH_GEMM_ONEDNN_F32(name)
#include "kernels/gemm/gemm_manifest.inc"
#undef PODBENCH_GEMM_ONEDNN_F32
#undef PODBENCH_GEMM_ONEDNN
#undef PODBENCH_GEMM

}  // namespace podbench::kernels
