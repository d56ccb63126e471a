#include "kernels/gemm/gemm_driver.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "kernels/scratch.h"
#include "kernels/thread_pool.h"

namespace podbench::kernels::gemm_internal {
namespace {

using std::int64_t;

// Below this many multiply-adds a second thread costs more than it saves.
constexpr double kMinMacsPerThread = 1 << 18;
// The largest operand the threads pack together (RunBlockedGemm).
constexpr std::size_t kMaxSharedPanelBytes = std::size_t(2) << 20;

int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// The operand every thread's part reads whole (A when the threads split n, B
// when they split m), packed once by all of them before the parts run: each
// part packing it for itself repeats that work once per thread (at
// m=n=k=512 on 2 threads, packing was 11% of the samples). Layout: depth
// block pc at pc * padded elements (every block but the last is cfg.kc
// deep), and in it the micro-panel of rows (A) or columns (B) i at
// i * kcp, as one pack call over the whole operand lays them out.
struct SharedPanels {
  const char* a = nullptr;  // null: not shared
  const char* b = nullptr;
  int64_t whole = 0;        // the shared operand's padded rows (A) or columns (B)
  // The element offset of the panels of depth block pc (kcp deep) from row
  // or column i on: the one statement of the layout, for packing and reading.
  int64_t Offset(int64_t pc, int64_t i, int64_t kcp) const { return pc * whole + i * kcp; }
};

// Runs the blocked loops over C rows [m0, m1) x columns [n0, n1), packing
// what `shared` does not hold.
void BlockedPart(const BlockedGemmConfig& cfg, const GemmProblem& p, int64_t m0, int64_t m1,
                 int64_t n0, int64_t n1, const SharedPanels& shared) {
  const int mr = cfg.mr, nr = cfg.nr;
  const int64_t elem = int64_t(cfg.packed_elem_size);
  // Equal row blocks (no thin last block re-streaming all of B), at most cfg.mc.
  const int64_t m_blocks = (m1 - m0 + cfg.mc - 1) / cfg.mc;
  const int64_t mc_blk = RoundUp((m1 - m0 + m_blocks - 1) / m_blocks, mr);
  const int64_t kc_max = RoundUp(std::min<int64_t>(cfg.kc, std::max<int64_t>(p.k, 1)), cfg.k_granule);
  const int64_t nc_max = RoundUp(std::min<int64_t>(cfg.nc, n1 - n0), nr);
  const int64_t mc_max = RoundUp(std::min<int64_t>(mc_blk, m1 - m0), mr);
  // Packing panels from the kernels' scratch pool (reused across calls and
  // threads), for the operands not shared.
  std::optional<ScratchLease> bpanel, apanel;
  if (!shared.b) bpanel.emplace(std::size_t(nc_max * kc_max) * cfg.packed_elem_size);
  if (!shared.a) apanel.emplace(std::size_t(mc_max * kc_max) * cfg.packed_elem_size);
  char* const bown = bpanel ? bpanel->as<char>() : nullptr;
  char* const aown = apanel ? apanel->as<char>() : nullptr;
  alignas(64) float tile[32 * 32];
  assert(mr * nr <= 32 * 32);

  for (int64_t jc = n0; jc < n1; jc += cfg.nc) {
    const int64_t nc = std::min<int64_t>(cfg.nc, n1 - jc);
    for (int64_t pc = 0; pc < p.k; pc += cfg.kc) {
      const int64_t kc = std::min<int64_t>(cfg.kc, p.k - pc);
      const int64_t kcp = RoundUp(kc, cfg.k_granule);
      const bool acc = p.accumulate || pc > 0;
      const char* bpack = bown;
      if (shared.b) {
        bpack = shared.b + shared.Offset(pc, jc, kcp) * elem;
      } else {
        cfg.pack_b(p, pc, jc, nc, kc, kcp, nr, bown);
      }
      for (int64_t ic = m0; ic < m1; ic += mc_blk) {
        const int64_t mc = std::min<int64_t>(mc_blk, m1 - ic);
        const char* apack = aown;
        if (shared.a) {
          apack = shared.a + shared.Offset(pc, ic, kcp) * elem;
        } else {
          cfg.pack_a(p, ic, pc, mc, kc, kcp, mr, aown);
        }
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int64_t nrr = std::min<int64_t>(nr, nc - jr);
          const char* bp = bpack + jr * kcp * elem;
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int64_t mrr = std::min<int64_t>(mr, mc - ir);
            const char* ap = apack + ir * kcp * elem;
            float* c = p.c + (ic + ir) * p.ldc + (jc + jr);
            if (mrr == mr && nrr == nr) {
              cfg.ukernel(kcp, ap, bp, c, p.ldc, acc);
            } else if (nrr == nr && cfg.ukernel_rows != nullptr && cfg.ukernel_rows[mrr] != nullptr) {
              cfg.ukernel_rows[mrr](kcp, ap, bp, c, p.ldc, acc);
            } else {
              cfg.ukernel(kcp, ap, bp, tile, nr, false);
              for (int64_t i = 0; i < mrr; ++i) {
                for (int64_t j = 0; j < nrr; ++j) {
                  c[i * p.ldc + j] = acc ? c[i * p.ldc + j] + tile[i * nr + j] : tile[i * nr + j];
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

void RunBlockedGemm(const BlockedGemmConfig& cfg, const GemmProblem& p, int threads) {
  assert(p.m >= 0 && p.n >= 0 && p.k >= 0 && p.ldc >= p.n);
  if (p.m == 0 || p.n == 0) return;
  if (p.k == 0) {
    if (!p.accumulate) {
      for (int64_t i = 0; i < p.m; ++i) std::fill_n(p.c + i * p.ldc, p.n, 0.0f);
    }
    return;
  }
  ThreadPool& pool = DefaultThreadPool();
  int t = threads <= 0 ? pool.threads() : std::min(threads, pool.threads());
  const double macs = double(p.m) * double(p.n) * double(p.k);
  t = int(std::max<double>(1, std::min<double>(t, macs / kMinMacsPerThread)));
  // Split the longer of m and n into t parts aligned to the register tile.
  const bool split_n = p.n >= p.m;
  const int64_t len = split_n ? p.n : p.m;
  const int64_t align = split_n ? cfg.nr : cfg.mr;
  const int64_t units = (len + align - 1) / align;
  t = int(std::min<int64_t>(t, units));
  // Several parts: pack the operand they all read once, together, when its
  // panels fit kMaxSharedPanelBytes (larger ones stream from memory instead
  // of staying in cache between packing and use).
  SharedPanels shared;
  std::unique_ptr<ScratchLease> shared_lease;
  if (t > 1 && cfg.kc % cfg.k_granule == 0) {
    const int64_t mr_or_nr = split_n ? cfg.mr : cfg.nr;
    shared.whole = RoundUp(split_n ? p.m : p.n, mr_or_nr);
    const int64_t last_kc = p.k - (p.k - 1) / cfg.kc * cfg.kc;
    const int64_t depth = (p.k - last_kc) + RoundUp(last_kc, cfg.k_granule);  // every block's kcp
    const std::size_t bytes = std::size_t(shared.whole * depth) * cfg.packed_elem_size;
    if (bytes <= kMaxSharedPanelBytes) {
      shared_lease = std::make_unique<ScratchLease>(bytes);
      char* dst = shared_lease->as<char>();
      const int64_t panels = shared.whole / mr_or_nr;
      const int64_t elem = int64_t(cfg.packed_elem_size);
      pool.Run(t, [&](int w) {
        const int64_t u0 = panels * w / t, u1 = panels * (w + 1) / t;
        const int64_t i0 = u0 * mr_or_nr, i1 = std::min(split_n ? p.m : p.n, u1 * mr_or_nr);
        if (i0 >= i1) return;
        for (int64_t pc = 0; pc < p.k; pc += cfg.kc) {
          const int64_t kc = std::min<int64_t>(cfg.kc, p.k - pc);
          const int64_t kcp = RoundUp(kc, cfg.k_granule);
          char* at = dst + shared.Offset(pc, i0, kcp) * elem;
          if (split_n) {
            cfg.pack_a(p, i0, pc, i1 - i0, kc, kcp, cfg.mr, at);
          } else {
            cfg.pack_b(p, pc, i0, i1 - i0, kc, kcp, cfg.nr, at);
          }
        }
      });
      (split_n ? shared.a : shared.b) = dst;
    }
  }
  pool.Run(t, [&](int w) {
    const int64_t u0 = units * w / t, u1 = units * (w + 1) / t;
    const int64_t b0 = std::min(len, u0 * align), b1 = std::min(len, u1 * align);
    if (b0 >= b1) return;
    if (split_n) {
      BlockedPart(cfg, p, 0, p.m, b0, b1, shared);
    } else {
      BlockedPart(cfg, p, b0, b1, 0, p.n, shared);
    }
  });
}

namespace {

template <typename In, typename Out, typename Cvt>
void PackAGeneric(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc,
                  int64_t kcp, int mr, void* dst, Cvt cvt) {
  const In* a = static_cast<const In*>(p.a);
  Out* out = static_cast<Out*>(dst);
  if (p.csa == 1) {
    // Row-major A: walk the panel's depth, reading the mr rows side by side
    // (mr sequential streams, which the hardware prefetcher follows) and
    // writing the panel sequentially. Writing it row by row instead scatters
    // every store mr elements apart and cost 7% of a 2048^3 fp32 GEMM.
    constexpr int kMaxMr = 32;
    assert(mr <= kMaxMr);
    for (int64_t ir = 0; ir < mc; ir += mr, out += kcp * mr) {
      const int64_t rows = std::min<int64_t>(mr, mc - ir);
      const In* src[kMaxMr];
      for (int64_t r = 0; r < rows; ++r) src[r] = a + (i0 + ir + r) * p.rsa + k0;
      Out* o = out;
      for (int64_t q = 0; q < kc; ++q, o += mr) {
        int64_t r = 0;
        for (; r < rows; ++r) o[r] = cvt(src[r][q]);
        for (; r < mr; ++r) o[r] = Out{};
      }
      for (int64_t q = kc; q < kcp; ++q, o += mr) std::fill_n(o, mr, Out{});
    }
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += mr) {
    const int64_t rows = std::min<int64_t>(mr, mc - ir);
    for (int64_t q = 0; q < kc; ++q) {
      const In* col = a + (i0 + ir) * p.rsa + (k0 + q) * p.csa;
      int64_t r = 0;
      for (; r < rows; ++r) out[r] = cvt(col[r * p.rsa]);
      for (; r < mr; ++r) out[r] = Out{};
      out += mr;
    }
    for (int64_t q = kc; q < kcp; ++q, out += mr) std::fill_n(out, mr, Out{});
  }
}

template <typename In, typename Out, typename Cvt>
void PackBGeneric(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc,
                  int64_t kcp, int nr, void* dst, Cvt cvt) {
  const In* b = static_cast<const In*>(p.b);
  Out* out = static_cast<Out*>(dst);
  if (p.csb == 1) {
    // Row-major B: walk each row once, sequentially (prefetch-friendly),
    // dealing its nr-wide pieces to the micro-panels.
    const int64_t full = nc / nr * nr;
    for (int64_t q = 0; q < kcp; ++q) {
      const In* row = b + (k0 + q) * p.rsb + j0;
      Out* o = out + q * nr;
      if (q >= kc) {
        for (int64_t jr = 0; jr < nc; jr += nr, o += kcp * nr) std::fill_n(o, nr, Out{});
        continue;
      }
      int64_t jr = 0;
      for (; jr < full; jr += nr, o += kcp * nr) {
        for (int j = 0; j < nr; ++j) o[j] = cvt(row[jr + j]);
      }
      if (jr < nc) {
        int64_t j = 0;
        for (; jr + j < nc; ++j) o[j] = cvt(row[jr + j]);
        for (; j < nr; ++j) o[j] = Out{};
      }
    }
    return;
  }
  for (int64_t jr = 0; jr < nc; jr += nr) {
    const int64_t cols = std::min<int64_t>(nr, nc - jr);
    for (int64_t q = 0; q < kc; ++q) {
      const In* row = b + (k0 + q) * p.rsb + (j0 + jr) * p.csb;
      int64_t j = 0;
      if (p.csb == 1) {
        for (; j < cols; ++j) out[j] = cvt(row[j]);
      } else {
        for (; j < cols; ++j) out[j] = cvt(row[j * p.csb]);
      }
      for (; j < nr; ++j) out[j] = Out{};
      out += nr;
    }
    for (int64_t q = kc; q < kcp; ++q, out += nr) std::fill_n(out, nr, Out{});
  }
}

// Functors (not function pointers) so the packing loops inline and vectorise.
struct WidenFn {
  float operator()(Bf16 x) const { return std::bit_cast<float>(std::uint32_t(x.bits) << 16); }
};
struct SameFn {
  float operator()(float x) const { return x; }
};
// RoundToBf16Branchless (kernels/bf16.h): the packing loop vectorises.
struct RoundFn {
  float operator()(float x) const { return RoundToBf16Branchless(x); }
};
constexpr WidenFn Widen;
constexpr SameFn Same;
constexpr RoundFn Round;

}  // namespace

const VectorPackers* VectorPackersFor(Isa isa) {
  if (isa >= Isa::kAvx512f) return &VectorPackers__avx512f();
  if (isa >= Isa::kAvx2Fma) return &VectorPackers__avx2();
  return nullptr;
}

void PackA_F32(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp,
               int mr, void* dst) {
  PackAGeneric<float, float>(p, i0, k0, mc, kc, kcp, mr, dst, Same);
}
void PackB_F32(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp,
               int nr, void* dst) {
  PackBGeneric<float, float>(p, k0, j0, nc, kc, kcp, nr, dst, Same);
}
void PackA_Bf16ToF32(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc,
                     int64_t kcp, int mr, void* dst) {
  PackAGeneric<Bf16, float>(p, i0, k0, mc, kc, kcp, mr, dst, Widen);
}
void PackB_Bf16ToF32(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc,
                     int64_t kcp, int nr, void* dst) {
  PackBGeneric<Bf16, float>(p, k0, j0, nc, kc, kcp, nr, dst, Widen);
}

void PackB_F32RoundedToBf16(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp,
                            int nr, void* dst) {
  PackBGeneric<float, float>(p, k0, j0, nc, kc, kcp, nr, dst, Round);
}

// The bf16 pair panels hold, per depth pair q, one 32-bit word per row
// (A) or column (B): depth 2q in the low half, 2q + 1 in the high half;
// depth past kc is zero.
namespace {
std::uint32_t Pair(std::uint16_t lo, std::uint16_t hi) { return std::uint32_t(lo) | std::uint32_t(hi) << 16; }
}  // namespace

void PackA_Bf16Pairs(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc,
                     int64_t kcp, int mr, void* dst) {
  const std::uint16_t* a = static_cast<const std::uint16_t*>(p.a);
  std::uint32_t* out = static_cast<std::uint32_t*>(dst);
  const int64_t pairs = kcp / 2, full = kc / 2;
  for (int64_t ir = 0; ir < mc; ir += mr, out += pairs * mr) {
    const int64_t rows = std::min<int64_t>(mr, mc - ir);
    if (p.csa == 1) {
      // Row-major A: each row's depth is contiguous; deal its pairs to the panel.
      for (int64_t r = 0; r < mr; ++r) {
        std::uint32_t* o = out + r;
        if (r >= rows) {
          for (int64_t q = 0; q < pairs; ++q) o[q * mr] = 0;
          continue;
        }
        const std::uint16_t* src = a + (i0 + ir + r) * p.rsa + k0;
        int64_t q = 0;
        for (; q < full; ++q) o[q * mr] = Pair(src[2 * q], src[2 * q + 1]);
        if (kc % 2 != 0) o[q++ * mr] = Pair(src[kc - 1], 0);
        for (; q < pairs; ++q) o[q * mr] = 0;
      }
      continue;
    }
    for (int64_t q = 0; q < pairs; ++q) {
      // Otherwise walk depth pairs; transposed A (rsa == 1) reads rows contiguously.
      const int64_t d0 = 2 * q, d1 = 2 * q + 1;
      const std::uint16_t* c0 = a + (i0 + ir) * p.rsa + (k0 + d0) * p.csa;
      const std::uint16_t* c1 = c0 + p.csa;
      std::uint32_t* o = out + q * mr;
      int64_t r = 0;
      if (d1 < kc) {
        for (; r < rows; ++r) o[r] = Pair(c0[r * p.rsa], c1[r * p.rsa]);
      } else if (d0 < kc) {
        for (; r < rows; ++r) o[r] = Pair(c0[r * p.rsa], 0);
      }
      for (; r < mr; ++r) o[r] = 0;
    }
  }
}

void PackB_Bf16Pairs(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc,
                     int64_t kcp, int nr, void* dst) {
  const std::uint16_t* b = static_cast<const std::uint16_t*>(p.b);
  std::uint32_t* out = static_cast<std::uint32_t*>(dst);
  const int64_t pairs = kcp / 2;
  if (p.csb == 1) {
    // Row-major B: interleave rows 2q and 2q + 1, each read once, sequentially.
    for (int64_t q = 0; q < pairs; ++q) {
      const int64_t d0 = 2 * q, d1 = 2 * q + 1;
      const std::uint16_t* r0 = b + (k0 + d0) * p.rsb + j0;
      const std::uint16_t* r1 = r0 + p.rsb;
      std::uint32_t* o = out + q * nr;
      for (int64_t jr = 0; jr < nc; jr += nr, o += pairs * nr) {
        const int64_t cols = std::min<int64_t>(nr, nc - jr);
        int64_t j = 0;
        if (d1 < kc) {
          for (; j < cols; ++j) o[j] = Pair(r0[jr + j], r1[jr + j]);
        } else if (d0 < kc) {
          for (; j < cols; ++j) o[j] = Pair(r0[jr + j], 0);
        }
        for (; j < nr; ++j) o[j] = 0;
      }
    }
    return;
  }
  for (int64_t jr = 0; jr < nc; jr += nr, out += pairs * nr) {
    const int64_t cols = std::min<int64_t>(nr, nc - jr);
    for (int64_t j = 0; j < nr; ++j) {
      // Column by column; transposed B (rsb == 1) reads each column's depth contiguously.
      std::uint32_t* o = out + j;
      if (j >= cols) {
        for (int64_t q = 0; q < pairs; ++q) o[q * nr] = 0;
        continue;
      }
      const std::uint16_t* src = b + k0 * p.rsb + (j0 + jr + j) * p.csb;
      for (int64_t q = 0; q < pairs; ++q) {
        const int64_t d0 = 2 * q, d1 = 2 * q + 1;
        o[q * nr] = Pair(d0 < kc ? src[d0 * p.rsb] : 0, d1 < kc ? src[d1 * p.rsb] : 0);
      }
    }
  }
}

void PackB_F32RoundedToBf16Pairs(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc,
                                 int64_t kcp, int nr, void* dst) {
  const float* b = static_cast<const float*>(p.b);
  std::uint32_t* out = static_cast<std::uint32_t*>(dst);
  const int64_t pairs = kcp / 2;
  auto bits = [&](int64_t d, int64_t j) -> std::uint16_t {
    return d < kc ? Bf16::RoundFromFloat(b[(k0 + d) * p.rsb + (j0 + j) * p.csb]) : std::uint16_t{0};
  };
  for (int64_t jr = 0; jr < nc; jr += nr, out += pairs * nr) {
    const int64_t cols = std::min<int64_t>(nr, nc - jr);
    for (int64_t q = 0; q < pairs; ++q) {
      std::uint32_t* o = out + q * nr;
      for (int64_t j = 0; j < nr; ++j) o[j] = j < cols ? Pair(bits(2 * q, jr + j), bits(2 * q + 1, jr + j)) : 0u;
    }
  }
}

}  // namespace podbench::kernels::gemm_internal
