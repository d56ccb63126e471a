#include "kernels/ops/matmul.h"

#include <bit>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/gemm/gemm.h"

namespace podbench::kernels {
namespace {

// Bf16::RoundFromFloat without branches, so the loop vectorises: round to
// nearest even, NaN kept quiet (same results).
void RoundRow(const float* x, Bf16* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(x[i]);
    const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const std::uint32_t nan = (u >> 16) | 0x0040u;
    out[i].bits = static_cast<std::uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
  }
}

// The stored block of an operand (rows x cols at leading dimension ld) as
// dense bf16, row-major with leading dimension cols.
void PackBf16(const float* x, std::int64_t ld, std::int64_t rows, std::int64_t cols, std::vector<Bf16>& out) {
  out.resize(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i) RoundRow(x + i * ld, out.data() + i * cols, cols);
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
  // Scratch per calling thread (each emulated core is a thread). The GEMM
  // reads the transposes itself.
  thread_local std::vector<Bf16> pa, pb;
  const std::int64_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const std::int64_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  PackBf16(a, lda, a_rows, a_cols, pa);
  PackBf16(b, ldb, b_rows, b_cols, pb);
  GemmBf16(m, n, k, pa.data(), a_cols, trans_a, pb.data(), b_cols, trans_b, c, ldc, accumulate, threads);
}

}  // namespace podbench::kernels
