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
  // ukernel_rows[r], 0 < r < mr: ukernel for the first r rows of C only (the
  // A micro-panel is still mr rows), for an m that mr does not divide; null
  // (the array or an entry): ukernel into a scratch tile instead.
  const MicroKernelFn* ukernel_rows = nullptr;
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
// The packers that run in vector registers (pack_impl.h, built per ISA by
// pack__<isa>.cc): the portable packers' panels, bit for bit, from tiles of
// `width` x `width` transposed in registers. The portable A packers gather
// one element at a time, about two cycles an element where A is in L2 (with
// these, the 2-thread AVX-512 fp32 GEMM at m=n=k=512 ran 9-11% faster). Each
// hands a layout or tile it does not cover to its portable packer. Depth
// tails shorter than a tile load only what is there.
using TransposeRowsFn = void (*)(const float* const* src, int rows, std::int64_t len, int mr, std::int64_t ld,
                                 bool round, float* out);
using TransposePairsFn = void (*)(const float* const* src, int rows, std::int64_t len, int mr, std::int64_t ld,
                                  bool round, std::uint32_t* out);
struct VectorPackers {
  int width;                    // lanes per register: 8 (avx2), 16 (avx512f)
  PackAFn pack_a_f32;           // PackA_F32, for row-major A and mr <= width
  PackAFn pack_a_bf16_to_f32;   // PackA_Bf16ToF32, likewise
  PackBFn pack_b_f32;           // PackB_F32, for row-major B and nr a multiple of width
  PackBFn pack_b_bf16_to_f32;   // PackB_Bf16ToF32, likewise
  PackBFn pack_b_f32_rounded;   // PackB_F32RoundedToBf16, likewise
  // PackA_Bf16Pairs / PackB_Bf16Pairs, for row-major A and mr <= width /
  // row-major B and nr a multiple of width: the vdpbf16ps kernel's panels.
  // (No kernel below AVX-512 BF16 takes pair panels; AVX2's table has them
  // too so that every ISA's table is whole, and the tests check them.)
  PackAFn pack_a_bf16_pairs;
  PackBFn pack_b_bf16_pairs;
  PackBFn pack_b_f32_rounded_pairs;  // PackB_F32RoundedToBf16Pairs, for row-major B and nr a multiple of width
  // The transpose under the A packers, on rows given by pointer (the
  // implicit-im2col packer's runs, the data gradient's filter read in place:
  // conv/conv2d.cc; onednn_f32's filter fold): out[t * ld + j] = src[j][t] for
  // t < len and j < rows, rounded to bf16 values (RoundToBf16) when `round`;
  // 0 for rows j in [rows, mr); nothing else is written. (ld: mr for an A
  // micro-panel, nr for a part of a B one.) REQUIRES: rows <= mr <= width,
  // mr <= ld.
  TransposeRowsFn transpose_rows;
  // Its pair form, for the bf16-pair panels: out[p * ld + j] = the word of
  // the bf16 bits of src[j][2p] (low half) and src[j][2p + 1] (high half;
  // zero past len) for 2p < len and j < rows; 0 for rows j in [rows, mr);
  // nothing else is written. (ld: mr for an A micro-panel, nr for a half of a
  // B one.) The bits: Bf16::RoundFromFloat's when `round`, else the top half
  // of each value, which is exact for values that are bf16 values (the
  // caller's promise: Values::kBf16). REQUIRES: rows <= mr <= width, mr <= ld.
  TransposePairsFn transpose_pairs;
};
// REQUIRES: the CPU has the ISA.
const VectorPackers& VectorPackers__avx2();
const VectorPackers& VectorPackers__avx512f();
// Those of the widest ISA in {avx512f, avx2} at or below `isa`; null below avx2.
const VectorPackers* VectorPackersFor(Isa isa);
// bf16 kept, depth in pairs: A panel holds (row, k pair) as one 32-bit word per
// row; B panel holds per k pair nr words of (B(2q, j), B(2q+1, j)). For vdpbf16ps.
void PackA_Bf16Pairs(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                     std::int64_t, int, void*);
void PackB_Bf16Pairs(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                     std::int64_t, int, void*);
// PackB_Bf16Pairs of fp32 B, each element rounded (Bf16::RoundFromFloat) as
// it is packed: the vdpbf16ps GEMM of an fp32 operand with no separate
// rounding pass (the convolution lowering's filter).
void PackB_F32RoundedToBf16Pairs(const GemmProblem&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                 std::int64_t, int, void*);

}  // namespace podbench::kernels::gemm_internal
