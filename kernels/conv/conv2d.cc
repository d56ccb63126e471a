// Convolution: the public passes dispatch (kernels/dispatch) over the
// variants of conv_manifest.inc. A lowering variant runs a pass on one own
// GEMM variant:
//   - forward: implicit GEMM, the GEMM's A-packing step reads the input
//     windows directly (no column buffer), rounding to bf16 as it packs in
//     bf16 mode; explicit im2col in cache-sized row chunks when the variant's
//     panel format has no implicit packer;
//   - backward data, stride 1: the forward pass of dy with the filter turned
//     180 degrees and its channel axes swapped (implicit as above); other
//     strides: explicit GEMM with W^T and col2im;
//   - backward filter: explicit im2col chunks, dW += col^T dy;
//   - 1x1 stride-1 convolutions are one GEMM.
#include "kernels/conv/conv2d.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/conv/conv_variants.h"
#include "kernels/dispatch/dispatch.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_driver.h"
#include "kernels/onednn/onednn.h"
#include "kernels/scratch.h"
#include "kernels/thread_pool.h"

namespace podbench::kernels {
namespace {

using std::int64_t;

// Column-buffer bytes per chunk: a few MiB keeps it in L2/L3 while each GEMM
// still has enough rows to amortise packing the filter.
constexpr int64_t kColBytes = 2 << 20;
constexpr int64_t kMinChunkRows = 192;

template <typename T>
T Cvt(float v);
template <>
float Cvt<float>(float v) { return v; }
template <>
Bf16 Cvt<Bf16>(float v) { return Bf16(v); }

int ResolveThreads(int threads) {
  const int have = DefaultThreadPool().threads();
  return threads <= 0 ? have : std::min(threads, have);
}

bool IsPointwise(const Conv2dShape& s) { return s.kh == 1 && s.kw == 1 && s.stride == 1 && s.pad == 0; }

// src as the GEMM's input type: fp32 as is, bf16 rounded into scratch held
// by this object.
template <typename T>
class GemmInput {
 public:
  GemmInput(const float* src, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
      p_ = src;
    } else {
      lease_.emplace(std::size_t(n) * sizeof(T));
      ConvertToBf16(src, lease_->as<T>(), n);
      p_ = lease_->as<T>();
    }
  }
  const T* get() const { return p_; }

 private:
  std::optional<ScratchLease> lease_;
  const T* p_;
};

void CallGemm(const GemmVariant& v, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, bool ta,
              const void* b, int64_t ldb, bool tb, float* c, int64_t ldc, bool acc, int threads) {
  v.fn(RowMajorProblem(m, n, k, a, lda, ta, b, ldb, tb, c, ldc, acc), threads);
}

// Lowered rows [r0, r1) of x: col[(row - r0) * K + (r * kw + q) * c + ci].
template <typename T>
void Im2Col(const Conv2dShape& s, const float* x, int64_t r0, int64_t r1, T* col) {
  const int64_t oh = s.OutH(), ow = s.OutW(), k = s.kh * s.kw * s.c;
  for (int64_t row = r0; row < r1; ++row) {
    const int64_t b = row / (oh * ow), i = (row / ow) % oh, j = row % ow;
    T* dst = col + (row - r0) * k;
    for (int64_t r = 0; r < s.kh; ++r) {
      const int64_t hi = i * s.stride + r - s.pad;
      for (int64_t q = 0; q < s.kw; ++q, dst += s.c) {
        const int64_t wi = j * s.stride + q - s.pad;
        if (hi < 0 || hi >= s.h || wi < 0 || wi >= s.w) {
          std::fill_n(dst, s.c, T{});
          continue;
        }
        const float* src = x + ((b * s.h + hi) * s.w + wi) * s.c;
        for (int64_t ci = 0; ci < s.c; ++ci) dst[ci] = Cvt<T>(src[ci]);
      }
    }
  }
}

// dx += scatter of dcol rows [r0, r1).
void Col2ImAdd(const Conv2dShape& s, const float* col, int64_t r0, int64_t r1, float* dx) {
  const int64_t oh = s.OutH(), ow = s.OutW(), k = s.kh * s.kw * s.c;
  for (int64_t row = r0; row < r1; ++row) {
    const int64_t b = row / (oh * ow), i = (row / ow) % oh, j = row % ow;
    const float* src = col + (row - r0) * k;
    for (int64_t r = 0; r < s.kh; ++r) {
      const int64_t hi = i * s.stride + r - s.pad;
      for (int64_t q = 0; q < s.kw; ++q, src += s.c) {
        const int64_t wi = j * s.stride + q - s.pad;
        if (hi < 0 || hi >= s.h || wi < 0 || wi >= s.w) continue;
        float* dst = dx + ((b * s.h + hi) * s.w + wi) * s.c;
        for (int64_t ci = 0; ci < s.c; ++ci) dst[ci] += src[ci];
      }
    }
  }
}

// Rows per chunk for a lowered matrix of `rows` x `k` elements of `elem` bytes.
int64_t ChunkRows(int64_t rows, int64_t k, int64_t elem) {
  return std::clamp<int64_t>(kColBytes / (k * elem), kMinChunkRows, std::max<int64_t>(rows, 1));
}

// ---- Implicit GEMM: the A operand is the lowered input, packed from x ----

struct ImplicitA {
  const Conv2dShape* s;
  const float* x;
  const float* zeros;  // s->c zeros: the source of padding
  // The variant ISA's vector packers, for the panel's runs (transpose_rows
  // for an fp32 panel, transpose_pairs for a bf16-pair one); null: element by
  // element.
  const gemm_internal::VectorPackers* vp = nullptr;
};

// Calls emit(q, len, src[MR]) for each contiguous channel run of depth
// [k0, k0 + kc) of MR output positions from `row0` (rows >= `rows` and
// padding read `zeros`): src[r] points at len input values of row r for
// depth q .. q + len - 1 (relative to k0).
template <int MR, typename Emit>
void ForEachRun(const Conv2dShape& s, const float* x, const float* zeros, int64_t row0, int64_t rows, int64_t k0,
                int64_t kc, Emit&& emit) {
  const int64_t oh = s.OutH(), ow = s.OutW();
  int64_t bi[MR], ii[MR], jj[MR];
  for (int r = 0; r < MR; ++r) {
    const int64_t row = row0 + (r < rows ? r : 0);
    bi[r] = row / (oh * ow);
    ii[r] = (row / ow) % oh;
    jj[r] = row % ow;
  }
  int64_t tap = k0 / s.c, ci = k0 % s.c, q = 0;
  while (q < kc) {
    const int64_t len = std::min(s.c - ci, kc - q);
    const int64_t dr = tap / s.kw - s.pad, dq = tap % s.kw - s.pad;
    const float* src[MR];
    for (int r = 0; r < MR; ++r) {
      const int64_t hi = ii[r] * s.stride + dr, wi = jj[r] * s.stride + dq;
      src[r] = (r >= rows || hi < 0 || hi >= s.h || wi < 0 || wi >= s.w)
                   ? zeros
                   : x + ((bi[r] * s.h + hi) * s.w + wi) * s.c + ci;
    }
    emit(q, len, src);
    q += len;
    ci = 0;
    ++tap;
  }
}

// fp32 panel (MR values per depth step), rounded to bf16 when kRound.
template <int MR, bool kRound>
void PackIm2ColPanel(const ImplicitA& a, int64_t row0, int64_t rows, int64_t k0, int64_t kc, int64_t kcp,
                     float* out) {
  ForEachRun<MR>(*a.s, a.x, a.zeros, row0, rows, k0, kc, [&](int64_t q, int64_t len, const float* const* src) {
    float* o = out + q * MR;
    if (a.vp != nullptr) {  // every src[r] is readable (padding and missing rows read zeros)
      a.vp->transpose_rows(src, MR, len, MR, MR, kRound, o);
      return;
    }
    for (int64_t t = 0; t < len; ++t, o += MR) {
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) o[r] = kRound ? RoundToBf16(src[r][t]) : src[r][t];
    }
  });
  std::fill(out + kc * MR, out + kcp * MR, 0.0f);
}

// bf16-pair panel (kernels/gemm/gemm_driver.h, PackA_Bf16Pairs): depth q of row
// r is half q % 2 of 32-bit word q / 2 * MR + r; the values rounded, or when
// !kRound (they are bf16 values: Values::kBf16) their top halves.
template <int MR, bool kRound>
void PackIm2ColPairsPanel(const ImplicitA& a, int64_t row0, int64_t rows, int64_t k0, int64_t kc, int64_t kcp,
                          std::uint16_t* out) {
  ForEachRun<MR>(*a.s, a.x, a.zeros, row0, rows, k0, kc, [&](int64_t q0, int64_t len, const float* const* src) {
    auto one_depth = [&](int64_t t) {  // the half words of depth q0 + t
      const int64_t q = q0 + t;
      std::uint16_t* o = out + (q / 2) * (2 * MR) + (q % 2);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        o[2 * r] = kRound ? Bf16::RoundFromFloat(src[r][t])
                          : std::uint16_t(std::bit_cast<std::uint32_t>(src[r][t]) >> 16);
      }
    };
    int64_t t = 0;
    if (a.vp != nullptr) {
      // Whole words in registers: a run that starts in a word's high half
      // takes that half alone, and an odd last depth is left to the next run
      // (or the padding) to complete.
      if (q0 % 2 != 0) one_depth(t++);
      const int64_t even = (len - t) / 2 * 2;
      if (even > 0) {
        const float* from[MR];
        for (int r = 0; r < MR; ++r) from[r] = src[r] + t;
        a.vp->transpose_pairs(from, MR, even, MR, MR, kRound,
                              reinterpret_cast<std::uint32_t*>(out) + (q0 + t) / 2 * MR);
        t += even;
      }
    }
    for (; t < len; ++t) one_depth(t);
  });
  for (int64_t q = kc; q < kcp; ++q) {
    std::uint16_t* o = out + (q / 2) * (2 * MR) + (q % 2);
    for (int r = 0; r < MR; ++r) o[2 * r] = 0;
  }
}

// ---- The data gradient's B operand, read from the filter in place ----

// B of the flipped forward convolution (FlippedForwardShape): row k' = tap' *
// s->oc + o, column ci holds W[T - 1 - tap'][ci][o] (T = kh * kw taps, HWIO
// filter), so the depth of a column runs along adjacent floats within a tap.
// The B packers below read it there; the transposed copy they replace had
// taken two thirds of the res5 data gradient's time on 1 thread.
struct FlippedB {
  const Conv2dShape* s;  // the convolution's own shape (not the flipped one)
  const float* filter;
  const gemm_internal::VectorPackers* vp;  // or null: element by element
  // Rounded to bf16 (a bf16 variant on a filter not promised to hold bf16
  // values); pair panels of a filter that holds them take its top halves.
  bool round;
};

// Column j0 + j's element at depth k0 + d.
const float* FlippedAt(const FlippedB& fb, int64_t k0, int64_t d, int64_t j0, int64_t j) {
  const Conv2dShape& s = *fb.s;
  const int64_t row = k0 + d, tap = row / s.oc, o = row % s.oc;
  return fb.filter + ((s.kh * s.kw - 1 - tap) * s.c + j0 + j) * s.oc + o;
}

// Calls put(d, n, src, rows, mr, h) for each run of depth [d, d + n) of
// [0, depth) that stays within one tap, and each part [h, h + mr) of the nr
// columns of panel jr that one register transpose fills (src: the first
// `rows` of those columns that exist, at depth d).
template <typename Put>
void ForEachFlippedRun(const FlippedB& fb, int64_t k0, int64_t depth, int64_t j0, int64_t jr, int64_t cols, int nr,
                       Put&& put) {
  const int w = fb.vp->width;
  for (int64_t d = 0; d < depth;) {
    const int64_t n = std::min(depth - d, fb.s->oc - (k0 + d) % fb.s->oc);
    for (int h = 0; h < nr; h += w) {
      const float* src[16];
      const int rows = int(std::clamp<int64_t>(cols - h, 0, w));
      for (int j = 0; j < rows; ++j) src[j] = FlippedAt(fb, k0, d, j0, jr + h + j);
      put(d, n, src, rows, std::min(w, nr - h), h);
    }
    d += n;
  }
}

// FlippedB's B packed: PackB_F32 (or PackB_F32RoundedToBf16 when fb.round),
// or with kPairs PackB_F32RoundedToBf16Pairs (the same bits on a filter of
// bf16 values, whose top halves the register transpose then takes). Pairs go through the register
// transpose where none straddles two taps (k0 and s->oc even), else element
// by element.
template <bool kPairs>
void PackBFlipped(const GemmProblem& p, int64_t k0, int64_t j0, int64_t nc, int64_t kc, int64_t kcp, int nr,
                  void* dst) {
  using Element = std::conditional_t<kPairs, std::uint32_t, float>;
  const FlippedB& fb = *static_cast<const FlippedB*>(p.b);
  constexpr int64_t g = kPairs ? 2 : 1;  // depths per panel element
  const int64_t steps = kcp / g, whole = kc / g;
  // Column j's element at panel step q (zero past depth kc and past nc).
  auto element = [&](int64_t q, int64_t jr, int64_t j, int64_t cols) -> Element {
    auto value = [&](int64_t d) { return j < cols && d < kc ? *FlippedAt(fb, k0, d, j0, jr + j) : 0.0f; };
    if constexpr (kPairs) {
      return std::uint32_t(Bf16::RoundFromFloat(value(2 * q))) | std::uint32_t(Bf16::RoundFromFloat(value(2 * q + 1)))
                                                                     << 16;
    } else {
      return fb.round ? RoundToBf16(value(q)) : value(q);
    }
  };
  Element* out = static_cast<Element*>(dst);
  for (int64_t jr = 0; jr < nc; jr += nr, out += steps * nr) {
    const int64_t cols = std::min<int64_t>(nr, nc - jr);
    int64_t q = 0;
    if (fb.vp != nullptr && (!kPairs || (k0 % 2 == 0 && fb.s->oc % 2 == 0))) {
      ForEachFlippedRun(fb, k0, whole * g, j0, jr, cols, nr,
                        [&](int64_t d, int64_t n, const float* const* src, int rows, int mr, int h) {
                          if constexpr (kPairs) {
                            fb.vp->transpose_pairs(src, rows, n, mr, nr, fb.round, out + d / 2 * nr + h);
                          } else {
                            fb.vp->transpose_rows(src, rows, n, mr, nr, fb.round, out + d * nr + h);
                          }
                        });
      q = whole;
    }
    for (; q < steps; ++q) {
      for (int64_t j = 0; j < nr; ++j) out[q * nr + j] = element(q, jr, j, cols);
    }
  }
}

// The register-tile heights that have implicit packers.
template <typename F>
bool WithMr(int mr, F&& f) {
  switch (mr) {
    case 6: f(std::integral_constant<int, 6>{}); return true;
    case 14: f(std::integral_constant<int, 14>{}); return true;
    case 16: f(std::integral_constant<int, 16>{}); return true;
    case 32: f(std::integral_constant<int, 32>{}); return true;
    default: return false;
  }
}

template <bool kRound>
void PackAIm2Col(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                 void* dst) {
  const ImplicitA& a = *static_cast<const ImplicitA*>(p.a);
  float* panel = static_cast<float*>(dst);
  for (int64_t ir = 0; ir < mc; ir += mr, panel += kcp * mr) {
    const int64_t rows = std::min<int64_t>(mr, mc - ir);
    WithMr(mr, [&](auto MR) { PackIm2ColPanel<MR.value, kRound>(a, i0 + ir, rows, k0, kc, kcp, panel); });
  }
}

template <bool kRound>
void PackAIm2ColPairs(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp, int mr,
                      void* dst) {
  const ImplicitA& a = *static_cast<const ImplicitA*>(p.a);
  std::uint16_t* panel = static_cast<std::uint16_t*>(dst);
  for (int64_t ir = 0; ir < mc; ir += mr, panel += kcp * mr) {
    const int64_t rows = std::min<int64_t>(mr, mc - ir);
    WithMr(mr, [&](auto MR) { PackIm2ColPairsPanel<MR.value, kRound>(a, i0 + ir, rows, k0, kc, kcp, panel); });
  }
}

// The variant's blocked setup with an implicit im2col A packer, or false
// when its panel format or tile has none. `a_bf16`: the input already holds
// bf16 values (ConvArgs::activations), so a bf16 variant's A packer takes
// them as they are (an fp32 panel unrounded, a pair panel their top halves).
// B (the filter) is passed as fp32 in every case: a bf16 variant's B packer
// rounds it while packing (into fp32 values for the widening kernels, into
// pairs for vdpbf16ps), unless `b_bf16` says it holds bf16 values
// (ConvArgs::weights: the widening kernels then pack it as fp32 does; the
// pair packer rounds it anyway, which leaves bf16 values as they are), with
// no separate rounding pass
// (on the Zen 5 that pass and the pair packing each took 13% of the res5
// forward pass on 1 thread). *vp: the variant ISA's vector packers where
// they cover the tile height, for the implicit packer's runs, or null (for
// the 2-thread bf16 res5 forward pass under the AVX2 cap, element by element
// had made bf16 0.87x of fp32).
bool ImplicitConfig(const GemmVariant& v, bool a_bf16, bool b_bf16, gemm_internal::BlockedGemmConfig* cfg,
                    const gemm_internal::VectorPackers** vp) {
  *vp = nullptr;
  if (v.blocked_config == nullptr || v.blocked_config() == nullptr) return false;
  *cfg = *v.blocked_config();
  if (!WithMr(cfg->mr, [](auto) {})) return false;
  const bool bf16 = v.dtype == GemmDtype::kBf16;
  const gemm_internal::VectorPackers* isa_vp = gemm_internal::VectorPackersFor(v.isa);
  if (isa_vp != nullptr && cfg->mr <= isa_vp->width) *vp = isa_vp;
  if (cfg->k_granule == 1 && cfg->packed_elem_size == sizeof(float)) {
    cfg->pack_a = bf16 && !a_bf16 ? PackAIm2Col<true> : PackAIm2Col<false>;  // the transpose rounds when this does
    if (bf16 && b_bf16) cfg->pack_b = isa_vp != nullptr ? isa_vp->pack_b_f32 : gemm_internal::PackB_F32;
    if (bf16 && !b_bf16) {
      cfg->pack_b = isa_vp != nullptr ? isa_vp->pack_b_f32_rounded : gemm_internal::PackB_F32RoundedToBf16;
    }
    return true;
  }
  if (bf16 && cfg->k_granule == 2 && cfg->packed_elem_size == sizeof(std::uint16_t)) {
    cfg->pack_a = a_bf16 ? PackAIm2ColPairs<false> : PackAIm2ColPairs<true>;
    cfg->pack_b =
        isa_vp != nullptr ? isa_vp->pack_b_f32_rounded_pairs : gemm_internal::PackB_F32RoundedToBf16Pairs;
    return true;
  }
  *vp = nullptr;
  return false;
}

// y = implicit-GEMM convolution of x through `cfg`, ImplicitConfig's setup:
// B is the fp32 HWIO filter f, or what cfg.pack_b reads (a FlippedB).
void ImplicitForward(const gemm_internal::BlockedGemmConfig& cfg, const gemm_internal::VectorPackers* vp,
                     const Conv2dShape& s, const float* x, const void* f, float* y, int threads) {
  const ScratchLease zeros(std::size_t(s.c) * sizeof(float));
  std::fill_n(zeros.as<float>(), s.c, 0.0f);
  const ImplicitA a{&s, x, zeros.as<float>(), vp};
  GemmProblem p;
  p.m = s.n * s.OutH() * s.OutW();
  p.n = s.oc;
  p.k = s.kh * s.kw * s.c;
  p.a = &a;
  p.b = f;
  p.rsb = s.oc;
  p.csb = 1;
  p.c = y;
  p.ldc = s.oc;
  gemm_internal::RunBlockedGemm(cfg, p, threads);
}

// The fp32 GEMM variant that runs the same micro-kernel as bf16 variant `v`
// (one that widens bf16 to fp32 while packing: its arithmetic is fp32 on
// bf16 values), or null (vdpbf16ps, oneDNN, the scalar reference). On
// operands that already hold bf16 values it computes v's products and fp32
// sums in the same order, bit for bit, where the lowering cuts the same
// chunks (LoweredBackwardFilter sizes both for fp32 elements), and
// skips v's conversion to bf16 storage: what bf16 activations buy.
const GemmVariant* Fp32Twin(const GemmVariant& v) {
  if (v.dtype != GemmDtype::kBf16 || v.blocked_config == nullptr || v.blocked_config() == nullptr) return nullptr;
  const gemm_internal::BlockedGemmConfig& cfg = *v.blocked_config();
  if (cfg.k_granule != 1 || cfg.packed_elem_size != sizeof(float)) return nullptr;
  for (const GemmVariant& t : GemmVariants()) {
    if (t.dtype == GemmDtype::kF32 && t.isa == v.isa && t.blocked_config != nullptr && t.blocked_config() != nullptr &&
        t.blocked_config()->ukernel == cfg.ukernel) {
      return &t;
    }
  }
  return nullptr;
}

// ---- The lowering passes, on GEMM variant v of input type T ----

template <typename T>
void ExplicitForward(const GemmVariant& v, const Conv2dShape& s, const float* x, const T* f, float* y,
                     int threads) {
  const int64_t m = s.n * s.OutH() * s.OutW(), k = s.kh * s.kw * s.c;
  const int t = ResolveThreads(threads);
  int64_t chunk = ChunkRows(m, k, sizeof(T));
  int64_t chunks = (m + chunk - 1) / chunk;
  if (t > 1 && m / t >= kMinChunkRows) {
    chunks = (chunks + t - 1) / t * t;  // whole rounds of chunks for every thread
    chunk = (m + chunks - 1) / chunks;
  }
  const bool parallel_chunks = chunks >= t && t > 1;
  auto do_chunk = [&](int64_t r0, int gemm_threads) {
    const int64_t r1 = std::min(m, r0 + chunk);
    if (r0 >= r1) return;
    const ScratchLease col_lease(std::size_t((r1 - r0) * k) * sizeof(T));
    T* col = col_lease.as<T>();
    Im2Col<T>(s, x, r0, r1, col);
    CallGemm(v, r1 - r0, s.oc, k, col, k, false, f, s.oc, false, y + r0 * s.oc, s.oc, false, gemm_threads);
  };
  if (parallel_chunks) {
    DefaultThreadPool().Run(t, [&](int w) {
      for (int64_t ch = w; ch < chunks; ch += t) do_chunk(ch * chunk, 1);
    });
  } else {
    for (int64_t ch = 0; ch < chunks; ++ch) do_chunk(ch * chunk, t);
  }
}

// x_bf16, w_bf16: x, the filter hold bf16 values (ConvArgs::activations,
// ConvArgs::weights).
template <typename T>
void LoweredForward(const GemmVariant& v, const Conv2dShape& s, const float* x, const float* filter, float* y,
                    bool x_bf16, bool w_bf16, int threads) {
  if constexpr (std::is_same_v<T, Bf16>) {
    // Both operands hold bf16 values: the fp32 pass over the same
    // micro-kernel is this variant's result.
    if (const GemmVariant* twin = x_bf16 && w_bf16 ? Fp32Twin(v) : nullptr) {
      return LoweredForward<float>(*twin, s, x, filter, y, false, false, threads);
    }
  }
  const int64_t filter_elems = s.kh * s.kw * s.c * s.oc;
  gemm_internal::BlockedGemmConfig cfg;
  const gemm_internal::VectorPackers* vp = nullptr;
  if (ImplicitConfig(v, x_bf16, w_bf16, &cfg, &vp)) {
    ImplicitForward(cfg, vp, s, x, filter, y, threads);
    return;
  }
  const GemmInput<T> f(filter, filter_elems);
  if (IsPointwise(s)) {
    const GemmInput<T> a(x, s.n * s.h * s.w * s.c);
    CallGemm(v, s.n * s.h * s.w, s.oc, s.c, a.get(), s.c, false, f.get(), s.oc, false, y, s.oc, false, threads);
  } else {
    ExplicitForward<T>(v, s, x, f.get(), y, threads);
  }
}

// Backward data of a stride-1 convolution as a forward one: dx = conv(dy, W')
// with W'[r][q][o][ci] = W[kh-1-r][kw-1-q][ci][o] and padding kh-1-pad.
bool FlippedForwardShape(const Conv2dShape& s, Conv2dShape* t) {
  if (s.stride != 1 || s.kh != s.kw || s.pad > s.kh - 1) return false;
  *t = s;
  t->h = s.OutH();
  t->w = s.OutW();
  t->c = s.oc;
  t->oc = s.c;
  t->pad = s.kh - 1 - s.pad;
  return t->Valid() && t->OutH() == s.h && t->OutW() == s.w;
}

// dy_bf16, w_bf16: dy, the filter hold bf16 values (ConvArgs::activations,
// ConvArgs::weights).
template <typename T>
void LoweredBackwardData(const GemmVariant& v, const Conv2dShape& s, const float* dy, const float* filter, float* dx,
                         bool dy_bf16, bool w_bf16, int threads) {
  if constexpr (std::is_same_v<T, Bf16>) {
    // Both operands hold bf16 values: the fp32 pass over the same
    // micro-kernel is this variant's result.
    if (const GemmVariant* twin = dy_bf16 && w_bf16 ? Fp32Twin(v) : nullptr) {
      return LoweredBackwardData<float>(*twin, s, dy, filter, dx, false, false, threads);
    }
  }
  const int64_t m = s.n * s.OutH() * s.OutW(), k = s.kh * s.kw * s.c;
  gemm_internal::BlockedGemmConfig cfg;
  Conv2dShape flipped;
  const gemm_internal::VectorPackers* vp = nullptr;
  if (!IsPointwise(s) && ImplicitConfig(v, dy_bf16, w_bf16, &cfg, &vp) && FlippedForwardShape(s, &flipped)) {
    // B packed from the filter as it is (FlippedB).
    cfg.pack_b = cfg.k_granule == 2 ? PackBFlipped<true> : PackBFlipped<false>;
    const FlippedB b{&s, filter, vp, v.dtype == GemmDtype::kBf16 && !w_bf16};
    ImplicitForward(cfg, vp, flipped, dy, &b, dx, threads);
    return;
  }
  if constexpr (std::is_same_v<T, Bf16>) {
    if (const GemmVariant* twin = dy_bf16 ? Fp32Twin(v) : nullptr) {
      // dy holds bf16 values: the fp32 GEMM of the same micro-kernel on a
      // rounded copy of the filter is this variant's result, without
      // converting dy.
      const ScratchLease rounded(std::size_t(k * s.oc) * sizeof(float));
      RoundToBf16(filter, rounded.as<float>(), long(k * s.oc));
      LoweredBackwardData<float>(*twin, s, dy, rounded.as<float>(), dx, false, false, threads);
      return;
    }
  }
  const GemmInput<T> f(filter, k * s.oc);
  const GemmInput<T> g(dy, m * s.oc);
  if (IsPointwise(s)) {
    CallGemm(v, m, s.c, s.oc, g.get(), s.oc, false, f.get(), s.oc, true, dx, s.c, false, threads);
    return;
  }
  std::fill_n(dx, s.n * s.h * s.w * s.c, 0.0f);
  const int64_t chunk = ChunkRows(m, k, sizeof(float));
  const ScratchLease dcol_lease(std::size_t(std::min(chunk, m) * k) * sizeof(float));
  float* dcol = dcol_lease.as<float>();
  for (int64_t r0 = 0; r0 < m; r0 += chunk) {
    const int64_t r1 = std::min(m, r0 + chunk);
    CallGemm(v, r1 - r0, k, s.oc, g.get() + r0 * s.oc, s.oc, false, f.get(), s.oc, true, dcol, k, false, threads);
    Col2ImAdd(s, dcol, r0, r1, dx);
  }
}

// bf16_in: x and dy hold bf16 values (ConvArgs::activations). The column
// chunks split the summed dimension, so their size sets the order of the
// fp32 sums: a variant with an fp32 twin sizes them for fp32 elements, as
// the twin does, the others for elements of T.
template <typename T>
void LoweredBackwardFilter(const GemmVariant& v, const Conv2dShape& s, const float* x, const float* dy, float* df,
                           bool bf16_in, int threads) {
  std::size_t elem_bytes = sizeof(T);
  if constexpr (std::is_same_v<T, Bf16>) {
    const GemmVariant* twin = Fp32Twin(v);
    // Both operands hold bf16 values: the fp32 lowering over the same
    // micro-kernel, cutting the same chunks, computes this variant's result
    // bit for bit, with no conversion: it is the fp32 pass.
    if (twin != nullptr && bf16_in) return LoweredBackwardFilter<float>(*twin, s, x, dy, df, false, threads);
    if (twin != nullptr) elem_bytes = sizeof(float);
  }
  const int64_t m = s.n * s.OutH() * s.OutW(), k = s.kh * s.kw * s.c;
  const GemmInput<T> g(dy, m * s.oc);
  if (IsPointwise(s)) {
    const GemmInput<T> a(x, m * s.c);
    CallGemm(v, k, s.oc, m, a.get(), s.c, true, g.get(), s.oc, false, df, s.oc, false, threads);
    return;
  }
  const int64_t chunk = ChunkRows(m, k, int64_t(elem_bytes));
  const ScratchLease col_lease(std::size_t(std::min(chunk, m) * k) * sizeof(T));
  T* col = col_lease.as<T>();
  for (int64_t r0 = 0; r0 < m; r0 += chunk) {
    const int64_t r1 = std::min(m, r0 + chunk);
    Im2Col<T>(s, x, r0, r1, col);
    CallGemm(v, k, s.oc, r1 - r0, col, k, true, g.get() + r0 * s.oc, s.oc, false, df, s.oc, r0 > 0, threads);
  }
}

// ---- The variants ----

const GemmVariant& GemmOf(const ConvVariant& v) { return GemmVariants()[std::size_t(v.gemm_index)]; }

bool LoweredSupports(const ConvVariant& v, ConvPass, const Conv2dShape&, int) { return CpuSupports(v.isa); }
Isa LoweredRunsOn(const ConvVariant& v, ConvPass, const Conv2dShape&, int) { return v.isa; }

void LoweredRun(const ConvVariant& v, ConvPass pass, const Conv2dShape& s, const ConvArgs& a, int threads) {
  const GemmVariant& g = GemmOf(v);
  const bool bf16 = v.precision == Precision::kBf16;
  switch (pass) {
    case ConvPass::kForward:
      bf16 ? LoweredForward<Bf16>(g, s, a.in0, a.in1, a.out, a.Bf16Activations(), a.Bf16Weights(), threads)
           : LoweredForward<float>(g, s, a.in0, a.in1, a.out, false, false, threads);
      return;
    case ConvPass::kBackwardData:
      bf16 ? LoweredBackwardData<Bf16>(g, s, a.in0, a.in1, a.out, a.Bf16Activations(), a.Bf16Weights(), threads)
           : LoweredBackwardData<float>(g, s, a.in0, a.in1, a.out, false, false, threads);
      return;
    case ConvPass::kBackwardFilter:
      bf16 ? LoweredBackwardFilter<Bf16>(g, s, a.in0, a.in1, a.out, a.Bf16Activations(), threads)
           : LoweredBackwardFilter<float>(g, s, a.in0, a.in1, a.out, false, threads);
      return;
  }
}

bool OneDnnSupports(const ConvVariant& v, ConvPass pass, const Conv2dShape& s, int threads) {
  return onednn::ConvImpl(pass, s, v.precision, threads).accepted;
}

Isa OneDnnRunsOn(const ConvVariant& v, ConvPass pass, const Conv2dShape& s, int threads) {
  return onednn::ConvImpl(pass, s, v.precision, threads).isa;
}

void OneDnnRun(const ConvVariant& v, ConvPass pass, const Conv2dShape& s, const ConvArgs& a, int threads) {
  onednn::Conv(pass, s, a, v.precision, threads);
}

bool OneDnnF32Supports(const ConvVariant&, ConvPass pass, const Conv2dShape& s, int threads) {
  return onednn::ConvImpl(pass, s, Precision::kF32, threads).accepted;
}

Isa OneDnnF32RunsOn(const ConvVariant&, ConvPass pass, const Conv2dShape& s, int threads) {
  return onednn::ConvImpl(pass, s, Precision::kF32, threads).isa;
}

// oneDNN's fp32 convolution on the inputs rounded to bf16 (as fp32 values;
// activations that already are bf16 values go as they are).
void OneDnnF32Run(const ConvVariant&, ConvPass pass, const Conv2dShape& s, const ConvArgs& a, int threads) {
  onednn::ConvOnBf16Values(pass, s, a, threads);
}

std::vector<ConvVariant> BuildVariants(Precision prec) {
  std::vector<ConvVariant> out;
  const GemmDtype dtype = prec == Precision::kF32 ? GemmDtype::kF32 : GemmDtype::kBf16;
  const auto gemms = GemmVariants();
  auto lowered = [&](const char* how) {
    for (std::size_t i = 0; i < gemms.size(); ++i) {
      const GemmVariant& g = gemms[i];
      if (g.dtype != dtype || g.supports != nullptr) continue;  // own kernels only
      out.push_back({std::string(how) + "+" + g.name, prec, g.isa, LoweredSupports, LoweredRun, LoweredRunsOn, int(i)});
    }
  };
  auto onednn = [&](const char* name) { out.push_back({name, prec, Isa::kAvx2Fma, OneDnnSupports, OneDnnRun, OneDnnRunsOn, -1}); };
  auto onednn_f32 = [&](const char* name) {
    if (prec == Precision::kBf16) out.push_back({name, prec, Isa::kAvx2Fma, OneDnnF32Supports, OneDnnF32Run, OneDnnF32RunsOn, -1});
  };
#define PODBENCH_CONV_LOWERED(how) lowered(#how);
#define PODBENCH_CONV_ONEDNN(name) onednn(#name);
#define PODBENCH_CONV_ONEDNN_F32(name) onednn_f32(#name);
#include "kernels/conv/conv_manifest.inc"
#undef PODBENCH_CONV_ONEDNN_F32
#undef PODBENCH_CONV_ONEDNN
#undef PODBENCH_CONV_LOWERED
  return out;
}

// The class text ends in ".bf16in" for a bf16 pass on activations that hold
// bf16 values and ".bf16w" for a forward or data-gradient one on a filter that
// does (both: ".bf16in.bf16w"): its variants do less work there, so it keeps
// its own ranking.
dispatch::ProblemClass ClassOf(ConvPass pass, const Conv2dShape& s, Precision prec, const ConvArgs& args,
                               int threads) {
  dispatch::ProblemClass pc;
  pc.family = prec == Precision::kF32 ? dispatch::Family::kConvF32 : dispatch::Family::kConvBf16;
  using dispatch::Bucket;
  pc.threads = ResolveThreads(threads);
  pc.text = std::string(ConvPassName(pass)) + ".k" + std::to_string(s.kh) + "x" + std::to_string(s.kw) + ".s" +
            std::to_string(s.stride) + ".p" + std::to_string(s.pad) + ".c" + std::to_string(Bucket(s.c)) + ".oc" +
            std::to_string(Bucket(s.oc)) + ".m" + std::to_string(Bucket(s.n * s.OutH() * s.OutW())) + ".t" +
            std::to_string(ResolveThreads(threads));
  if (prec == Precision::kBf16 && args.Bf16Activations()) pc.text += ".bf16in";
  if (prec == Precision::kBf16 && args.Bf16Weights() && pass != ConvPass::kBackwardFilter) pc.text += ".bf16w";
  return pc;
}


// The fp32 variant that bf16 variant `v` is on operands that all hold bf16
// values, bit for bit (conv2d.h): a widening lowering's fp32 twin, oneDNN's
// fp32 primitive for onednn_f32; or null (the vdpbf16ps lowering, oneDNN's
// bf16 primitive, the scalar reference).
const ConvVariant* Fp32Equivalent(const ConvVariant& v) {
  if (v.precision != Precision::kBf16) return nullptr;
  const GemmVariant* twin = v.run == LoweredRun ? Fp32Twin(GemmOf(v)) : nullptr;
  for (const ConvVariant& f : ConvVariants(Precision::kF32)) {
    if (v.run == OneDnnF32Run && f.run == OneDnnRun) return &f;
    if (twin != nullptr && f.run == LoweredRun && &GemmOf(f) == twin) return &f;
  }
  return nullptr;
}

}  // namespace

const ConvVariant& DispatchedConv(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, Precision prec,
                                  int threads) {
  assert(s.Valid());
  // Candidates: the variants whose least ISA this CPU has (static per
  // precision), and for bf16 each one's fp32 equivalent.
  struct Candidates {
    std::vector<const ConvVariant*> v;
    std::vector<dispatch::Candidate> names;
    std::vector<const ConvVariant*> fp32_equivalent;
  };
  static const std::array<Candidates, 2> per_prec = [] {
    std::array<Candidates, 2> c;
    for (int p = 0; p < 2; ++p) {
      for (const ConvVariant& v : ConvVariants(p == 0 ? Precision::kF32 : Precision::kBf16)) {
        if (!CpuSupports(v.isa)) continue;
        c[p].v.push_back(&v);
        c[p].names.push_back({v.name.c_str(), v.isa == Isa::kScalar});
        c[p].fp32_equivalent.push_back(Fp32Equivalent(v));
      }
    }
    return c;
  }();
  const Candidates& c = per_prec[prec == Precision::kF32 ? 0 : 1];
  // A bf16 pass whose inputs all hold bf16 values (the filter gradient's
  // filter is its output): its fp32-arithmetic contenders are fp32 variants,
  // which the fp32 class of the same problem ranks. Of those only the fp32
  // winner's equivalent competes (with the contenders on a bf16 unit), so
  // the bf16 pass runs what the fp32 pass runs unless a bf16 unit beats it,
  // and the same code is not measured twice. A variant the user forced
  // always competes.
  const ConvVariant* fp32_winner = nullptr;
  if (prec == Precision::kBf16 && args.Bf16Activations() && (pass == ConvPass::kBackwardFilter || args.Bf16Weights())) {
    fp32_winner = &DispatchedConv(pass, s, args, Precision::kF32, threads);
  }
  const std::string forced = fp32_winner != nullptr ? dispatch::Dispatcher::Global().Forced(dispatch::Family::kConvBf16) : "";
  std::vector<float> scratch;
  auto can_run = [&](std::size_t i) {
    const ConvVariant* eq = c.fp32_equivalent[i];
    if (fp32_winner != nullptr && eq != nullptr && eq != fp32_winner && c.v[i]->name != forced) return false;
    return c.v[i]->supports(*c.v[i], pass, s, threads);
  };
  auto run = [&](std::size_t i) {
    if (scratch.empty()) scratch.resize(std::size_t(ConvOutElems(pass, s)));
    ConvArgs a = args;
    a.out = scratch.data();
    c.v[i]->run(*c.v[i], pass, s, a, threads);
  };
  return *c.v[dispatch::Choose(ClassOf(pass, s, prec, args, threads), c.names, can_run, run)];
}

void RunDispatchedConv(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, Precision prec, int threads) {
  // The promises of bf16 activations (in0; in1 too for the filter gradient)
  // and of a bf16 filter (in1 of the other passes), on a sample (conv2d.h).
  [[maybe_unused]] const bool promised = prec == Precision::kBf16 && args.Bf16Activations();
  [[maybe_unused]] const bool filter_promised =
      prec == Precision::kBf16 && args.Bf16Weights() && pass != ConvPass::kBackwardFilter;
  assert(!promised || SampledBf16Values(args.in0, ConvIn0Elems(pass, s)));
  assert(!promised || pass != ConvPass::kBackwardFilter || SampledBf16Values(args.in1, ConvIn1Elems(pass, s)));
  assert(!filter_promised || SampledBf16Values(args.in1, ConvIn1Elems(pass, s)));
  const ConvVariant& v = DispatchedConv(pass, s, args, prec, threads);
  v.run(v, pass, s, args, threads);
}

const char* ConvPassName(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward: return "fwd";
    case ConvPass::kBackwardData: return "bwd_data";
    case ConvPass::kBackwardFilter: return "bwd_filter";
  }
  return "?";
}

std::int64_t ConvIn0Elems(ConvPass pass, const Conv2dShape& s) {
  return pass == ConvPass::kBackwardData ? s.n * s.OutH() * s.OutW() * s.oc : s.n * s.h * s.w * s.c;
}
std::int64_t ConvIn1Elems(ConvPass pass, const Conv2dShape& s) {
  return pass == ConvPass::kBackwardFilter ? s.n * s.OutH() * s.OutW() * s.oc : s.kh * s.kw * s.c * s.oc;
}
std::int64_t ConvOutElems(ConvPass pass, const Conv2dShape& s) {
  switch (pass) {
    case ConvPass::kForward: return s.n * s.OutH() * s.OutW() * s.oc;
    case ConvPass::kBackwardData: return s.n * s.h * s.w * s.c;
    case ConvPass::kBackwardFilter: return s.kh * s.kw * s.c * s.oc;
  }
  return 0;
}

std::span<const ConvVariant> ConvVariants(Precision precision) {
  static const std::vector<ConvVariant> f32 = BuildVariants(Precision::kF32);
  static const std::vector<ConvVariant> bf16 = BuildVariants(Precision::kBf16);
  return precision == Precision::kF32 ? f32 : bf16;
}

void Conv2dForward(const Conv2dShape& s, const float* x, const float* filter, float* y, Precision prec,
                   int threads, Values activations, Values weights) {
  RunDispatchedConv(ConvPass::kForward, s, {x, filter, y, activations, weights}, prec, threads);
}

void Conv2dBackwardData(const Conv2dShape& s, const float* dy, const float* filter, float* dx, Precision prec,
                        int threads, Values activations, Values weights) {
  RunDispatchedConv(ConvPass::kBackwardData, s, {dy, filter, dx, activations, weights}, prec, threads);
}

void Conv2dBackwardFilter(const Conv2dShape& s, const float* x, const float* dy, float* dfilter, Precision prec,
                          int threads, Values activations) {
  RunDispatchedConv(ConvPass::kBackwardFilter, s, {x, dy, dfilter, activations}, prec, threads);
}

}  // namespace podbench::kernels
