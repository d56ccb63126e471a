// Private to kernels/: oneDNN (libdnnl.so.2) as a kernel backend, for the
// GEMM and convolution variants "onednn" and for the benchmarks' peers.
//
// The library is dlopen()ed on first use, not linked: commands that run no
// kernel (`podbench check`, `--help`) never load it, and a machine without
// it still runs every other variant. Only its C API is used, through
// pointers resolved with dlsym; its OpenMP thread count is set per calling
// thread (omp_set_num_threads) to the `threads` a call asks for.
//
// Numerics (the MXU contract of kernels/bf16.h for kBf16; plain fp32 for kF32):
//   - every primitive is created with fpmath mode `strict` (so a user's
//     ONEDNN_DEFAULT_FPMATH_MODE cannot turn fp32 math into bf16) and with a
//     user scratchpad;
//   - bf16: the operands are rounded to bf16 by podbench (Bf16, round to
//     nearest even) before oneDNN sees them, the destination (and the
//     gradients of backward passes) is fp32, and accumulation is fp32: oneDNN
//     2.x's bf16 matmul/convolution accumulate in fp32 in every CPU
//     implementation (AMX tdpbf16ps and AVX-512 vdpbf16ps multiply bf16 pairs
//     exactly and add in fp32; the avx512_core kernels widen bf16 to fp32);
//     a destination of f32 keeps partial sums in fp32 between depth blocks;
//     C += A*B uses the sum post-op, an fp32 add;
//   - implementations named "ref..." are refused (they are correct but two
//     orders of magnitude slower; measuring them would only cost time), as is
//     anything oneDNN cannot build for the CPU (e.g. bf16 on AVX2 in 2.6).
// Like the AVX-512 BF16 kernel, AMX and vdpbf16ps treat bf16 denormal inputs
// as zero (Intel SDM, TDPBF16PS/VDPBF16PS: DAZ, FTZ, round to nearest even).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/conv/conv_variants.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm/gemm.h"

namespace podbench::kernels::onednn {

// True when libdnnl could be loaded and used (the first call loads it).
bool Available();
// Why not, when !Available(): e.g. "libdnnl.so.2: cannot open shared object file".
std::string UnavailableReason();
// "oneDNN 2.6.3 (OpenMP)", or "" when unavailable.
std::string VersionString();

// fn(begin, end) over [0, n), split into at most `threads` parts (each at
// least min_per_part long, but for the last a multiple of `align`) run on
// oneDNN's OpenMP threads: for a conversion pass just before a oneDNN
// primitive, which then runs on the threads and caches that did the pass.
// On podbench's own pool instead, the two sets of threads (each spinning a
// while after its region) took each other's cores: a bf16 GEMM at
// m=n=k=512 on 2 threads widened on the pool ran at 0.79x of oneDNN fp32,
// and 0.87x widened on one thread. Serial when oneDNN (or its libgomp
// entry points) is unavailable. fn must not throw (it runs inside an OpenMP
// region) and must only touch [begin, end) of what it writes.
void ParallelRangesOnOnednnThreads(int threads, std::int64_t n, std::int64_t min_per_part, std::int64_t align,
                                   const std::function<void(std::int64_t, std::int64_t)>& fn);

// The min_per_part of podbench's conversion passes, in elements: below it a
// pass is not split (the threshold the bf16 rounding of oneDNN convolutions
// has always used; not tuned).
constexpr std::int64_t kMinConvertPerThread = 1 << 16;

// The GOMP_SPINCOUNT podbench sets at start-up, before anything loads
// libgomp (oneDNN's OpenMP runtime), unless the user has set GOMP_SPINCOUNT
// or OMP_WAIT_POLICY or libgomp is loaded already (linked in): libgomp's default spin after a region (300,000
// iterations, about 10 ms) keeps a core from podbench's own thread pool.
constexpr long kOpenMpSpinCount = 10000;
// How libgomp's threads wait in this process, for benchmark contexts: e.g.
// "GOMP_SPINCOUNT=10000 (set by podbench)", "OMP_WAIT_POLICY=active (user)".
// Loads oneDNN if it is not loaded yet; "" when it is unavailable.
std::string OpenMpWaitSetting();
// The decision behind it, made once while the process starts (one thread:
// setenv is not safe against a concurrent getenv), from the user's
// GOMP_SPINCOUNT and OMP_WAIT_POLICY (null when unset) and whether libgomp
// is loaded already. `spincount`: what to set GOMP_SPINCOUNT to ("" for
// nothing); `setting`: OpenMpWaitSetting's text.
struct OpenMpSpinPlan {
  std::string spincount;
  std::string setting;
};
OpenMpSpinPlan PlanOpenMpSpin(const char* user_spincount, const char* user_wait_policy, bool libgomp_loaded);

// What oneDNN builds for one problem.
struct Impl {
  bool accepted = false;  // exists and meets the contract above
  std::string name;       // oneDNN's implementation name, e.g. "brg:avx512_core_amx"; "" when none
  Isa isa = Isa::kScalar; // the unit it runs on (from the name, else the effective ISA)
};

// GEMM with the contract of GemmFn (kernels/gemm/gemm.h).
Impl GemmImpl(const GemmProblem& p, GemmDtype dtype, int threads);
// REQUIRES: GemmImpl(p, dtype, threads).accepted.
void Gemm(const GemmProblem& p, GemmDtype dtype, int threads);

// Convolution passes with the contracts of conv2d.h.
Impl ConvImpl(ConvPass pass, const Conv2dShape& s, Precision prec, int threads);
// REQUIRES: ConvImpl(pass, s, prec, threads).accepted.
void Conv(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, Precision prec, int threads);
// oneDNN's fp32 convolution of the inputs rounded to bf16 values
// (RoundToBf16): the bf16 pass of the MXU contract where oneDNN has no bf16
// primitive. The activations are rounded into a copy on oneDNN's threads,
// unless args.activations says they hold bf16 values already (then they go
// to the primitive as they are, and the pass makes no copy that the fp32
// convolution does not); the filter of the forward and backward-data passes
// is rounded while it is put in the primitive's weights layout, one pass
// where Conv on pre-rounded inputs needs two, or, where the primitive takes
// HWIO and args.weights says the filter holds bf16 values, goes as it is.
// Bit for bit Conv(pass, s, rounded args, kF32, threads).
// REQUIRES: ConvImpl(pass, s, Precision::kF32, threads).accepted.
void ConvOnBf16Values(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, int threads);
// Whether ConvOnBf16Values folds the filter's rounding into its reorder for
// this problem (the primitive wants another layout than HWIO and podbench can
// address it); false for the filter gradient, whose filter is the output.
bool ConvFoldsFilterRounding(ConvPass pass, const Conv2dShape& s, int threads);
// For tests: where ConvFoldsFilterRounding(pass, s, threads), the filter
// `hwio` in the fp32 primitive's weights layout (every byte of it, padding
// included) as ConvOnBf16Values makes it (`folded`) and as oneDNN's reorder
// makes it from the filter rounded first (`reference`); else false.
bool FoldedFilterForTesting(ConvPass pass, const Conv2dShape& s, int threads, const float* hwio,
                            std::vector<float>* folded, std::vector<float>* reference);

// A primitive with operands of its own: the benchmarks' peers. GEMM operands
// are plain, in the GEMM's dtype (as GemmFn's are). Convolutions: with
// from_f32, the inputs are fp32 in podbench's layouts (NHWC, HWIO) and every
// Run first converts them with oneDNN's own reorders (to bf16, to its
// weights layout) and, for the filter gradient, reorders it back to HWIO:
// oneDNN on podbench's interface; without, they are prepared once in the
// types and layouts oneDNN prefers: oneDNN without any conversion.
class Prepared {
 public:
  virtual ~Prepared() = default;
  virtual void Run() = 0;
  virtual const Impl& impl() const = 0;
};
// Row-major C (f32) = A * B. Null (and *why set) when oneDNN has no accepted
// implementation; `why` may be null.
std::unique_ptr<Prepared> PrepareGemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmDtype dtype,
                                      int threads, std::string* why);
std::unique_ptr<Prepared> PrepareConv(ConvPass pass, const Conv2dShape& s, Precision prec, int threads,
                                      bool from_f32, std::string* why);

}  // namespace podbench::kernels::onednn
