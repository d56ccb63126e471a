// Matrix multiplication on strided row-major fp32 views, in fp32 or with
// the MXU contract: the fp32 op for layers whose weights are not in a
// convolution's layout (attention's per-head products, a transposed shared
// embedding).
#pragma once

#include <cstdint>

#include "kernels/conv/conv2d.h"

namespace podbench::kernels {

// C[m x n] = op(A) op(B), or C += op(A) op(B) when `accumulate`.
// op(A)(i, p) = trans_a ? a[p * lda + i] : a[i * lda + p] (A stored k x m
// when transposed), likewise op(B) over k x n; C(i, j) = c[i * ldc + j].
// Precision::kBf16 runs the MXU contract: both operands rounded to bf16
// (kernels/bf16.h), products exact, accumulated in fp32 (the selected bf16
// GEMM); kF32 is the selected fp32 GEMM. threads: 0 = all.
// REQUIRES: m, n, k >= 0; leading dimensions cover the rows; C does not
// alias A or B.
void MatMul(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda, bool trans_a,
            const float* b, std::int64_t ldb, bool trans_b, float* c, std::int64_t ldc, bool accumulate,
            Precision prec, int threads = 1);

}  // namespace podbench::kernels
