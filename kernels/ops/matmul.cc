#include "kernels/ops/matmul.h"

#include <cstddef>

#include "kernels/bf16.h"
#include "kernels/gemm/gemm.h"
#include "kernels/scratch.h"

namespace podbench::kernels {
namespace {

// The stored block of an operand (rows x cols at leading dimension ld) as
// dense bf16, row-major with leading dimension cols, through the per-ISA
// bulk conversion (round to nearest even, NaN kept quiet).
void PackBf16(const float* x, std::int64_t ld, std::int64_t rows, std::int64_t cols, Bf16* out) {
  if (ld == cols) {
    ConvertToBf16(x, out, long(rows * cols));
    return;
  }
  for (std::int64_t i = 0; i < rows; ++i) ConvertToBf16(x + i * ld, out + i * cols, long(cols));
}

}  // namespace

void MatMul(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda, bool trans_a,
            const float* b, std::int64_t ldb, bool trans_b, float* c, std::int64_t ldc, bool accumulate,
            Precision prec, int threads) {
  if (m == 0 || n == 0) return;
  if (prec == Precision::kF32) {
    GemmF32(m, n, k, a, lda, trans_a, b, ldb, trans_b, c, ldc, accumulate, threads);
    return;
  }
  // Dense bf16 copies from the scratch pool; the GEMM (the dispatched bf16
  // variant) reads the transposes itself.
  const std::int64_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const std::int64_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  const ScratchLease pa(std::size_t(a_rows * a_cols) * sizeof(Bf16));
  const ScratchLease pb(std::size_t(b_rows * b_cols) * sizeof(Bf16));
  PackBf16(a, lda, a_rows, a_cols, pa.as<Bf16>());
  PackBf16(b, ldb, b_rows, b_cols, pb.as<Bf16>());
  GemmBf16(m, n, k, pa.as<Bf16>(), a_cols, trans_a, pb.as<Bf16>(), b_cols, trans_b, c, ldc, accumulate, threads);
}

}  // namespace podbench::kernels
