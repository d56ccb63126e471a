#include "kernels/gemm/gemm.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <vector>

#include "kernels/dispatch/dispatch.h"
#include "kernels/gemm/gemm_variants.h"
#include "kernels/onednn/onednn.h"
#include "kernels/thread_pool.h"

namespace podbench::kernels {
namespace {

// C = 0 (unless accumulating) when k = 0; nothing when m or n is 0. True when
// the problem was that trivial.
bool TrivialGemm(const GemmProblem& p) {
  if (p.m == 0 || p.n == 0) return true;
  if (p.k != 0) return false;
  if (!p.accumulate) {
    for (std::int64_t i = 0; i < p.m; ++i) std::fill_n(p.c + i * p.ldc, p.n, 0.0f);
  }
  return true;
}

template <GemmDtype D>
void OneDnnGemm(const GemmProblem& p, int threads) {
  if (TrivialGemm(p)) return;
  onednn::Gemm(p, D, threads);
}

template <GemmDtype D>
bool OneDnnSupports(const GemmProblem& p, int threads) {
  return p.m == 0 || p.n == 0 || p.k == 0 || onednn::GemmImpl(p, D, threads).accepted;
}

template <GemmDtype D>
Isa OneDnnRunsOn(const GemmProblem& p, int threads) {
  return onednn::GemmImpl(p, D, threads).isa;
}

// The problem of bf16 p on fp32 copies of its operands (row-major, in
// thread-local buffers, filled on `threads` of oneDNN's OpenMP threads) when
// `fill`; without, its shape and strides only.
GemmProblem Widened(const GemmProblem& p, bool fill, int threads = 1) {
  thread_local std::vector<float> wa, wb;
  if (fill) {
    if (wa.size() < std::size_t(p.m * p.k)) wa.resize(std::size_t(p.m * p.k));
    if (wb.size() < std::size_t(p.k * p.n)) wb.resize(std::size_t(p.k * p.n));
    const Bf16* a = static_cast<const Bf16*>(p.a);
    const Bf16* b = static_cast<const Bf16*>(p.b);
    float* da = wa.data();
    float* db = wb.data();
    // One region over A's rows then B's rows, on the OpenMP threads the matmul then runs on.
    const std::int64_t rows = p.m + p.k;
    const std::int64_t min_rows = std::max<std::int64_t>(1, onednn::kMinConvertPerThread * rows / std::max<std::int64_t>(p.m * p.k + p.k * p.n, 1));
    onednn::ParallelRangesOnOnednnThreads(threads, rows, min_rows, 1, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        if (r < p.m) {
          const std::int64_t i = r;
          if (p.csa == 1) {
            ConvertToFloat(a + i * p.rsa, da + i * p.k, long(p.k));
          } else {
            for (std::int64_t q = 0; q < p.k; ++q) da[i * p.k + q] = a[i * p.rsa + q * p.csa].ToFloat();
          }
        } else {
          const std::int64_t q = r - p.m;
          if (p.csb == 1) {
            ConvertToFloat(b + q * p.rsb, db + q * p.n, long(p.n));
          } else {
            for (std::int64_t j = 0; j < p.n; ++j) db[q * p.n + j] = b[q * p.rsb + j * p.csb].ToFloat();
          }
        }
      }
    });
  }
  GemmProblem w = p;
  w.a = fill ? wa.data() : nullptr;
  w.rsa = p.k;
  w.csa = 1;
  w.b = fill ? wb.data() : nullptr;
  w.rsb = p.n;
  w.csb = 1;
  return w;
}

void OneDnnGemmOnWidened(const GemmProblem& p, int threads) {
  if (TrivialGemm(p)) return;
  onednn::Gemm(Widened(p, true, threads), GemmDtype::kF32, threads);
}

bool OneDnnSupportsWidened(const GemmProblem& p, int threads) {
  return p.m == 0 || p.n == 0 || p.k == 0 || onednn::GemmImpl(Widened(p, false), GemmDtype::kF32, threads).accepted;
}

Isa OneDnnRunsOnWidened(const GemmProblem& p, int threads) {
  return onednn::GemmImpl(Widened(p, false), GemmDtype::kF32, threads).isa;
}

constexpr GemmVariant kVariants[] = {
#define PODBENCH_GEMM(name, dtype, isa, mr, nr) \
  {#name, GemmDtype::dtype, Isa::isa, mr, nr, name, name##_config, nullptr, nullptr},
#define PODBENCH_GEMM_ONEDNN(name, dtype)                                                         \
  {#name, GemmDtype::dtype, Isa::kAvx2Fma, 0, 0, OneDnnGemm<GemmDtype::dtype>, nullptr, \
   OneDnnSupports<GemmDtype::dtype>, OneDnnRunsOn<GemmDtype::dtype>},
#define PODBENCH_GEMM_ONEDNN_F32(name) \
  {#name, GemmDtype::kBf16, Isa::kAvx2Fma, 0, 0, OneDnnGemmOnWidened, nullptr, OneDnnSupportsWidened, \
   OneDnnRunsOnWidened},
#include "kernels/gemm/gemm_manifest.inc"
#undef PODBENCH_GEMM_ONEDNN_F32
#undef PODBENCH_GEMM_ONEDNN
#undef PODBENCH_GEMM
};

// The variants of one dtype whose ISA this CPU has, as dispatch candidates.
struct Candidates {
  std::vector<const GemmVariant*> variants;
  std::vector<dispatch::Candidate> names;
};

Candidates Build(GemmDtype dtype) {
  Candidates c;
  for (const GemmVariant& v : kVariants) {
    if (v.dtype != dtype || !CpuSupports(v.isa)) continue;
    c.variants.push_back(&v);
    c.names.push_back({v.name, v.reference()});
  }
  return c;
}

const Candidates& CandidatesOf(GemmDtype dtype) {
  static const Candidates f32 = Build(GemmDtype::kF32);
  static const Candidates bf16 = Build(GemmDtype::kBf16);
  return dtype == GemmDtype::kF32 ? f32 : bf16;
}

char Layout(std::int64_t row_stride, std::int64_t col_stride) {
  return col_stride == 1 ? 'n' : row_stride == 1 ? 't' : 's';
}

// "m512.n512.k512.nt.t2": bucketed sizes, A and B layouts (n: rows
// contiguous, t: transposed, s: strided), threads.
dispatch::ProblemClass ClassOf(GemmDtype dtype, const GemmProblem& p, int threads) {
  const int t = threads <= 0 ? DefaultThreadPool().threads() : std::min(threads, DefaultThreadPool().threads());
  dispatch::ProblemClass pc;
  pc.family = dtype == GemmDtype::kF32 ? dispatch::Family::kGemmF32 : dispatch::Family::kGemmBf16;
  pc.threads = t;
  pc.text = "m" + std::to_string(dispatch::Bucket(p.m)) + ".n" + std::to_string(dispatch::Bucket(p.n)) + ".k" +
            std::to_string(dispatch::Bucket(p.k)) + "." + Layout(p.rsa, p.csa) + Layout(p.rsb, p.csb) + ".t" +
            std::to_string(t);
  return pc;
}

}  // namespace

GemmProblem RowMajorProblem(std::int64_t m, std::int64_t n, std::int64_t k, const void* a, std::int64_t lda,
                            bool trans_a, const void* b, std::int64_t ldb, bool trans_b, float* c,
                            std::int64_t ldc, bool accumulate) {
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

std::span<const GemmVariant> GemmVariants() { return kVariants; }

const GemmVariant& DispatchedGemm(GemmDtype dtype, const GemmProblem& p, int threads) {
  const Candidates& c = CandidatesOf(dtype);
  assert(!c.variants.empty());
  if (c.variants.size() == 1) return *c.variants[0];
  std::vector<float> scratch;
  GemmProblem sp = p;
  auto can_run = [&](std::size_t i) { return c.variants[i]->Runs(p, threads); };
  auto run = [&](std::size_t i) {
    if (scratch.empty()) {
      scratch.assign(std::size_t(std::max<std::int64_t>(p.m, 1) * std::max<std::int64_t>(p.ldc, 1)), 0.0f);
      sp.c = scratch.data();
    }
    c.variants[i]->fn(sp, threads);
  };
  return *c.variants[dispatch::Choose(ClassOf(dtype, p, threads), c.names, can_run, run)];
}

void RunGemm(GemmDtype dtype, const GemmProblem& p, int threads) {
  assert(p.m >= 0 && p.n >= 0 && p.k >= 0 && p.ldc >= p.n);
  if (TrivialGemm(p)) return;
  DispatchedGemm(dtype, p, threads).fn(p, threads);
}

void GemmF32(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
             bool trans_a, const float* b, std::int64_t ldb, bool trans_b, float* c,
             std::int64_t ldc, bool accumulate, int threads) {
  RunGemm(GemmDtype::kF32, RowMajorProblem(m, n, k, a, lda, trans_a, b, ldb, trans_b, c, ldc, accumulate), threads);
}

void GemmBf16(std::int64_t m, std::int64_t n, std::int64_t k, const Bf16* a, std::int64_t lda,
              bool trans_a, const Bf16* b, std::int64_t ldb, bool trans_b, float* c,
              std::int64_t ldc, bool accumulate, int threads) {
  RunGemm(GemmDtype::kBf16, RowMajorProblem(m, n, k, a, lda, trans_a, b, ldb, trans_b, c, ldc, accumulate), threads);
}

const GemmVariant& ReferenceGemm(GemmDtype dtype) {
  for (const GemmVariant& v : kVariants) {
    if (v.dtype == dtype && v.reference()) return v;
  }
  assert(false && "the manifest lists a scalar reference per dtype");
  return kVariants[0];
}

}  // namespace podbench::kernels
