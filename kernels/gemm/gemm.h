// GEMM: C (m x n, fp32) = A (m x k) * B (k x n), inputs fp32 or bf16.
//
// bf16 inputs follow the MXU contract (kernels/bf16.h): products are exact in
// fp32 and accumulated in fp32. Every variant in gemm_manifest.inc computes the
// same function; they differ only in speed and in fp32 summation order.
// GemmF32 / GemmBf16 run the variant dispatch chose for the problem's class by
// measurement (kernels/dispatch/dispatch.h).
#pragma once

#include <cstdint>
#include <span>

#include "kernels/bf16.h"
#include "kernels/cpu_features.h"

namespace podbench::kernels {

namespace gemm_internal {
struct BlockedGemmConfig;  // gemm_driver.h
}

enum class GemmDtype { kF32, kBf16 };

// A and B are strided views: A(i, p) = a[i * rsa + p * csa], B(p, j) = b[p *
// rsb + j * csb], so transposed operands need no copy. C is row-major with
// leading dimension ldc. Element type of a and b: float for kF32, Bf16 for kBf16.
// REQUIRES: m, n, k >= 0; ldc >= n; C does not alias A or B.
struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  std::int64_t rsa = 0, csa = 1;
  const void* b = nullptr;
  std::int64_t rsb = 0, csb = 1;
  float* c = nullptr;
  std::int64_t ldc = 0;
  bool accumulate = false;  // C += A * B instead of C = A * B
};

// threads: how many threads to use, 0 = every hardware thread.
using GemmFn = void (*)(const GemmProblem&, int threads);

struct GemmVariant {
  const char* name;  // e.g. "f32_gemm__avx2_fma_6x16"
  GemmDtype dtype;
  Isa isa;
  int mr, nr;        // register tile (1 x 1 for scalar)
  GemmFn fn;
  // The packing and micro-kernel setup of a blocked variant, for callers that
  // pack their own operand (implicit-GEMM convolution); null for the others.
  const gemm_internal::BlockedGemmConfig* (*blocked_config)();
  // Whether it can run `p` on a CPU with `isa`; null: always. (oneDNN: whether
  // it has an implementation that meets the contract; may build a primitive.)
  bool (*supports)(const GemmProblem& p, int threads) = nullptr;
  // The unit it runs `p` on; null: `isa`. (oneDNN: the ISA of its implementation.)
  Isa (*runs_on)(const GemmProblem& p, int threads) = nullptr;
  Isa RunsOn(const GemmProblem& p, int threads) const { return runs_on ? runs_on(p, threads) : isa; }
  bool reference() const { return isa == Isa::kScalar; }
  bool Runs(const GemmProblem& p, int threads) const {
    return CpuSupports(isa) && (supports == nullptr || supports(p, threads));
  }
};

// Every variant of gemm_manifest.inc, in manifest order.
std::span<const GemmVariant> GemmVariants();

// The variant GemmF32 / GemmBf16 run for `p` (dispatch: forced, ranked, or
// measured now on p's operands, writing scratch only).
const GemmVariant& DispatchedGemm(GemmDtype dtype, const GemmProblem& p, int threads);
// Runs DispatchedGemm(dtype, p, threads) on p.
void RunGemm(GemmDtype dtype, const GemmProblem& p, int threads);

// The scalar reference for `dtype`.
const GemmVariant& ReferenceGemm(GemmDtype dtype);

// The GemmProblem of row-major storage: A is m x k (lda), B is k x n (ldb);
// trans_a / trans_b read A^T / B^T from row-major storage instead.
GemmProblem RowMajorProblem(std::int64_t m, std::int64_t n, std::int64_t k, const void* a, std::int64_t lda,
                            bool trans_a, const void* b, std::int64_t ldb, bool trans_b, float* c,
                            std::int64_t ldc, bool accumulate);

// Row-major convenience wrappers over RunGemm. A is m x k (lda), B is
// k x n (ldb); trans_a / trans_b read A^T / B^T from row-major storage instead.
void GemmF32(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
             bool trans_a, const float* b, std::int64_t ldb, bool trans_b, float* c,
             std::int64_t ldc, bool accumulate = false, int threads = 0);
void GemmBf16(std::int64_t m, std::int64_t n, std::int64_t k, const Bf16* a, std::int64_t lda,
              bool trans_a, const Bf16* b, std::int64_t ldb, bool trans_b, float* c,
              std::int64_t ldc, bool accumulate = false, int threads = 0);

}  // namespace podbench::kernels
