#include "kernels/ops/matmul.h"

#include <vector>

#include "kernels/bf16.h"
#include "kernels/gemm/gemm.h"

namespace podbench::kernels {
namespace {

// op(X) as a dense rows x cols bf16 block (row-major, not transposed).
void PackBf16(const float* x, std::int64_t ld, bool trans, std::int64_t rows, std::int64_t cols,
              std::vector<Bf16>& out) {
  out.resize(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i) {
    Bf16* dst = out.data() + i * cols;
    if (!trans) {
      ConvertToBf16(x + i * ld, dst, static_cast<long>(cols));
    } else {
      for (std::int64_t j = 0; j < cols; ++j) dst[j] = Bf16(x[j * ld + i]);
    }
  }
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
  // Scratch per calling thread (each emulated core is a thread).
  thread_local std::vector<Bf16> pa, pb;
  PackBf16(a, lda, trans_a, m, k, pa);
  PackBf16(b, ldb, trans_b, k, n, pb);
  GemmBf16(m, n, k, pa.data(), k, false, pb.data(), n, false, c, ldc, accumulate, threads);
}

}  // namespace podbench::kernels
