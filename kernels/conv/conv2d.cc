// Convolution lowered to the selected GEMM. Forward: implicit GEMM (the
// GEMM's packing step reads the input windows directly) when the selected
// variant packs fp32 panels, else explicit im2col. Backward passes: explicit
// im2col / col2im, rows of the lowered matrix (output positions) in chunks so
// the column buffer stays cache-sized.
#include "kernels/conv/conv2d.h"
#include "kernels/conv/conv2d_internal.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_driver.h"
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

template <typename T>
std::vector<T>& ThreadColBuffer() {
  thread_local std::vector<T> buf;
  return buf;
}

bool IsPointwise(const Conv2dShape& s) { return s.kh == 1 && s.kw == 1 && s.stride == 1 && s.pad == 0; }

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

void Gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, bool ta, const float* b,
          int64_t ldb, bool tb, float* c, int64_t ldc, bool acc, int threads) {
  GemmF32(m, n, k, a, lda, ta, b, ldb, tb, c, ldc, acc, threads);
}
void Gemm(int64_t m, int64_t n, int64_t k, const Bf16* a, int64_t lda, bool ta, const Bf16* b,
          int64_t ldb, bool tb, float* c, int64_t ldc, bool acc, int threads) {
  GemmBf16(m, n, k, a, lda, ta, b, ldb, tb, c, ldc, acc, threads);
}

int ResolveThreads(int threads) {
  const int have = DefaultThreadPool().threads();
  return threads <= 0 ? have : std::min(threads, have);
}

// Rows per chunk for a lowered matrix of `rows` x `k` elements of `elem` bytes.
int64_t ChunkRows(int64_t rows, int64_t k, int64_t elem) {
  return std::clamp<int64_t>(kColBytes / (k * elem), kMinChunkRows, std::max<int64_t>(rows, 1));
}

template <typename T>
std::vector<T> Converted(const float* src, int64_t n) {
  std::vector<T> out(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[std::size_t(i)] = Cvt<T>(src[i]);
  return out;
}

// Implicit GEMM: the A operand is the lowered input, packed straight from x
// by the packing step of a blocked GEMM variant (no column buffer).
struct ImplicitA {
  const Conv2dShape* s;
  const float* x;
  const float* zeros;  // s->c zeros: the source of padding
};

// Packs one micro-panel of MR output positions starting at `row0` (rows
// past m are zero) over depth [k0, k0 + kc). The walk over (tap, channel) is
// the same for every row, so each contiguous channel run is copied for all MR
// rows at once and the panel is written sequentially.
template <bool Round, int MR>
void PackIm2ColPanel(const Conv2dShape& s, const float* x, const float* zeros, int64_t row0,
                     int64_t rows, int64_t k0, int64_t kc, int64_t kcp, float* out) {
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
    float* o = out + q * MR;
    for (int64_t t = 0; t < len; ++t, o += MR) {
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) o[r] = Round ? RoundToBf16(src[r][t]) : src[r][t];
    }
    q += len;
    ci = 0;
    ++tap;
  }
  std::fill(out + kc * MR, out + kcp * MR, 0.0f);
}

// PackAFn over ImplicitA; Round = true rounds to bf16 (the MXU input) and
// stores the widened value, for fp32 micro-kernels running the bf16 contract.
template <bool Round>
void PackAIm2Col(const GemmProblem& p, int64_t i0, int64_t k0, int64_t mc, int64_t kc, int64_t kcp,
                 int mr, void* dst) {
  const ImplicitA& a = *static_cast<const ImplicitA*>(p.a);
  float* panel = static_cast<float*>(dst);
  for (int64_t ir = 0; ir < mc; ir += mr, panel += kcp * mr) {
    const int64_t rows = std::min<int64_t>(mr, mc - ir);
    switch (mr) {
      case 6: PackIm2ColPanel<Round, 6>(*a.s, a.x, a.zeros, i0 + ir, rows, k0, kc, kcp, panel); break;
      case 14: PackIm2ColPanel<Round, 14>(*a.s, a.x, a.zeros, i0 + ir, rows, k0, kc, kcp, panel); break;
      default: assert(false && "no im2col packer for this register tile");
    }
  }
}

// True when the selected GEMM for T packs A into fp32 panels (then the
// implicit path ran and y is written).
template <typename T>
bool TryImplicitForward(const Conv2dShape& s, const float* x, const T* f, float* y, int threads) {
  const GemmVariant& v = SelectedGemm(std::is_same_v<T, float> ? GemmDtype::kF32 : GemmDtype::kBf16);
  const gemm_internal::BlockedGemmConfig* base = v.blocked_config ? v.blocked_config() : nullptr;
  if (base == nullptr || base->k_granule != 1 || base->packed_elem_size != sizeof(float)) return false;
  gemm_internal::BlockedGemmConfig cfg = *base;
  cfg.pack_a = PackAIm2Col<!std::is_same_v<T, float>>;
  if (base->mr != 6 && base->mr != 14) return false;
  const std::vector<float> zeros(static_cast<std::size_t>(s.c), 0.0f);
  const ImplicitA a{&s, x, zeros.data()};
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
  return true;
}

template <typename T>
void Forward(const Conv2dShape& s, const float* x, const float* filter, float* y, int threads,
             bool allow_implicit) {
  const int64_t m = s.n * s.OutH() * s.OutW(), k = s.kh * s.kw * s.c;
  std::vector<T> fconv;
  const T* f;
  if constexpr (std::is_same_v<T, float>) {
    f = filter;
  } else {
    fconv = Converted<T>(filter, k * s.oc);
    f = fconv.data();
  }
  if (allow_implicit && TryImplicitForward<T>(s, x, f, y, threads)) return;
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
    std::vector<T>& col = ThreadColBuffer<T>();
    if (col.size() < std::size_t((r1 - r0) * k)) col.resize(std::size_t((r1 - r0) * k));
    Im2Col<T>(s, x, r0, r1, col.data());
    Gemm(r1 - r0, s.oc, k, col.data(), k, false, f, s.oc, false, y + r0 * s.oc, s.oc, false,
         gemm_threads);
  };
  if (parallel_chunks) {
    DefaultThreadPool().Run(t, [&](int w) {
      for (int64_t ch = w; ch < chunks; ch += t) do_chunk(ch * chunk, 1);
    });
  } else {
    for (int64_t ch = 0; ch < chunks; ++ch) do_chunk(ch * chunk, t);
  }
}

template <typename T>
void BackwardData(const Conv2dShape& s, const float* dy, const float* filter, float* dx, int threads) {
  const int64_t m = s.n * s.OutH() * s.OutW(), k = s.kh * s.kw * s.c;
  std::vector<T> fconv, dyconv;
  const T* f;
  const T* g;
  if constexpr (std::is_same_v<T, float>) {
    f = filter;
    g = dy;
  } else {
    fconv = Converted<T>(filter, k * s.oc);
    dyconv = Converted<T>(dy, m * s.oc);
    f = fconv.data();
    g = dyconv.data();
  }
  if (IsPointwise(s)) {
    Gemm(m, s.c, s.oc, g, s.oc, false, f, s.oc, true, dx, s.c, false, threads);
    return;
  }
  std::fill_n(dx, s.n * s.h * s.w * s.c, 0.0f);
  const int64_t chunk = ChunkRows(m, k, sizeof(float));
  std::vector<float> dcol(std::size_t(std::min(chunk, m) * k));
  for (int64_t r0 = 0; r0 < m; r0 += chunk) {
    const int64_t r1 = std::min(m, r0 + chunk);
    Gemm(r1 - r0, k, s.oc, g + r0 * s.oc, s.oc, false, f, s.oc, true, dcol.data(), k, false, threads);
    Col2ImAdd(s, dcol.data(), r0, r1, dx);
  }
}

template <typename T>
void BackwardFilter(const Conv2dShape& s, const float* x, const float* dy, float* df, int threads) {
  const int64_t m = s.n * s.OutH() * s.OutW(), k = s.kh * s.kw * s.c;
  std::vector<T> dyconv;
  const T* g;
  if constexpr (std::is_same_v<T, float>) {
    g = dy;
  } else {
    dyconv = Converted<T>(dy, m * s.oc);
    g = dyconv.data();
  }
  if constexpr (std::is_same_v<T, float>) {
    if (IsPointwise(s)) {
      Gemm(k, s.oc, m, x, s.c, true, g, s.oc, false, df, s.oc, false, threads);
      return;
    }
  }
  const int64_t chunk = ChunkRows(m, k, sizeof(T));
  std::vector<T> col(std::size_t(std::min(chunk, m) * k));
  for (int64_t r0 = 0; r0 < m; r0 += chunk) {
    const int64_t r1 = std::min(m, r0 + chunk);
    Im2Col<T>(s, x, r0, r1, col.data());
    Gemm(k, s.oc, r1 - r0, col.data(), k, true, g + r0 * s.oc, s.oc, false, df, s.oc, r0 > 0, threads);
  }
}

}  // namespace

void Conv2dForward(const Conv2dShape& s, const float* x, const float* filter, float* y,
                   Precision prec, int threads) {
  assert(s.Valid());
  if (prec == Precision::kF32 && IsPointwise(s)) {
    GemmF32(s.n * s.h * s.w, s.oc, s.c, x, s.c, false, filter, s.oc, false, y, s.oc, false, threads);
    return;
  }
  if (prec == Precision::kF32) {
    Forward<float>(s, x, filter, y, threads, true);
  } else {
    Forward<Bf16>(s, x, filter, y, threads, true);
  }
}

namespace conv_internal {
void Conv2dForwardExplicitIm2Col(const Conv2dShape& s, const float* x, const float* filter, float* y,
                                 Precision prec, int threads) {
  assert(s.Valid());
  if (prec == Precision::kF32) {
    Forward<float>(s, x, filter, y, threads, false);
  } else {
    Forward<Bf16>(s, x, filter, y, threads, false);
  }
}
}  // namespace conv_internal

void Conv2dBackwardData(const Conv2dShape& s, const float* dy, const float* filter, float* dx,
                        Precision prec, int threads) {
  assert(s.Valid());
  if (prec == Precision::kF32) {
    BackwardData<float>(s, dy, filter, dx, threads);
  } else {
    BackwardData<Bf16>(s, dy, filter, dx, threads);
  }
}

void Conv2dBackwardFilter(const Conv2dShape& s, const float* x, const float* dy, float* dfilter,
                          Precision prec, int threads) {
  assert(s.Valid());
  if (prec == Precision::kF32) {
    BackwardFilter<float>(s, x, dy, dfilter, threads);
  } else {
    BackwardFilter<Bf16>(s, x, dy, dfilter, threads);
  }
}

}  // namespace podbench::kernels
