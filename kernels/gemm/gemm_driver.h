// Private to kernels/gemm: the cache-blocked, packed, threaded GEMM driver
// (Goto/BLIS loop order) that the ISA variants plug a micro-kernel into.
//
// Kept free of standard-library templates on purpose: ISA files include it
// and are compiled with -mavx512*, and an inline template instantiated there
// could be picked by the linker for code that runs on any CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/gemm/gemm.h"

namespace podbench::kernels::gemm_internal {

// Packs rows [i0, i0+mc) x depth [k0, k0+kc) of A into mr-row micro-panels;
// rows past m and depth past k are zero. kc_padded >= kc is the packed depth.
using PackAFn = void (*)(const GemmProblem& p, std::int64_t i0, std::int64_t k0, std::int64_t mc,
                         std::int64_t kc, std::int64_t kc_padded, int mr, void* dst);
// Same for depth [k0, k0+kc) x columns [j0, j0+nc) of B into nr-column micro-panels.
using PackBFn = void (*)(const GemmProblem& p, std::int64_t k0, std::int64_t j0, std::int64_t nc,
                         std::int64_t kc, std::int64_t kc_padded, int nr, void* dst);
// C (mr x nr, leading dimension ldc) = or += packed A micro-panel x packed B
// micro-panel over kc_padded depth.
using MicroKernelFn = void (*)(std::int64_t kc_padded, const void* a, const void* b, float* c,
                               std::int64_t ldc, bool accumulate);

struct BlockedGemmConfig {
  int mr, nr;          // register tile
  int mc, kc, nc;      // cache blocks: mc multiple of mr, nc multiple of nr
  int k_granule;       // packed depth is a multiple of this (2 for bf16 pairs)
  std::size_t packed_elem_size;
  PackAFn pack_a;
  PackBFn pack_b;
  MicroKernelFn ukernel;
};

void RunBlockedGemm(const BlockedGemmConfig& cfg, const GemmProblem& p, int threads);

// Packing routines shared by the variants (baseline ISA).
void PackA_F32(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
               std::int64_t, int, void*);
void PackB_F32(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
               std::int64_t, int, void*);
// bf16 inputs widened to fp32 while packing (exact), for fp32 micro-kernels.
void PackA_Bf16ToF32(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                     std::int64_t, int, void*);
void PackB_Bf16ToF32(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                     std::int64_t, int, void*);
// fp32 inputs rounded to bf16 values (RoundToBf16) while packing, for fp32
// micro-kernels: the bf16 GEMM of operands that are still fp32, with no
// separate rounding pass (the widening variants' convolution lowering).
void PackB_F32RoundedToBf16(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                            std::int64_t, int, void*);
// PackA_F32 and PackA_Bf16ToF32, the same panels bit for bit, transposing
// tiles of row-major A (csa == 1) in vector registers: 16 x 16 for mr <= 16
// (pack__avx512f.cc), 8 x 8 for mr <= 8 (pack__avx2.cc); other layouts
// and tiles go to the portable packers, whose per-element gather takes about
// two cycles an element where A is in L2 (with these, the 2-thread AVX-512
// fp32 GEMM at m=n=k=512 ran 9-11% faster). Depth tails shorter than a tile
// load only what is there.
// REQUIRES: the CPU has the ISA.
void PackA_F32__avx512f(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                        std::int64_t, int, void*);
void PackA_Bf16ToF32__avx512f(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                              std::int64_t, int, void*);
void PackA_F32__avx2(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                     std::int64_t, int, void*);
void PackA_Bf16ToF32__avx2(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                           std::int64_t, int, void*);
// The transpose under them, on rows given by pointer (the implicit-im2col
// packer's runs, conv/conv2d.cc): out[t * mr + j] = src[j][t] for t < len and
// j < rows, rounded to bf16 values (RoundToBf16) when `round`; 0 for rows j in
// [rows, mr). REQUIRES: rows <= mr <= 16 (avx512f) or 8 (avx2); the CPU has the ISA.
using TransposeRowsFn = void (*)(const float* const* src, int rows, std::int64_t len, int mr, bool round,
                                 float* out);
void TransposeRows_F32__avx512f(const float* const* src, int rows, std::int64_t len, int mr, bool round,
                                float* out);
void TransposeRows_F32__avx2(const float* const* src, int rows, std::int64_t len, int mr, bool round, float* out);
// PackB_F32RoundedToBf16 with the rounding in vector registers (the portable
// one is built for the baseline ISA), for row-major B and nr a multiple of
// the vector width; else the portable one. REQUIRES: the CPU has the ISA.
void PackB_F32RoundedToBf16__avx512f(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                     std::int64_t, int, void*);
void PackB_F32RoundedToBf16__avx2(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                  std::int64_t, int, void*);
// bf16 kept, depth in pairs: A panel holds (row, k pair) as one 32-bit word per
// row; B panel holds per k pair nr words of (B(2q, j), B(2q+1, j)). For vdpbf16ps.
void PackA_Bf16Pairs(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                     std::int64_t, int, void*);
void PackB_Bf16Pairs(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                     std::int64_t, int, void*);

}  // namespace podbench::kernels::gemm_internal
