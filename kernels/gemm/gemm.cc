#include "kernels/gemm/gemm.h"

#include <cassert>

#include "kernels/gemm/gemm_variants.h"

namespace podbench::kernels {
namespace {

constexpr GemmVariant kVariants[] = {
#define PODBENCH_GEMM(name, dtype, isa, mr, nr) \
  {#name, GemmDtype::dtype, Isa::isa, mr, nr, name, name##_config},
#include "kernels/gemm/gemm_manifest.inc"
#undef PODBENCH_GEMM
};

const GemmVariant* Select(GemmDtype dtype, bool reference) {
  const GemmVariant* best = nullptr;
  for (const GemmVariant& v : kVariants) {
    if (v.dtype != dtype || !CpuSupports(v.isa)) continue;
    if (reference && v.isa != Isa::kScalar) continue;
    best = &v;
  }
  assert(best != nullptr);
  return best;
}

GemmProblem RowMajor(std::int64_t m, std::int64_t n, std::int64_t k, const void* a,
                     std::int64_t lda, bool trans_a, const void* b, std::int64_t ldb,
                     bool trans_b, float* c, std::int64_t ldc, bool accumulate) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a = a;
  p.rsa = trans_a ? 1 : lda;
  p.csa = trans_a ? lda : 1;
  p.b = b;
  p.rsb = trans_b ? 1 : ldb;
  p.csb = trans_b ? ldb : 1;
  p.c = c;
  p.ldc = ldc;
  p.accumulate = accumulate;
  return p;
}

}  // namespace

std::span<const GemmVariant> GemmVariants() { return kVariants; }

const GemmVariant& SelectedGemm(GemmDtype dtype) {
  static const GemmVariant* f32 = Select(GemmDtype::kF32, false);
  static const GemmVariant* bf16 = Select(GemmDtype::kBf16, false);
  return dtype == GemmDtype::kF32 ? *f32 : *bf16;
}

const GemmVariant& ReferenceGemm(GemmDtype dtype) { return *Select(dtype, true); }

void GemmF32(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
             bool trans_a, const float* b, std::int64_t ldb, bool trans_b, float* c,
             std::int64_t ldc, bool accumulate, int threads) {
  SelectedGemm(GemmDtype::kF32)
      .fn(RowMajor(m, n, k, a, lda, trans_a, b, ldb, trans_b, c, ldc, accumulate), threads);
}

void GemmBf16(std::int64_t m, std::int64_t n, std::int64_t k, const Bf16* a, std::int64_t lda,
              bool trans_a, const Bf16* b, std::int64_t ldb, bool trans_b, float* c,
              std::int64_t ldc, bool accumulate, int threads) {
  SelectedGemm(GemmDtype::kBf16)
      .fn(RowMajor(m, n, k, a, lda, trans_a, b, ldb, trans_b, c, ldc, accumulate), threads);
}

}  // namespace podbench::kernels
