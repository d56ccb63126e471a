// Pins one GEMM variant per family for tests that compare two layouts of
// one computation (1 core against 8, partitioned against not).
//
// Dispatch by measurement may run the layouts' different matmul shapes on
// different GEMM variants, each exact in its products but summing in its
// own order; what such tests check is the layout (gradient summation,
// sharded updates, partitioning), not the kernels (tests/kernels compares
// the variants). Call before any kernel is dispatched: first thing in the
// TEST, which runs in its own process under ctest.
#pragma once

#include <cstdlib>

namespace podbench::kernels::testing {

inline void PinGemmVariants() {
  ::setenv("PODBENCH_KERNELS", "gemm_f32=f32_gemm__scalar,gemm_bf16=bf16_gemm__scalar", 1);
}

}  // namespace podbench::kernels::testing
